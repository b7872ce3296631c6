package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"bottle/claudemem/memtest"
	"bottle/locate"
	"bottle/search"
)

// Sessions of the search fixture.
const (
	sidA = "aaaaaaaa-1111-4111-8111-111111111111" // transcript and claude-mem
	sidB = "bbbbbbbb-2222-4222-8222-222222222222" // claude-mem only
	sidC = "cccccccc-3333-4333-8333-333333333333" // another project's transcript
)

// jl builds transcript lines.
type jl struct {
	sid, cwd string
	t        time.Time
	n        int
	lines    []string
}

func (j *jl) add(typ string, extra map[string]any, msg any) {
	j.n++
	j.t = j.t.Add(time.Minute)
	m := map[string]any{"type": typ, "uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", j.n), "sessionId": j.sid,
		"cwd": j.cwd, "timestamp": j.t.UTC().Format(time.RFC3339Nano), "isSidechain": false, "message": msg}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	j.lines = append(j.lines, string(b))
}

func (j *jl) prompt(text string) {
	j.add("user", nil, map[string]any{"role": "user", "content": text})
}

func (j *jl) assistant(blocks ...map[string]any) {
	j.add("assistant", nil, map[string]any{"role": "assistant", "id": fmt.Sprintf("msg_%d", j.n), "model": "m", "type": "message",
		"content": blocks})
}

