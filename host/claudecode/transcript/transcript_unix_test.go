//go:build unix

package transcript

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadTranscriptFIFO: a FIFO where a transcript should be is refused at
// once instead of blocking the reader.
func TestReadTranscriptFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Read(context.Background(), fifo, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("FIFO accepted as a transcript")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	if _, err := Read(context.Background(), filepath.Join(dir, "missing.jsonl"), nil); !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: error = %v, want not-exist", err)
	}
}
