package search

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"bottle/internal/measure/corpustest"
)

// BenchmarkSearchCorpus searches the corpus's transcripts (no database)
// in process: cold, without an index (what a first search reads), and
// warm, from an index, cycling through six queries.
func BenchmarkSearchCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(b), "transcripts", "*", "*.jsonl"))
	var srcs []Source
	for _, f := range files {
		srcs = append(srcs, Source{ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Transcript: f})
	}
	var queries []Query
	for _, s := range []string{"go test", "error", "checkpoint", "func main", "xyzzy", "the"} {
		q, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		queries = append(queries, q)
	}
	b.Run("cold", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := Search(context.Background(), nil, Options{Query: queries[i%len(queries)], Sources: srcs}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		ix := &Index{}
		Search(context.Background(), ix, Options{Query: queries[0], Sources: srcs})
		for i := 0; b.Loop(); i++ {
			if _, err := Search(context.Background(), ix, Options{Query: queries[i%len(queries)], Sources: srcs}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
