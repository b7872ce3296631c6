package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkStoreBuild builds a store from the transcripts in
// $BENCH_STORE_SRC (scripts/bench.sh scale keeps its generated sessions in
// $BENCH_SCALE_SRC) and reports MB/s of transcript and the store's size.
func BenchmarkStoreBuild(b *testing.B) {
	srcs, raw := benchSources(b)
	q, _ := Parse("quokka")
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "index.db")
		st := NewStore(path)
		b.StartTimer()
		if _, err := st.search(context.Background(), Options{Query: q, Sources: srcs}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		var size int64
		for _, s := range []string{"", "-wal"} {
			if fi, err := os.Stat(path + s); err == nil {
				size += fi.Size()
			}
		}
		b.ReportMetric(float64(size)/float64(raw)*100, "%source")
		if k := os.Getenv("BENCH_STORE_KEEP"); k != "" {
			os.Rename(path, k)
		}
		b.StartTimer()
	}
	b.SetBytes(raw)
}

// BenchmarkStoreSearch searches a store built from $BENCH_STORE_SRC's
// transcripts: a rare word, a common one, a phrase and two letters.
func BenchmarkStoreSearch(b *testing.B) {
	srcs, _ := benchSources(b)
	st := NewStore(filepath.Join(b.TempDir(), "index.db"))
	defer st.Close()
	for _, w := range []string{"quokka", "checkpoint", `"if err != nil"`, "go"} {
		q, _ := Parse(w)
		if _, err := st.search(context.Background(), Options{Query: q, Sources: srcs}); err != nil {
			b.Fatal(err)
		}
		b.Run(w, func(b *testing.B) {
			for b.Loop() {
				if _, err := st.search(context.Background(), Options{Query: q, Sources: srcs}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchSources is the transcripts in $BENCH_STORE_SRC and their bytes.
func benchSources(b *testing.B) ([]Source, int64) {
	dir := os.Getenv("BENCH_STORE_SRC")
	if dir == "" {
		b.Skip("BENCH_STORE_SRC names no folder of transcripts")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var srcs []Source
	var raw int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		raw += fi.Size()
		srcs = append(srcs, Source{ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Transcript: f})
	}
	return srcs, raw
}