func (j *jl) tool(id, name string, input map[string]any, result string, midTurn string) {
	j.assistant(map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
	content := []map[string]any{{"type": "tool_result", "tool_use_id": id, "content": result}}
	if midTurn != "" {
		content = append(content, map[string]any{"type": "text", "text": midTurn})
	}
	j.add("user", nil, map[string]any{"role": "user", "content": content})
}

func (j *jl) bytes() []byte { return []byte(strings.Join(j.lines, "\n") + "\n") }

func text1(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// rowsSearch: claude-mem's records of sessions A and B, private text in
// every searchable field.
const rowsSearch = `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt,
  started_at, started_at_epoch, status) VALUES
 (1, 'aaaaaaaa-1111-4111-8111-111111111111', 'mem-a', 'proj', 'claude', 'x', 'x', 1767607260000, 'completed'),
 (2, 'bbbbbbbb-2222-4222-8222-222222222222', 'mem-b', 'proj', 'claude', 'zebra <private>PRIVSDK</private>', 'x', 1767600000000, 'completed');
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch) VALUES
 (2, 'bbbbbbbb-2222-4222-8222-222222222222', 1, 'stored prompt about the zebra crossing <private>PRIVSTORED</private>', 'x', 1767600060000);
INSERT INTO observations (id, memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts,
  files_read, files_modified, prompt_number, created_at, created_at_epoch, content_hash) VALUES
 (7001, 'mem-a', 'proj', NULL, 'bugfix', 'Widget test fixed <private>PRIVOBS1</private>', 'flaky <private>PRIVOBS2',
  '["widget fact <private>PRIVOBS3</private>"]', 'The widget narrative.', '["testing"]', '[]', '[]', 1, 'x', 1767607500000, 'h1'),
 (7002, 'mem-b', 'proj', NULL, 'discovery', 'Zebra stripes counted', NULL, NULL, 'zebra narrative', NULL, NULL, NULL, 1, 'x', 1767600100000, 'h2');
INSERT INTO session_summaries (id, memory_session_id, project, request, investigated, learned, completed, next_steps,
  notes, prompt_number, created_at, created_at_epoch) VALUES
 (12, 'mem-a', 'proj', 'fix the widget <private>PRIVSUM1</private>', NULL, 'widgets wobble', 'gadget done', 'ship it <PRIVATE>PRIVSUM2', NULL, 1, 'x', 1767607600000);
`

// searchFixture is a project with session A (a transcript with every kind
// of record and claude-mem's records), session B (claude-mem only) and
// session C (a transcript of another project).
func searchFixture(t testing.TB) *fixture {
	t.Helper()
	f := newFixture(t)
	a := &jl{sid: sidA, cwd: f.cwd, t: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}
	a.prompt("Please fix the flaky widget test. <private>PRIVWORD1 secret</private> thanks")
	a.assistant(map[string]any{"type": "thinking", "thinking": "THINKWORD widget", "signature": "x"})
	a.assistant(text1("I will run the widget tests now."))
	a.tool("toolu_1", "Bash", map[string]any{"command": "go test ./widget/... <private>PRIVWORD2</private>"},
		"FAIL widget_test.go:12: got 3 want 4 <private>PRIVWORD3 and everything after", "also check the gadget please <private>PRIVMID")
	a.tool("toolu_2", "Read", map[string]any{"file_path": filepath.Join(f.cwd, "widget", "widget.go")}, "package widget // regexp .*[ here", "")
	a.tool("toolu_3", "Edit", map[string]any{"file_path": "other/widget.go", "old_string": "a", "new_string": "b"}, "ok", "")
	a.add("user", map[string]any{"isMeta": true}, map[string]any{"role": "user", "content": "METAWORD injected widget"})
	a.add("user", map[string]any{"isCompactSummary": true}, map[string]any{"role": "user", "content": "COMPACTWORD summary widget"})
	a.prompt("second prompt about the gadget, quote \" and NUL \x00 here")
	a.assistant(text1("Gadget fixed. <private>PRIVWORD4"))
	f.writeTranscript(t, sidA, a.bytes(), fixedNow)

	other := filepath.Join(f.deps.Env.ProjectsDir(), "-elsewhere")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	c := &jl{sid: sidC, cwd: "/elsewhere", t: time.Date(2026, 1, 4, 10, 0, 0, 0, time.UTC)}
	c.prompt("a zebra in another project, and a widget too")
	if err := os.WriteFile(filepath.Join(other, sidC+".jsonl"), c.bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f.addDB(t, rowsSearch)
	// The server's index, with its kept listing.
	listing := locate.NewWatch(f.deps.Env)
	t.Cleanup(func() { listing.Close() })
	f.deps.Index = &search.Index{Listing: listing}
	return f
}

// TestSearchHistorySeesChanges: a server's searches of every project, from
// its index, see a turn appended to a transcript and a transcript added
// since the last search (the server keeps the scope's listing between
// searches, and the index takes its stamps).
func TestSearchHistorySeesChanges(t *testing.T) {
	f := searchFixture(t)
	f.deps.Store = search.NewStore(filepath.Join(t.TempDir(), "index.db"))
	t.Cleanup(func() { f.deps.Store.Close() })
	c := newClient(t, f.deps)
	for _, scope := range []string{"all", "project"} {
		if ids := hits(wantOK(t, call(t, c, "search_history", map[string]any{"query": "okapi", "scope": scope}))); len(ids) != 0 {
			t.Fatalf("scope %s: okapi found before it was written: %v", scope, ids)
		}
	}
	a := &jl{sid: sidA, cwd: f.cwd, t: time.Date(2026, 1, 5, 11, 0, 0, 0, time.UTC), n: 100} // uuids of its own
	a.prompt("and now the okapi")
	p := filepath.Join(f.projDir, sidA+".jsonl")
	w, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close() // open, as Claude Code keeps it
	if _, err := w.Write(a.bytes()); err != nil {
		t.Fatal(err)
	}
	const sidD = "dddddddd-2222-4222-8222-222222222222"
	b := &jl{sid: sidD, cwd: f.cwd, t: time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)}
	b.prompt("an okapi in a new session")
	f.writeTranscript(t, sidD, b.bytes(), fixedNow)
	for _, scope := range []string{"all", "project"} {
		got := hits(wantOK(t, call(t, c, "search_history", map[string]any{"query": "okapi", "scope": scope})))
		slices.Sort(got)
		if want := []string{sidA[:8] + "/u3", sidD[:8] + "/u1"}; !slices.Equal(got, want) {
			t.Errorf("scope %s: okapi hits %v, want %v", scope, got, want)
		}
	}
}

var hitLine = regexp.MustCompile(`(?m)^- \[#([a-z]?[0-9]+)\] (?:([0-9a-f-]{36}) · )?`)

// hits lists the "id" (or "session/id") of every hit line of a result.
func hits(s string) []string {
	var out []string
	for _, m := range hitLine.FindAllStringSubmatch(s, -1) {
		if m[2] != "" {
			out = append(out, m[2][:8]+"/"+m[1])
		} else {
			out = append(out, m[1])
		}
	}
	return out
}

func TestSearchHistoryParameters(t *testing.T) {
	f := searchFixture(t)
	for withIndex, c := range clientsByIndex(t, f.deps) {
		for _, tc := range []struct {
			name string
			args map[string]any
			want []string // hit ids, in rank order when ordered
			any  bool     // want in any order
		}{
			{"session default", map[string]any{"query": "widget", "session_id": sidA}, []string{"t1", "t2", "t3", "u1", "a1", "7001", "s12"}, true},
			{"current session", map[string]any{"query": "gadget"}, []string{"u1", "u2", "a2", "s12"}, true},
			{"kinds", map[string]any{"query": "widget", "kinds": []any{"tool"}}, []string{"t1", "t2", "t3"}, true},
			{"kinds string", map[string]any{"query": "widget", "kinds": "observation, summary"}, []string{"7001", "s12"}, true},
			{"phrase", map[string]any{"query": `"widget test"`}, []string{"u1", "a1", "7001"}, true},
			{"phrase with space", map[string]any{"query": `"widget test."`}, []string{"u1"}, true},
			{"exclude", map[string]any{"query": "widget -flaky -fail"}, []string{"t2", "t3", "a1", "s12"}, true},
			{"file relative", map[string]any{"query": "widget", "file": "widget/widget.go"}, []string{"t2"}, false},
			{"file base name", map[string]any{"query": "widget", "file": "widget.go"}, []string{"t2", "t3"}, true},
			{"file absolute", map[string]any{"query": "package", "file": filepath.Join(f.cwd, "widget", "widget.go")}, []string{"t2"}, false},
			{"project", map[string]any{"query": "zebra", "scope": "project"}, []string{"bbbbbbbb/u1", "bbbbbbbb/7002"}, true},
			{"all", map[string]any{"query": "zebra", "scope": "all"}, []string{"bbbbbbbb/u1", "bbbbbbbb/7002", "cccccccc/u1"}, true},
			{"literal metacharacters", map[string]any{"query": ".*["}, []string{"t2"}, false},
			{"quote and NUL", map[string]any{"query": "quote \" and NUL \x00 here"}, []string{"u2"}, false},
			{"limit", map[string]any{"query": "widget", "limit": 2}, nil, false},
			{"offset past", map[string]any{"query": "widget", "offset": 100}, []string{}, false},
		} {
			t.Run(fmt.Sprintf("%s/index=%v", tc.name, withIndex), func(t *testing.T) {
				got := wantOK(t, call(t, c, "search_history", tc.args))
				ids := hits(got)
				switch {
				case tc.name == "limit":
					if len(ids) != 2 || !strings.Contains(got, `"offset": 2`) {
						t.Errorf("limit 2: hits %v, footer:\n%s", ids, got)
					}
					return
				case tc.any:
					slices.Sort(ids)
					tc.want = slices.Clone(tc.want)
					slices.Sort(tc.want)
				}
				if !slices.Equal(ids, tc.want) && !(len(ids) == 0 && len(tc.want) == 0) {
					t.Errorf("hits %v, want %v:\n%s", ids, tc.want, got)
				}
				wantContains(t, got, "[search ")
			})
		}
	}
}

func TestSearchHistoryPrivate(t *testing.T) {
	f := searchFixture(t)
	c := newClient(t, f.deps)
	words := []string{"PRIVWORD1", "PRIVWORD2", "PRIVWORD3", "PRIVWORD4", "PRIVMID", "PRIVOBS1", "PRIVOBS2", "PRIVOBS3",
		"PRIVSUM1", "PRIVSUM2", "PRIVSTORED", "PRIVSDK", "THINKWORD", "METAWORD", "COMPACTWORD", "secret", "everything after"}
	for _, w := range words {
		for _, scope := range []string{"session", "project", "all"} {
			got := wantOK(t, call(t, c, "search_history", map[string]any{"query": w, "scope": scope}))
			if ids := hits(got); len(ids) > 0 {
				t.Errorf("%q (scope %s) found %v:\n%s", w, scope, ids, got)
			}
		}
	}
	// No snippet shows private text, whatever matched.
	for _, q := range []string{"widget", "gadget", "zebra", "fix", "the"} {
		got := wantOK(t, call(t, c, "search_history", map[string]any{"query": q, "scope": "all", "limit": 200}))
		for _, w := range words {
			if strings.Contains(strings.ToLower(got), strings.ToLower(w)) {
				t.Errorf("%q: the result shows %q:\n%s", q, w, got)
			}
		}
	}
}

func TestSearchHistoryBadInput(t *testing.T) {
	f := searchFixture(t)
	c := newClient(t, f.deps)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": ""}, "the query is empty"},
		{map[string]any{"query": "   "}, "the query is empty"},
		{map[string]any{}, "the query is empty"},
		{map[string]any{"query": strings.Repeat("x", 1001)}, "longer than 1000"},
		{map[string]any{"query": "-only"}, "only excludes"},
		{map[string]any{"query": "x", "limit": 0}, "limit must be between 1 and 200"},
		{map[string]any{"query": "x", "limit": 201}, "limit must be between 1 and 200"},
		{map[string]any{"query": "x", "offset": -1}, "offset counts hits from 0"},
		{map[string]any{"query": "x", "kinds": []any{"thinking"}}, `unknown kind "thinking"`},
		{map[string]any{"query": "x", "kinds": 3}, "kinds must be a list"},
		{map[string]any{"query": "x", "file": "/etc/passwd"}, "outside the project"},
		{map[string]any{"query": "x", "file": "../../etc/passwd"}, "outside the project"},
		{map[string]any{"query": "x", "scope": "galaxy"}, `unknown scope "galaxy"`},
		{map[string]any{"query": "x", "scope": "project", "session_id": sidA}, "omit session_id"},
		{map[string]any{"query": "x", "session_id": "../../etc"}, "invalid session_id"},
		{map[string]any{"query": 7}, "query must be a string"},
		{map[string]any{"query": "x", "bogus": 1}, `unknown argument(s) "bogus"`},
	} {
		wantError(t, call(t, c, "search_history", tc.args), tc.want)
	}
	// Exactly 1,000 characters is allowed.
	wantOK(t, call(t, c, "search_history", map[string]any{"query": strings.Repeat("é", 1000)}))
}

// TestSearchHistoryPaging: a query with many hits, paged with every limit
// from 1 to 9, gives every hit exactly once, in one order, newest first
// among equal scores.
func TestSearchHistoryPaging(t *testing.T) {
	f := newFixture(t)
	a := &jl{sid: sidA, cwd: f.cwd, t: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}
	a.prompt("start")
	for i := range 45 {
		// Three shapes: equal scores within each, so ties are broken by time.
		a.tool(fmt.Sprintf("toolu_%d", i), "Bash", map[string]any{"command": fmt.Sprintf("echo needle %s", strings.Repeat("x", i%3))},
			strings.Repeat("needle ", 1+i%3), "")
	}
	f.writeTranscript(t, sidA, a.bytes(), fixedNow)
	f.deps.Index = &search.Index{}
	c := newClient(t, f.deps)
	all := hits(wantOK(t, call(t, c, "search_history", map[string]any{"query": "needle", "limit": 200})))
	if len(all) != 45 {
		t.Fatalf("%d hits, want 45", len(all))
	}
	for limit := 1; limit <= 9; limit++ {
		var got []string
		for off := 0; off < 60; off += limit {
			page := hits(wantOK(t, call(t, c, "search_history", map[string]any{"query": "needle", "limit": limit, "offset": off})))
			got = append(got, page...)
		}
		if !slices.Equal(got, all) {
			t.Errorf("limit %d: pages give %v, want %v", limit, got, all)
		}
	}
	// Ranking: more occurrences in a record of about the same length rank
	// higher (t3, t6, ... hold "needle" three times), and ties come newest
	// first (t45 before t42).
	if all[0] != "t45" || all[1] != "t42" {
		t.Errorf("ranking starts %v, want t45, t42, …", all[:5])
	}
}

func TestSearchHistorySnippets(t *testing.T) {
	f := newFixture(t)
	a := &jl{sid: sidA, cwd: f.cwd, t: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}
	long := strings.Repeat("lorem ipsum dolor sit amet\n", 40)
	a.prompt(long + "the MIDDLE word " + long)
	a.prompt("MIDDLE at the start " + long)
	a.prompt(long + "ends with MIDDLE")
	a.prompt("short MIDDLE one")
	a.prompt(long + "naïve ÉCOLE unicode " + long)
	f.writeTranscript(t, sidA, a.bytes(), fixedNow)
	c := newClient(t, f.deps)
	for _, q := range []string{"middle", "école"} {
		got := wantOK(t, call(t, c, "search_history", map[string]any{"query": q}))
		for _, line := range strings.Split(got, "\n") {
			if !strings.HasPrefix(line, "- [#") {
				continue
			}
			_, snip, _ := strings.Cut(line, " — ")
			if n := utf8.RuneCountInString(snip); n > search.SnippetChars {
				t.Errorf("snippet of %d characters: %s", n, snip)
			}
			if !strings.Contains(strings.ToLower(snip), "«"+q+"»") {
				t.Errorf("snippet does not mark %q: %s", q, snip)
			}
			if strings.Contains(snip, "\n") {
				t.Errorf("snippet spans lines: %q", snip)
			}
		}
	}
	got := wantOK(t, call(t, c, "search_history", map[string]any{"query": "short middle"}))
	wantContains(t, got, "— «short» MIDDLE one\n")
}

// TestSearchHistoryConcurrent: 32 searches at once while renders of the
// same session run, and while its transcript grows: all complete, each a
// whole result.
func TestSearchHistoryConcurrent(t *testing.T) {
	f := searchFixture(t)
	c := newClient(t, f.deps)
	ctx := context.Background()
	_ = ctx
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := []string{"widget", "gadget", "zebra", "fix"}[i%4]
			scope := []string{"session", "project", "all"}[i%3]
			got := wantOK(t, call(t, c, "search_history", map[string]any{"query": q, "scope": scope, "session_id": map[bool]string{true: sidA}[scope == "session"]}))
			if !strings.HasSuffix(got, "]\n") {
				t.Errorf("torn result: %q", got)
			}
		}()
		if i%4 == 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": sidA}))
			}()
		}
	}
	wg.Wait()
}

