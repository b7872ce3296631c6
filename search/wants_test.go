package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"bottle/internal/racemode"
)

// TestStoreWants: which searches go through the store — not a scope that
// holds a transcript too large to read into it, nor one small enough for
// the search's in-memory index when the store says so (MemoryBytes).
func TestStoreWants(t *testing.T) {
	at := time.Unix(1, 0)
	src := func(n int64) Source { return Source{ID: "s", Transcript: "/t.jsonl", Size: n, Modified: at} }
	ix := &Index{}
	tests := []struct {
		name    string
		ix      *Index
		memory  int64
		warm    bool // ix has read the scope
		sources []Source
		want    bool
	}{
		{"no index, small", nil, 64 << 20, false, []Source{src(1 << 20)}, true},
		{"index, no memory bound", ix, 0, true, []Source{src(1 << 20)}, true},
		{"index, small scope not read yet", ix, 64 << 20, false, []Source{src(30 << 20), src(30 << 20)}, true},
		{"index, small scope read", ix, 64 << 20, true, []Source{src(30 << 20), src(30 << 20)}, false},
		{"index, scope over the bound", ix, 64 << 20, true, []Source{src(30 << 20), src(30 << 20), src(8 << 20)}, true},
		{"a transcript too large to keep", nil, 0, false, []Source{src(1 << 20), src(maxCachedFile + 1)}, false},
		{"claude-mem only, read", ix, 64 << 20, true, []Source{{ID: "s"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix.warmed = map[string]bool{scopeKey(tt.sources): tt.warm}
			s := &Store{MemoryBytes: tt.memory}
			if got := s.wants(tt.ix, tt.sources); got != tt.want {
				t.Errorf("wants = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStoreThenMemory: with MemoryBytes, a small scope's first search is
// the store's (it fills the store), the index reads the scope meanwhile,
// and the searches after that come from memory: the same answers
// throughout.
func TestStoreThenMemory(t *testing.T) {
	srcs := genSources(t, t.TempDir(), 3, 256<<10)
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	st.MemoryBytes = 64 << 20
	ix := &Index{}
	q, err := Parse("test")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Sources: srcs, Query: q, Limit: MaxLimit}
	want, err := Search(context.Background(), nil, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Store = st
	first, err := Search(context.Background(), ix, o)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "first search", first, want)
	if recs, _ := storeRows(t, st); recs == 0 {
		t.Fatal("the first search did not go through the store")
	}
	deadline := time.Now().Add(30 * time.Second)
	for !ix.isWarm(srcs) {
		if time.Now().After(deadline) {
			t.Fatal("the index did not read the scope after the store's search")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st.wants(ix, srcs) {
		t.Fatal("the store still wants a scope the index has read")
	}
	again, err := Search(context.Background(), ix, o)
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, "search from memory", again, want)
}

// TestScanOverflow: a scan that finds more hits than it keeps reads its
// sources again for the page alone, and answers exactly as one that keeps
// them all: the same total, page, order, scores and snippets, at every
// page and filter, with and without the in-memory index, and streamed.
func TestScanOverflow(t *testing.T) {
	srcs := genSources(t, t.TempDir(), 3, 160<<10)
	recs := allRecords(t, srcs, nil)
	paths := toolPaths(recs)
	n, least := 60, 10
	if racemode.Enabled {
		n, least = 20, 3 // .ci/run runs all 60 without the race detector
	}
	queries := genQueries(recs, n, 5, "the", "go", "checkpoint", "observation index", "token -checkpoint", `"if err"`)
	r := rand.New(rand.NewPCG(9, 9))
	defer func(n, l int) { maxHits, maxLogged = n, l }(maxHits, maxLogged)
	logs := []int{maxLogged, 5}
	overflowed := 0
	for _, qs := range queries {
		q, err := Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		kinds, file, limit, offset := queryOptions(r, paths)
		o := Options{Sources: srcs, Query: q, Kinds: kinds, File: file, Limit: limit, Offset: offset}
		maxHits = 1 << 30
		want, err := Search(context.Background(), nil, o)
		if err != nil {
			t.Fatal(err)
		}
		maxHits = 3
		if want.Total > maxHits {
			overflowed++
		}
		// The second reading builds only the hits the first one's log
		// ranks best, or (a log too long to keep) every record again.
		for _, logged := range logs {
			maxLogged = logged
			for _, ix := range []*Index{nil, {}} {
				got, err := Search(context.Background(), ix, o)
				if err != nil {
					t.Fatal(err)
				}
				sameResult(t, fmt.Sprintf("%q kinds %v file %q limit %d offset %d (index %v, log of %d)", qs, kinds, file, limit, offset, ix != nil, logged), got, want)
			}
			// Streamed, as a transcript too large to keep: each record is
			// built in the same storage (scratch) and none is kept.
			so := o
			so.streamAbove = 1
			got, err := Search(context.Background(), nil, so)
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, fmt.Sprintf("%q kinds %v file %q limit %d offset %d (streamed, log of %d)", qs, kinds, file, limit, offset, logged), got, want)
		}
	}
	t.Logf("%d of %d queries found more hits than a scan keeps", overflowed, len(queries))
	if overflowed < least {
		t.Fatalf("only %d of %d queries found more hits than a scan keeps", overflowed, len(queries))
	}
}
