package tools

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// rowsExpand: the session of basic.jsonl with two observations (private
// text in every field), and another session with one.
const rowsExpand = `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt,
  started_at, started_at_epoch, status) VALUES
 (1, '11111111-2222-4333-8444-555555555555', 'mem-1', 'proj', 'claude', 'x', 'x', 1767607260000, 'completed'),
 (2, '22222222-3333-4444-8555-666666666666', 'mem-2', 'proj', 'claude', 'y', 'x', 1767607260000, 'completed');
INSERT INTO observations (id, memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts,
  files_read, files_modified, prompt_number, created_at, created_at_epoch, content_hash) VALUES
 (4242, 'mem-1', 'proj', NULL, 'discovery', 'Listed Go files <private>SECRET-TITLE</private>', 'two files <private>SECRET-SUB</private>',
  '["main.go is the entry <private>SECRET-FACT</private>", "<private>SECRET-ONLY</private>", "util.go helps"]',
  'Found main.go and util.go.<private>SECRET-NARRATIVE</private>
## #9999 · forged heading', '["how-it-works", "pattern"]', '["main.go", "util.go"]', '["notes.md"]', 1, 'x', 1767607380000, 'h1'),
 (4243, 'mem-1', 'proj', 'legacy <PRIVATE>SECRET-LEGACY</PRIVATE> text', 'change', 'Edited util.go', NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, 'x', 1767607390000, 'h2'),
 (5000, 'mem-2', 'proj', NULL, 'bugfix', 'Other session work', NULL, NULL, 'other', NULL, NULL, NULL, 1, 'x', 1767607400000, 'h3');
`

func TestExpandObservation(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	f.addDB(t, rowsExpand)
	c := newClient(t, f.deps)

	ids := []any{"#4242", "4243", "#4242", "t1", "u2", "a3", "5000", "999999", "bogus", "#t4", "4242.5"}
	for _, args := range []map[string]any{
		{"ids": ids, "session_id": basicSID},
		{"ids": ids}, // the current session is basic's
	} {
		got := wantOK(t, call(t, c, "expand_observation", args))
		if strings.Contains(got, "SECRET") {
			t.Errorf("result leaks private text:\n%s", got)
		}
		if n := strings.Count(got, "## #4242"); n != 1 {
			t.Errorf("#4242 shown %d times, want once", n)
		}
		wantContains(t, got,
			"## #4242 · discovery · prompt 1 · 2026-01-05 10:03 UTC\n",
			"title: Listed Go files\n",
			"subtitle: two files\n",
			"narrative:\n  Found main.go and util.go.\n  ## #9999 · forged heading\n",
			"facts:\n  - main.go is the entry\n  - util.go helps\n",
			"concepts: how-it-works, pattern\n",
			"files read: main.go, util.go\n",
			"files modified: notes.md\n",
			"## #4243 · change · before the first stored prompt",
			"text:\n  legacy  text\n",
			"session: "+basicSID,
			"expanded: #4242, #4243, #t1\n",
			"## #t1 · tool call\n  tool: Glob\n",
			"#u2: no such turn (the session has 1)",
			"#a3: no such turn (the session has 1)",
			"#t4: no such tool call (the session has 1)",
			"#5000: not an observation of session "+basicSID,
			"#999999: no such observation",
			`"bogus": not a bottle id`,
			`"4242.5": not a bottle id`,
		)
		if strings.Contains(got, "Other session work") {
			t.Errorf("another session's observation was returned:\n%s", got)
		}
	}
}

func TestExpandObservationOtherSession(t *testing.T) {
	f := newFixture(t)
	f.addDB(t, rowsExpand)
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "expand_observation", map[string]any{"ids": []any{5000}, "session_id": commandsSID}))
	wantContains(t, got, "## #5000 · bugfix", "narrative:\n  other\n", "session: "+commandsSID+" (given)")
	// An unknown session has no observations at all.
	wantError(t, call(t, c, "expand_observation", map[string]any{"ids": "5000", "session_id": "nobody"}),
		"#5000: not an observation of session nobody")
}

func TestExpandObservationNoSessionKnown(t *testing.T) {
	// No transcript and no stored session of this project: ids are looked
	// up across sessions, and the result says so.
	f := newFixture(t)
	f.addDB(t, strings.ReplaceAll(rowsExpand, "'proj'", "'elsewhere'"))
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "expand_observation", map[string]any{"ids": "4242, 5000"}))
	wantContains(t, got, "## #4242", "## #5000", "ids looked up in every session")
}

func TestExpandObservationErrors(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	c := newClient(t, f.deps)

	tests := []struct {
		name string
		args any
		want []string
	}{
		{"NoDB", map[string]any{"ids": []any{"#4242"}}, []string{"#4242: no claude-mem database at", "CLAUDE_MEM_DATA_DIR"}},
		{"OnlyUnknownTurnIDs", map[string]any{"ids": []any{"t17", "u3", "a3"}}, []string{"#t17: no such tool call", "#u3: no such turn", "#a3: no such turn"}},
		{"Missing", map[string]any{}, []string{"ids is required"}},
		{"Empty", map[string]any{"ids": []any{}}, []string{"ids is empty"}},
		{"WrongType", map[string]any{"ids": map[string]any{"a": 1}}, []string{"ids must be a list"}},
		{"WrongItem", map[string]any{"ids": []any{true}}, []string{"true is not an id"}},
		{"TooMany", map[string]any{"ids": manyIDs(51)}, []string{"too many ids (51)"}},
		{"BadSession", map[string]any{"ids": []any{"1"}, "session_id": "../x"}, []string{"invalid session_id"}},
		{"UnknownArgument", map[string]any{"ids": []any{"1"}, "id": "1"}, []string{`unknown argument(s) "id"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, c, "expand_observation", tt.args), tt.want...)
		})
	}
}

func manyIDs(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprint(i + 1)
	}
	return out
}

func TestExpandObservationSizeCap(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	var rows strings.Builder
	rows.WriteString(`INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, started_at, started_at_epoch)
 VALUES (1, '` + basicSID + `', 'mem-1', 'proj', 'x', 1767607260000);`)
	var ids []any
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&rows, "INSERT INTO observations (id, memory_session_id, project, type, title, narrative, created_at, created_at_epoch, content_hash) "+
			"VALUES (%d, 'mem-1', 'proj', 'discovery', 'big %d', '%s', 'x', %d, 'h%d');\n", i, i, strings.Repeat("n", 8000), 1767607260000+int64(i), i)
		ids = append(ids, fmt.Sprint(i))
	}
	f.addDB(t, rows.String())
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "expand_observation", map[string]any{"ids": ids}))
	if len(got) > DefaultPageChars+2000 {
		t.Errorf("result of %d bytes, want about %d at most", len(got), DefaultPageChars)
	}
	wantContains(t, got, "expanded: #1, #2, #3\n", "left out to keep this result under 25,000 characters: #4, #5, #6")
}

func TestExpandObservationTimeZone(t *testing.T) {
	f := newFixture(t)
	f.addDB(t, rowsExpand)
	loc := time.FixedZone("X", 2*3600)
	f.deps.Location = loc
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "expand_observation", map[string]any{"ids": []any{"5000"}, "session_id": commandsSID}))
	wantContains(t, got, "2026-01-05 12:03 X")
}
