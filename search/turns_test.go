package search

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"bottle/internal/measure/corpustest"
	"bottle/render"
)

// TestRecordIDsExpand: every turn record's id (uN, aN) expands, through
// render.Expand, to a text that contains the record's text: search and the
// bottle number turns by one rule.
func TestRecordIDsExpand(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "render", "testdata", "*.jsonl"))
	if dir, ok := corpustest.Find(t); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "transcripts", "*", "*.jsonl"))
		files = append(files, more...)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, path := range files {
		checked, err := checkRecordIDs(path)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
		} else if checked == 0 && !strings.Contains(path, "empty") {
			t.Logf("%s: no turn records", filepath.Base(path))
		}
	}
}

// TestRecordIDsExpandCatches: the check fails when a record names the
// wrong turn.
func TestRecordIDsExpandCatches(t *testing.T) {
	recs := []Record{{ID: "u1", Text: "second prompt"}}
	if err := matchExpansions(recs, map[string]string{"u1": "first prompt", "u2": "second prompt"}); err == nil {
		t.Error("a record of turn 2 named u1 passed")
	}
	if err := matchExpansions(recs, map[string]string{"u1": "the second prompt, whole"}); err != nil {
		t.Errorf("a record its turn contains failed: %v", err)
	}
}

// checkRecordIDs reads path's records and expands their turn ids; it
// returns how many records it checked.
func checkRecordIDs(path string) (int, error) {
	ctx := context.Background()
	var recs []Record
	if _, err := transcriptRecords(ctx, Source{}.reader(), path, "s", nil, func(r Record) {
		if r.Kind == KindPrompt || r.Kind == KindAssistant {
			recs = append(recs, r)
		}
	}); err != nil {
		return 0, err
	}
	var ids []string
	for _, r := range recs {
		if !slices.Contains(ids, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	exp, err := render.Expand(ctx, render.ExpandOptions{TranscriptPath: path}, ids)
	if err != nil {
		return 0, err
	}
	texts := map[string]string{}
	for _, e := range exp {
		if e.Found {
			texts[e.ID] = e.Text
		}
	}
	return len(recs), matchExpansions(recs, texts)
}

// matchExpansions reports the first record whose id's expansion (texts)
// does not contain its text.
func matchExpansions(recs []Record, texts map[string]string) error {
	for _, r := range recs {
		text, ok := texts[r.ID]
		if !ok {
			return &idError{r, "does not expand"}
		}
		if !strings.Contains(text, r.Text) {
			return &idError{r, "expands to a text without it: " + abbrev(text)}
		}
	}
	return nil
}

type idError struct {
	r   Record
	why string
}

func (e *idError) Error() string {
	return e.r.ID + " (" + string(e.r.Kind) + " " + e.r.Label + ") " + abbrev(e.r.Text) + " " + e.why
}

func abbrev(s string) string {
	if r := []rune(s); len(r) > 120 {
		return strings.ReplaceAll(string(r[:120]), "\n", "⏎") + "…"
	}
	return strings.ReplaceAll(s, "\n", "⏎")
}
