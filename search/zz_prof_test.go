package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	st := NewStore(os.Getenv("ZZ_INDEX"))
	defer st.Close()
	t0 := time.Now()
	q, _ := Parse("quokka")
	st.search(context.Background(), Options{Query: q, Sources: srcs})
	t.Logf("update %v", time.Since(t0))
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
			ids, err := gramCandidates(context.Background(), tx, w, 0)
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

func TestZZBuild(t *testing.T) {
	n := os.Getenv("ZZ_BUILD")
	if n == "" {
		t.Skip()
	}
	files, _ := filepath.Glob("/work/scale-src/*.jsonl")
	var k int
	fmt.Sscan(n, &k)
	var srcs []Source
	var size int64
	for _, f := range files[:k] {
		fi, _ := os.Stat(f)
		size += fi.Size()
		srcs = append(srcs, Source{ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Transcript: f})
	}
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	q, _ := Parse("quokka")
	t0 := time.Now()
	if _, err := st.search(context.Background(), Options{Query: q, Sources: srcs}); err != nil {
		t.Fatal(err)
	}
	d := time.Since(t0)
	fi, _ := os.Stat(st.Path())
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	t.Logf("build %d MB in %v: %.0f MB/s, cpu %v (%.0f MB/cpu-s), maxrss %d MB, index %d MB", size>>20, d, float64(size)/1e6/d.Seconds(), cpu, float64(size)/1e6/cpu.Seconds(), ru.Maxrss>>10, fi.Size()>>20)
}
