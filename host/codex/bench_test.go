package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
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
