package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"bottle/pointer"
	"bottle/search"
)

// TestSearchNotFedItsOwnOutput drives a session through five compactions,
// after each of which the model reads its bottle (a Read of the file and
// read_bottle) and calls bottle's other tools, as the pointer tells it to:
// a search for a word of the first prompt finds that prompt and the tool
// calls of other files, never a copy of the bottle. The inputs of bottle's
// calls stay searchable. The same holds for the persistent index, which
// must read the transcript with the same rules.
func TestSearchNotFedItsOwnOutput(t *testing.T) {
	for _, via := range []string{"Scan", "Store"} {
		t.Run(via, func(t *testing.T) { testSearchNotFedItsOwnOutput(t, via == "Store") })
	}
}

func testSearchNotFedItsOwnOutput(t *testing.T, store bool) {
	const sid = "dddddddd-4444-4444-8444-444444444444"
	f := newFixture(t)
	f.deps.Index = &search.Index{}
	if store {
		f.deps.Store = search.NewStore(filepath.Join(t.TempDir(), "index.db"))
		t.Cleanup(func() { f.deps.Store.Close() })
	}
	c := newClient(t, f.deps)
	j := &jl{sid: sid, cwd: f.cwd, t: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)}
	j.prompt("Count the QUOKKA population in notes.txt")
	j.assistant(text1("Counting them now."))
	notes := filepath.Join(f.cwd, "notes.txt")
	j.tool("toolu_n", "Read", map[string]any{"file_path": notes}, "QUOKKA: 12 on the island", "")
	write := func() { f.writeTranscript(t, sid, j.bytes(), fixedNow) }
	write()

	bottle := f.bottlePath(sid)
	for i := range 5 {
		n := func(s string) string { return s + "_" + string(rune('a'+i)) }
		j.add("system", map[string]any{"subtype": "compact_boundary", "content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": "auto"}}, nil)
		j.add("user", map[string]any{"isCompactSummary": true, "isVisibleInTranscriptOnly": true}, map[string]any{"role": "user", "content": "summary"})
		write()
		rendered := wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": sid}))
		data, err := os.ReadFile(bottle)
		if err != nil || !strings.Contains(string(data), "QUOKKA") {
			t.Fatalf("bottle %s: %v\n%s", bottle, err, data)
		}
		page := wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": sid}))
		found := wantOK(t, call(t, c, "search_history", map[string]any{"query": "QUOKKA", "session_id": sid}))
		expanded := wantOK(t, call(t, c, "expand_observation", map[string]any{"ids": []string{"u1", "t1"}, "session_id": sid}))
		listed := wantOK(t, call(t, c, "list_sessions", map[string]any{}))
		for _, s := range []string{page, found, expanded, listed} {
			if !strings.Contains(s, "QUOKKA") {
				t.Fatalf("a tool result lacks the word, so the test proves nothing:\n%s", s)
			}
		}
		// Both install's names, in turn.
		names := pointer.SettingsNames
		if i%2 == 1 {
			names = pointer.PluginNames
		}
		j.tool(n("toolu_r"), "Read", map[string]any{"file_path": bottle}, string(data), "")
		j.tool(n("toolu_rb"), names.Tool("read_bottle"), map[string]any{"session_id": sid, "offset": 0}, page, "")
		j.tool(n("toolu_sh"), names.Tool("search_history"), map[string]any{"query": n("MARSUPIAL")}, found, "")
		j.tool(n("toolu_ex"), names.Tool("expand_observation"), map[string]any{"ids": []string{"u1"}, "session_id": sid}, expanded, "")
		j.tool(n("toolu_ls"), names.Tool("list_sessions"), map[string]any{}, listed, "")
		j.tool(n("toolu_rr"), names.Tool("render_bottle"), map[string]any{"session_id": sid}, rendered, "")
		j.prompt(n("next step"))
		j.assistant(text1("Done."))
		write()
	}

	res := wantOK(t, call(t, c, "search_history", map[string]any{"query": "QUOKKA", "session_id": sid, "limit": 200}))
	if got, want := hits(res), []string{"u1", "t1"}; !slices.Equal(sortedCopy(got), sortedCopy(want)) {
		t.Errorf("hits for a word of the first prompt = %v, want %v (the prompt and the Read of notes.txt):\n%s", got, want, res)
	}
	// The same transcript searched with no rules: the copies are there, so
	// the test above can fail.
	all, err := search.Search(context.Background(), nil, search.Options{Query: mustParse(t, "QUOKKA"),
		Sources: []search.Source{{ID: sid, Transcript: filepath.Join(f.projDir, sid+".jsonl")}}, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	// Five calls a round hold the word (render_bottle's report does not).
	if all.Total != 2+5*5 {
		t.Errorf("without the rules %d hits, want every copy (%d)", all.Total, 2+5*5)
	}
	// Inputs are still records: the search_history calls' queries.
	res = wantOK(t, call(t, c, "search_history", map[string]any{"query": "MARSUPIAL_c", "session_id": sid}))
	if got := hits(res); len(got) != 1 {
		t.Errorf("hits for a search_history input = %v, want the one call:\n%s", got, res)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func mustParse(t *testing.T, q string) search.Query {
	t.Helper()
	p, err := search.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSearchHistoryUnknownSession: a session with no transcript and no
// records in claude-mem is an isError result that says what to do, like
// read_bottle's, with and without a database; a session claude-mem alone
// holds is searched.
func TestSearchHistoryUnknownSession(t *testing.T) {
	const unknown = "eeeeeeee-5555-4555-8555-555555555555"
	f := searchFixture(t)
	c := newClient(t, f.deps)
	args := map[string]any{"query": "zebra", "session_id": unknown}
	msg := wantError(t, call(t, c, "search_history", args), "Nothing to search for session "+unknown, "Check the session id", sidA)
	rb := wantError(t, call(t, c, "read_bottle", map[string]any{"session_id": unknown}), "Nothing to render for session "+unknown)
	if strings.Contains(msg, "<private>") || strings.Contains(rb, "<private>") {
		t.Errorf("an error shows private text:\n%s\n%s", msg, rb)
	}
	if got := hits(wantOK(t, call(t, c, "search_history", map[string]any{"query": "zebra", "session_id": sidB}))); len(got) == 0 {
		t.Error("a claude-mem-only session: no hits")
	}
	if err := os.Remove(f.deps.Env.DBPath()); err != nil {
		t.Fatal(err)
	}
	wantError(t, call(t, c, "search_history", args), "Nothing to search for session "+unknown)
	wantOK(t, call(t, c, "search_history", map[string]any{"query": "widget", "session_id": sidA}))
}
