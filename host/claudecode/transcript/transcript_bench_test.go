package transcript

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"bottle/internal/measure/gentranscript"

	"bottle/internal/measure/corpustest"
)

// Benchmarks of the transcript reader (the renderer's are in package
// render). Inputs: synthetic transcripts from internal/measure/gentranscript and,
// when the corpus exists, its largest transcript.
//
//	go test ./host/claudecode/transcript -run '^$' -bench . -benchmem

// genTranscript returns a synthetic transcript of about n bytes.
func genTranscript(tb testing.TB, n int64) []byte {
	tb.Helper()
	data, err := gentranscript.Cached(n)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func benchRead(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFrom(bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadTranscript reads a transcript with digests, in memory.
func BenchmarkReadTranscript(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int64
	}{{"gen-4MB", 4 << 20}, {"gen-32MB", 32 << 20}} {
		b.Run(size.name, func(b *testing.B) { benchRead(b, genTranscript(b, size.n)) })
	}
	b.Run("corpus-70d782f7", func(b *testing.B) {
		data, err := os.ReadFile(corpustest.LargestTranscript(b))
		if err != nil {
			b.Fatal(err)
		}
		benchRead(b, data)
	})
}

// BenchmarkReadFile reads transcript files from 100 KB to 4 MB (in the page
// cache) through a memory map, as Read does from mapMin on, and through
// read(2) into chunk buffers, as it does below: the case for mapMin.
func BenchmarkReadFile(b *testing.B) {
	for _, n := range []int64{100 << 10, 300 << 10, 1 << 20, 4 << 20} {
		path := filepath.Join(b.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, genTranscript(b, n), 0o600); err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("%dKB", n>>10)
		b.Run(name+"/mapped", func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				if _, err := Read(context.Background(), path, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/read", func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				// Not an *os.File: no map.
				_, err = ReadFrom(struct{ io.Reader }{f}, nil)
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