// TestSearchHistoryChangingTranscript: a transcript appended to, replaced
// and truncated while searches run gives whole results or a clear note,
// never a crash.
func TestSearchHistoryChangingTranscript(t *testing.T) {
	f := searchFixture(t)
	c := newClient(t, f.deps)
	path := filepath.Join(f.projDir, sidA+".jsonl")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			switch i % 3 {
			case 0: // appended
				fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
				if err == nil {
					fh.Write(orig)
					fh.Close()
				}
			case 1: // replaced
				tmp := path + ".tmp"
				os.WriteFile(tmp, orig, 0o600)
				os.Rename(tmp, path)
			case 2: // truncated
				os.Truncate(path, int64(len(orig)/2))
			}
		}
	}()
	for range 60 {
		r := call(t, c, "search_history", map[string]any{"query": "widget", "session_id": sidA})
		got := text(t, r)
		if !r.IsError && !strings.HasSuffix(got, "]\n") {
			t.Errorf("torn result: %q", got)
		}
	}
	close(stop)
	wg.Wait()
}

func TestExpandSummary(t *testing.T) {
	f := searchFixture(t)
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "expand_observation", map[string]any{"ids": []any{"s12", "S12", "s99"}, "session_id": sidA}))
	wantContains(t, got, "## #s12 · claude-mem session summary\n", "request: fix the widget", "completed: gadget done", "#s99: no such summary")
	if strings.Contains(got, "PRIV") {
		t.Errorf("summary expansion leaks private text:\n%s", got)
	}
}

