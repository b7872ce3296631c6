package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestZZProf(t *testing.T) {
	home := os.Getenv("ZZ_HOME")
	if home == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(filepath.Join(home, ".claude/projects/*/*.jsonl"))
	var srcs []Source
	for _, f := range files {
		srcs = append(srcs, Source{ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Transcript: f})
	}
	st := NewStore(filepath.Join(home, "mem/search/index.db"))
	defer st.Close()
	for _, w := range strings.Split(os.Getenv("ZZ_Q"), ",") {
		q, _ := Parse(w)
		for range 3 {
			t0 := time.Now()
			res, err := st.search(context.Background(), Options{Query: q, Sources: srcs})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v total %d", w, time.Since(t0), res.Total)
		}
	}
}

func TestZZGram(t *testing.T) {
	home := os.Getenv("ZZ_HOME")
	if home == "" {
		t.Skip()
	}
	st := NewStore(filepath.Join(home, "mem/search/index.db"))
	defer st.Close()
	r, _, err := st.dbs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range strings.Split(os.Getenv("ZZ_Q"), ",") {
		for range 3 {
			tx, _ := r.Begin()
			t0 := time.Now()
			ids, err := gramCandidates(context.Background(), tx, w)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v cands %d", w, time.Since(t0), len(ids))
			tx.Rollback()
		}
	}
}

func TestZZSizes(t *testing.T) {
	home := os.Getenv("ZZ_HOME")
	if home == "" {
		t.Skip()
	}
	st := NewStore(filepath.Join(home, "mem/search/index.db"))
	defer st.Close()
	r, _, err := st.dbs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT count(*), sum(length(voc)), sum(length(post)) FROM word", "SELECT count(*), sum(length(lists)), 0 FROM gram", "SELECT count(*), sum(length(text)), sum(len) FROM rec", "SELECT count(*), sum(length(rids)), sum(bytes) FROM seg"} {
		var a, b, c int64
		if err := r.QueryRow(q).Scan(&a, &b, &c); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d %d MB %d MB", q, a, b>>20, c>>20)
	}
	var voc, post []byte
	r.QueryRow("SELECT voc, post FROM word LIMIT 1").Scan(&voc, &post)
	v, _ := unpackBlob(voc, nil)
	p, _ := unpackBlob(post, nil)
	t.Logf("one seg: voc %d -> %d, post %d -> %d, tokens %d", len(voc), len(v), len(post), len(p), strings.Count(string(v), "\n"))
}
