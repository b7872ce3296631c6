package search

import (
	"context"
	"fmt"
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

// BenchmarkStoreAppend: one turn appended to one of $BENCH_STORE_SRC's
// transcripts (copied), then a search of a rare word: the incremental
// update.
func BenchmarkStoreAppend(b *testing.B) {
	srcs, _ := benchSources(b)
	dir := b.TempDir()
	for i, s := range srcs {
		data, err := os.ReadFile(s.Transcript)
		if err != nil {
			b.Fatal(err)
		}
		srcs[i].Transcript = filepath.Join(dir, filepath.Base(s.Transcript))
		if err := os.WriteFile(srcs[i].Transcript, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	st := NewStore(filepath.Join(b.TempDir(), "index.db"))
	defer st.Close()
	q, _ := Parse("quokka")
	if _, err := st.search(context.Background(), Options{Query: q, Sources: srcs}); err != nil {
		b.Fatal(err)
	}
	line := `{"type":"user","message":{"role":"user","content":"one more turn: where is the flaky test?"},"uuid":"%s","timestamp":"2026-02-01T10:00:00.000Z","sessionId":"%s"}` + "\n"
	for i := 0; b.Loop(); i++ {
		f, err := os.OpenFile(srcs[0].Transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, line, fmt.Sprintf("0000aaaa-0000-4000-8000-%012d", i), srcs[0].ID)
		f.Close()
		if _, err := st.search(context.Background(), Options{Query: q, Sources: srcs}); err != nil {
			b.Fatal(err)
		}
	}
}