// TestListSessionsCodex: the project's Codex threads are listed beside its
// Claude Code sessions, newest first across both, each naming its host.
func TestListSessionsCodex(t *testing.T) {
	f := searchFixture(t)
	const thread = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	f.addCodexRollout(t, thread, "compact_mid_turn.jsonl")
	got := wantOK(t, call(t, newClient(t, f.deps), "list_sessions", nil))
	wantContains(t, got,
		"newest first: 3.\n- "+thread+" · codex · full · last active 2026-12-04 06:17 · ",
		" · 1 turn · no claude-mem records · no bottle — BIG_USAGE CALL_SHELL: echo midturn\n",
		"\n- "+sidA+" · claude-code · full · ",
		"[sessions 1–3 of 3 · end of list")
}

func TestListSessions(t *testing.T) {
	f := searchFixture(t)
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "list_sessions", nil))
	wantContains(t, got,
		"- "+sidA+" · claude-code · full · last active 2026-01-05 10:",
		" · 2 turns · 1 observation · no bottle — Please fix the flaky widget test. thanks\n",
		"- "+sidB+" · claude-code · reconstructed · ",
		" · 1 turn · 1 observation · no bottle — stored prompt about the zebra crossing\n",
		"[sessions 1–2 of 2 · end of list")
	if strings.Contains(got, "PRIV") || strings.Contains(got, sidC) {
		t.Errorf("list leaks private text or another project's session:\n%s", got)
	}
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": sidA}))
	page := wantOK(t, call(t, c, "list_sessions", map[string]any{"limit": 1}))
	wantContains(t, page, "bottle written", `[sessions 1–1 of 2 · more: next list_sessions {"project":`, `"offset":1}`)
	wantContains(t, wantOK(t, call(t, c, "list_sessions", map[string]any{"project": "/elsewhere"})), "Sessions of the project /elsewhere")
	wantError(t, call(t, c, "list_sessions", map[string]any{"limit": 0}), "limit must be between 1 and 200")
	wantError(t, call(t, c, "list_sessions", map[string]any{"offset": 5}), "past the end")
}

