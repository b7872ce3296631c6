package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"bottle/session"
)

// A source of another host is read by its own reader: its records are
// found the same way without the index, with the in-memory index and
// with the store.
func TestSourceReader(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout.jsonl")
	if err := os.WriteFile(path, []byte("not a Claude Code transcript\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	read := func(ctx context.Context, p string, o *session.ReadOptions) (*session.Transcript, error) {
		if p != path {
			t.Errorf("read %s, want %s", p, path)
		}
		return &session.Transcript{Prompts: 1, Events: []session.Event{
			{Kind: session.EvPrompt, Time: at, Text: "why does the wombat dig?"},
			{Kind: session.EvAssistant, Time: at, Blocks: []string{"The wombat digs burrows."}},
		}}, nil
	}
	src := Source{ID: "other-host", Transcript: path, Read: read}
	tests := []struct {
		name  string
		ix    *Index
		store *Store
	}{
		{"scan", nil, nil},
		{"index", &Index{}, nil},
		{"store", nil, NewStore(filepath.Join(dir, "index.db"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := Parse("wombat")
			if err != nil {
				t.Fatal(err)
			}
			res, err := Search(context.Background(), tt.ix, Options{Query: q, Sources: []Source{src}, Store: tt.store})
			if err != nil {
				t.Fatal(err)
			}
			defer tt.store.Close()
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.ID+" "+string(h.Kind))
			}
			want := []string{"a1 assistant", "u1 prompt"}
			if len(got) != 2 || !(got[0] == want[0] && got[1] == want[1] || got[0] == want[1] && got[1] == want[0]) {
				t.Errorf("hits %v, want %v; notes %v", got, want, res.Notes)
			}
		})
	}
}
