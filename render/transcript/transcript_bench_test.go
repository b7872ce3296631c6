package transcript

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"bottle/internal/gentranscript"

	"bottle/internal/corpustest"
)

// Benchmarks of the transcript reader and the renderer. Inputs: synthetic
// transcripts from internal/gentranscript (the corpus mix of line types and
// sizes) and, when ../shared/corpus exists, its largest transcript.
//
//	go test ./render -run '^$' -bench . -benchmem

var genCache sync.Map // size -> []byte

// genTranscript returns a synthetic transcript of about n bytes (cached).
func genTranscript(tb testing.TB, n int64) []byte {
	tb.Helper()
	if v, ok := genCache.Load(n); ok {
		return v.([]byte)
	}
	var b bytes.Buffer
	if _, err := gentranscript.Write(&b, gentranscript.Config{Bytes: n, Seed: 1}); err != nil {
		tb.Fatal(err)
	}
	genCache.Store(n, b.Bytes())
	return b.Bytes()
}

// largestCorpusTranscript is the corpus session the hook-latency target
// names (4 MB); the benchmark skips without the corpus.
func largestCorpusTranscript(tb testing.TB) string {
	tb.Helper()
	p := filepath.Join(corpustest.Dir(tb), "transcripts", "entireio-cli", "70d782f7-b303-4e48-9512-6bec16c37abd.jsonl")
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("corpus transcript absent: %v", err)
	}
	return p
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
		data, err := os.ReadFile(largestCorpusTranscript(b))
		if err != nil {
			b.Fatal(err)
		}
		benchRead(b, data)
	})
}

var _ = io.Discard