// TestSearchHistoryIndexInvalidation: the server's index notices a
// transcript that grew and a database that changed.
func TestSearchHistoryIndexInvalidation(t *testing.T) {
	f := searchFixture(t)
	c := newClient(t, f.deps)
	find := func(q string) []string {
		t.Helper()
		return hits(wantOK(t, call(t, c, "search_history", map[string]any{"query": q, "session_id": sidA})))
	}
	if got := find("brandnewword"); len(got) != 0 {
		t.Fatalf("before: %v", got)
	}
	path := filepath.Join(f.projDir, sidA+".jsonl")
	a := &jl{sid: sidA, cwd: f.cwd, t: time.Date(2026, 1, 5, 11, 0, 0, 0, time.UTC), n: 1000}
	a.prompt("a third prompt with brandnewword")
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fh.Write(a.bytes())
	fh.Close()
	if got := find("brandnewword"); !slices.Equal(got, []string{"u3"}) {
		t.Errorf("after the transcript grew: %v, want [u3]", got)
	}
	w := memtest.Writer(t, f.deps.Env.DBPath())
	if _, err := w.Exec(`INSERT INTO observations (id, memory_session_id, project, type, title, prompt_number, created_at, created_at_epoch, content_hash)
		VALUES (7003, 'mem-a', 'proj', 'discovery', 'dbnewword found', 2, 'x', 1767607700000, 'h3')`); err != nil {
		t.Fatal(err)
	}
	if got := find("dbnewword"); !slices.Equal(got, []string{"7003"}) {
		t.Errorf("after the database changed: %v, want [7003]", got)
	}
}

