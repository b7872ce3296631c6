package render

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

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

// BenchmarkRender renders a whole bottle from a transcript file (budget 0:
// everything), without a database.
func BenchmarkRender(b *testing.B) {
	run := func(b *testing.B, path string, budget int) {
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(fi.Size())
		b.ReportAllocs()
		o := Options{TranscriptPath: path, BudgetTokens: budget, NoBudget: budget < 0, Now: time.Unix(0, 0), Location: time.UTC}
		for b.Loop() {
			if _, err := Render(context.Background(), o); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("gen-32MB", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "gen.jsonl")
		if err := os.WriteFile(path, genTranscript(b, 32<<20), 0o600); err != nil {
			b.Fatal(err)
		}
		run(b, path, -1)
	})
	b.Run("corpus-70d782f7", func(b *testing.B) { run(b, largestCorpusTranscript(b), 0) })
}

var _ = io.Discard
