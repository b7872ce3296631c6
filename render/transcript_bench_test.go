package render

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"bottle/internal/measure/gentranscript"

	"bottle/internal/measure/corpustest"
)

// Benchmarks of the transcript reader and the renderer. Inputs: synthetic
// transcripts from internal/measure/gentranscript (the corpus mix of line types and
// sizes) and, when ../shared/corpus exists, its largest transcript.
//
//	go test ./render -run '^$' -bench . -benchmem

// genTranscript returns a synthetic transcript of about n bytes.
func genTranscript(tb testing.TB, n int64) []byte {
	tb.Helper()
	data, err := gentranscript.Cached(n)
	if err != nil {
		tb.Fatal(err)
	}
	return data
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
	b.Run("corpus-70d782f7", func(b *testing.B) { run(b, corpustest.LargestTranscript(b), 0) })
}

var _ = io.Discard