// TestResultsUnderCap: a page of 200 long hits and a list of 200 sessions
// stay under 25,000 characters, and the footers say where to go on.
func TestResultsUnderCap(t *testing.T) {
	f := newFixture(t)
	for i := range 200 {
		a := &jl{sid: fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), cwd: f.cwd, t: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)}
		a.prompt(strings.Repeat("filler words ", 30) + "needle " + strings.Repeat("more words ", 30) + fmt.Sprint(i))
		f.writeTranscript(t, a.sid, a.bytes(), fixedNow.Add(time.Duration(i)*time.Second))
	}
	f.deps.Index = &search.Index{}
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "search_history", map[string]any{"query": "needle", "scope": "project", "limit": 200}))
	n := len(hits(got))
	if utf8.RuneCountInString(got) > DefaultPageChars || n == 0 || n == 200 || !strings.Contains(got, fmt.Sprintf(`"offset": %d`, n)) {
		t.Errorf("search page: %d characters, %d hits, footer %q", utf8.RuneCountInString(got), n, got[strings.LastIndex(got, "["):])
	}
	list := wantOK(t, call(t, c, "list_sessions", map[string]any{"limit": 200}))
	if utf8.RuneCountInString(list) > DefaultPageChars || !strings.Contains(list, "more: next list_sessions") {
		t.Errorf("list page: %d characters, footer %q", utf8.RuneCountInString(list), list[strings.LastIndex(list, "["):])
	}
}

