package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestMemoryLimitFor(t *testing.T) {
	tests := []struct {
		size int64
		want int64
	}{
		{0, memoryLimit},
		{4 << 20, memoryLimit},
		{400 << 20, memoryLimit}, // the 400 MB benchmark keeps the default
		{1200 << 20, 100 << 20},
		{12 << 30, 1 << 30},
	}
	for _, tt := range tests {
		if got := memoryLimitFor(tt.size); got != tt.want {
			t.Errorf("memoryLimitFor(%d) = %d, want %d", tt.size, got, tt.want)
		}
	}
}

// TestFitMemory: the default limit rises for a large transcript; a limit
// from GOMEMLIMIT, or a file that cannot be read, leaves it alone.
func TestFitMemory(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	oldDefault := limitDefault
	t.Cleanup(func() {
		debug.SetMemoryLimit(old)
		limitDefault = oldDefault
	})
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small, large := sparse("small.jsonl", 4<<20), sparse("large.jsonl", 1200<<20)

	const userLimit = 123 << 20
	limitDefault = false
	debug.SetMemoryLimit(userLimit)
	fitMemory(large)
	if got := debug.SetMemoryLimit(-1); got != userLimit {
		t.Errorf("with GOMEMLIMIT's limit: %d after a large transcript, want %d", got, userLimit)
	}

	limitDefault = true
	debug.SetMemoryLimit(memoryLimit)
	for _, tt := range []struct {
		path string
		want int64
	}{
		{small, memoryLimit},
		{filepath.Join(dir, "missing.jsonl"), memoryLimit},
		{"", memoryLimit},
		{large, 100 << 20},
	} {
		fitMemory(tt.path)
		if got := debug.SetMemoryLimit(-1); got != tt.want {
			t.Errorf("fitMemory(%q): limit %d, want %d", tt.path, got, tt.want)
		}
	}
}

// TestRaiseLimit: after a collection that finds more live heap than half
// the limit, the limit is twice the live heap; below that it stays.
func TestRaiseLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	const limit = 8 << 20
	debug.SetMemoryLimit(1 << 40)
	runtime.GC()
	debug.SetMemoryLimit(limit)
	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 1<<20)) // 64 MB live
	}
	runtime.GC()
	raiseLimit()
	if got := debug.SetMemoryLimit(-1); got < 2*64<<20 {
		t.Errorf("limit %d with 64 MB live, want at least twice that", got)
	}
	runtime.KeepAlive(live)
	live = nil
	runtime.GC()
	const high = 1 << 40
	debug.SetMemoryLimit(high)
	raiseLimit()
	if got := debug.SetMemoryLimit(-1); got != high {
		t.Errorf("limit %d after a collection with little live, want it left at %d", got, high)
	}
}
