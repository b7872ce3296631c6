package search

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"bottle/claudemem"
	"bottle/internal/measure/corpustest"
)

// TestCorpusPrivate: the corpus session whose prompts hold <private>
// secrets (in the transcript and raw in claude-mem's sdk_sessions) finds
// none of the secrets' words, on any kind, with or without the index, and
// still finds the words around them.
func TestCorpusPrivate(t *testing.T) {
	dir := filepath.Join(corpustest.Dir(t), "claude-mem")
	const id = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
	dbPath := corpustest.CopyDB(t, "private-and-truncated.db")
	db, err := claudemem.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src := Source{ID: id, Transcript: filepath.Join(dir, "private-and-truncated", id+".jsonl")}
	for _, ix := range []*Index{nil, {}} {
		search := func(q string) *Result {
			t.Helper()
			pq, err := Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Search(context.Background(), ix, Options{Query: pq, Sources: []Source{src}, DB: db, DBPath: dbPath, Limit: MaxLimit})
			if err != nil || len(r.Notes) > 0 {
				t.Fatalf("search %q: %v %v", q, err, r.Notes)
			}
			return r
		}
		for _, q := range []string{"SECRET-d6e0bada", "correct-horse-battery-staple", "ACME-4411", "staging database password", `"do not store"`} {
			if r := search(q); r.Total > 0 {
				t.Errorf("%q found %d hits: %+v", q, r.Total, r.Hits)
			}
		}
		// The prompt around the second secret is found.
		if r := search("thank"); r.Total == 0 {
			t.Error("no hits for the words after a private block")
		}
		r := search("the")
		if r.Total == 0 {
			t.Fatal("no hits for \"the\": the session was not searched")
		}
		for _, h := range r.Hits {
			if strings.Contains(h.Snippet, "SECRET") || strings.Contains(h.Snippet, "ACME-4411") {
				t.Errorf("snippet shows private text: %s", h.Snippet)
			}
		}
	}
}
