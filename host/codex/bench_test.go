package codex

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"bottle/session"
)

// BenchmarkRead reads the e2e rollout plain and zstd-compressed (Codex's
// cold-storage form), for the cost of decompression.
func BenchmarkRead(b *testing.B) {
	plain, err := os.ReadFile(filepath.Join("testdata", "e2e_session.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		b.Fatal(err)
	}
	z := enc.EncodeAll(plain, nil)
	for _, c := range []struct {
		name string
		data []byte
	}{{"plain", plain}, {"zst", z}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportMetric(float64(len(c.data)), "file-bytes")
			for b.Loop() {
				if _, err := ReadFrom(bytes.NewReader(c.data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSession turns the e2e rollout, read, into the session model
// with the working state's observer: the cost the reader adds to Read.
func BenchmarkSession(b *testing.B) {
	r, err := Read(filepath.Join("testdata", "e2e_session.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var seen int
		o := &session.ReadOptions{Actions: true, Observe: func(int, *session.ToolDetail, func() string) { seen++ }}
		if _, err := Session(context.Background(), r, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListingHead is what a project's listing reads of a rollout:
// its first line alone for another project's thread (MetaCwd), the whole
// rollout for one of its own (ReadSession).
func BenchmarkListingHead(b *testing.B) {
	path := filepath.Join("testdata", "e2e_session.jsonl")
	b.Run("MetaCwd", func(b *testing.B) {
		for b.Loop() {
			if _, err := MetaCwd(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ReadSession", func(b *testing.B) {
		for b.Loop() {
			if _, err := ReadSession(context.Background(), path, &session.ReadOptions{NoDigests: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