// TestSearchHistoryCodex: the project scope covers the project's Codex
// threads, the all scope every thread, and a thread id searches that
// thread, read by Codex's reader, with or without the index.
func TestSearchHistoryCodex(t *testing.T) {
	f := searchFixture(t)
	const mine, other = "01a23fb3-b428-7550-a450-ac58f3e0d6d7", "01a23fb3-b428-7550-a450-000000000009"
	f.addCodexRollout(t, mine, "compact_mid_turn.jsonl")
	p := f.addCodexRollout(t, other, "compact_mid_turn.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte(f.cwd), []byte("/elsewhere")), 0o600); err != nil {
		t.Fatal(err)
	}
	for withIndex, c := range clientsByIndex(t, f.deps) {
		for _, tc := range []struct {
			name      string
			args      map[string]any
			want, not []string
		}{
			{"project", map[string]any{"query": "midturn", "scope": "project"},
				[]string{"2 of 15 records matched", "- [#u1] " + mine + " · ", "- [#t1] " + mine + " · 2026-12-04 06:17 · tool exec_command — exec_command echo «midturn»"},
				[]string{other}},
			{"all", map[string]any{"query": "midturn", "scope": "all"},
				[]string{"4 of 19 records matched", "- [#u1] " + mine + " · ", "- [#u1] " + other + " · "}, nil},
			{"thread", map[string]any{"query": "midturn", "session_id": mine},
				[]string{"in session " + mine + " (given): 2 of 3 records matched", "- [#u1] 2026-12-04 06:17 · prompt — BIG_USAGE CALL_SHELL: echo «midturn»"}, nil},
		} {
			t.Run(fmt.Sprintf("%s/index=%v", tc.name, withIndex), func(t *testing.T) {
				got := wantOK(t, call(t, c, "search_history", tc.args))
				wantContains(t, got, tc.want...)
				for _, n := range tc.not {
					if strings.Contains(got, n) {
						t.Errorf("hits hold %q:\n%s", n, got)
					}
				}
			})
		}
	}
}

// TestSearchHistoryConfinesFolders: a project's transcripts folder that is a
// symlink out of the projects folder is not searched (a note says so), and
// one that resolves inside it is, under its resolved path.
func TestSearchHistoryConfinesFolders(t *testing.T) {
	for _, outside := range []bool{true, false} {
		f := newFixture(t)
		target := filepath.Join(f.home, "elsewhere")
		if !outside {
			target = filepath.Join(f.deps.Env.ProjectsDir(), "-real-folder")
		}
		if err := os.MkdirAll(target, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(f.projDir); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, f.projDir); err != nil {
			t.Fatal(err)
		}
		f.addTranscript(t, "basic", basicSID, fixedNow)
		c := newClient(t, f.deps)
		got := text(t, call(t, c, "search_history", map[string]any{"query": "the", "scope": "project"}))
		if outside {
			wantContains(t, got, "resolves outside", "0 of 0 records matched")
			continue
		}
		wantContains(t, got, basicSID[:8])
		if strings.Contains(got, "resolves outside") {
			t.Errorf("a folder inside the projects folder refused:\n%s", got)
		}
	}
}
