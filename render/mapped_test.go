package render

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Concurrent renders of one transcript big enough to be memory-mapped on
// Linux (the MCP server's case) each read it on their own and agree byte
// for byte.
func TestMappedConcurrentRenders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, genTranscript(t, 10<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{TranscriptPath: path, NoBudget: true, Now: time.Unix(0, 0), Location: time.UTC}
	want, err := Render(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 3 {
				got, err := Render(context.Background(), o)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got.Markdown, want.Markdown) {
					errs <- errors.New("a concurrent render differs")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
