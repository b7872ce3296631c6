package search

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchFindsAssignment: a teammate session's task assignments are
// its prompts: an assignment's words are found as kind prompt, expandable
// by the turn's id and labelled with the sender; private text in one is
// not found.
func TestSearchFindsAssignment(t *testing.T) {
	src := Source{ID: "teammate", Transcript: filepath.Join("..", "render", "testdata", "teams-teammate.jsonl")}
	for _, ix := range []*Index{nil, {}} {
		search := func(q string, kinds []Kind) *Result {
			t.Helper()
			pq, err := Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Search(context.Background(), ix, Options{Query: pq, Sources: []Source{src}, Kinds: kinds, Limit: MaxLimit})
			if err != nil || len(r.Notes) > 0 {
				t.Fatalf("search %q: %v %v", q, err, r.Notes)
			}
			return r
		}
		r := search(`"Compare the fast scanner"`, []Kind{KindPrompt})
		if r.Total != 1 {
			t.Fatalf("assignment words: %d hits, want 1: %+v", r.Total, r.Hits)
		}
		if h := r.Hits[0]; h.ID != "u2" || h.Kind != KindPrompt || h.Label != "Teammate team-lead" {
			t.Errorf("hit = %s %v %q, want u2 prompt \"Teammate team-lead\"", h.ID, h.Kind, h.Label)
		}
		// The first entry's second message (the first assignment) is turn 1's.
		r = search(`"torn final line"`, []Kind{KindPrompt})
		if r.Total != 1 || r.Hits[0].ID != "u1" {
			t.Errorf("first assignment: %+v, want one hit u1", r.Hits)
		}
		if r := search("hunter2", nil); r.Total > 0 {
			t.Errorf("private text found: %+v", r.Hits)
		}
		for _, h := range search("team-lead", nil).Hits {
			if strings.Contains(h.Snippet, "teammate-message") {
				t.Errorf("snippet shows the wrapper: %s", h.Snippet)
			}
		}
	}
}
