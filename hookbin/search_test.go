package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// basicSID is the session of render/testdata/basic.jsonl.
const searchSID = "11111111-2222-4333-8444-555555555555"

func searchEnv(t *testing.T) map[string]string {
	t.Helper()
	home, env := scratchEnv(t)
	data, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, ".claude", "projects", "-home-dev-proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, searchSID+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return env
}

func TestSearchCommand(t *testing.T) {
	env := searchEnv(t)
	out, _, err := runCmd(t, env, "search", "util.go", "--session", searchSID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- [#t1] ", " · tool Glob — ", "«util.go»", "- [#a1] ", "hits 1–2 of 2 in "} {
		if !strings.Contains(out, want) {
			t.Errorf("search output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCmd(t, env, "search", "--all", "--kind", "assistant", "--json", "two", "main.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var h jsonHit
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &h) != nil || h.ID != "a1" || h.Session != searchSID || h.Kind != "assistant" ||
		!strings.Contains(h.Snippet, "«two»") {
		t.Errorf("--json output %q, want one hit a1 of %s", out, searchSID)
	}
	out, _, err = runCmd(t, env, "search", "nothing-like-this", "--all")
	if err != nil || !strings.HasPrefix(out, "no hits in ") {
		t.Errorf("no hits: %q, %v", out, err)
	}
	for _, args := range [][]string{
		{"search"}, {"search", `""`}, {"search", "-x"}, {"search", "x", "--all", "--session", searchSID},
		{"search", "x", "--limit", "0"}, {"search", "x", "--limit", "201"}, {"search", "x", "--kind", "thinking"},
		{"search", "x", "--session", "../etc"}, {"search", "x", "--bogus"},
	} {
		_, _, err := runCmd(t, env, args...)
		var ex exitError
		if err == nil || !asExit(err, &ex) || ex.code != 2 {
			t.Errorf("%q: error %v, want a usage error (exit 2)", args, err)
		}
	}
}

func asExit(err error, ex *exitError) bool {
	e, ok := err.(exitError)
	*ex = e
	return ok
}

// TestSearchQueryArgs: a -word after the query's first word is part of the
// query (README: hookbin search "go test" -flaky), the flags are the known
// ones wherever they stand, and -- ends the flags.
func TestSearchQueryArgs(t *testing.T) {
	env := searchEnv(t)
	// basic.jsonl: t1 is a Glob that found main.go and util.go, a1 the
	// reply "There are two: main.go and util.go" (ranked first).
	tests := []struct {
		args []string
		want []string // hit ids; nil: a usage error
	}{
		{[]string{"util.go"}, []string{"a1", "t1"}},
		{[]string{"util.go", "-two"}, []string{"t1"}},
		{[]string{"util.go", "-two", "--kind", "tool"}, []string{"t1"}},
		{[]string{"util.go", "-two", "-Glob"}, []string{}},
		{[]string{"--kind", "tool", "util.go", "-Glob"}, []string{}},
		{[]string{"util.go", "--kind=assistant"}, []string{"a1"}},
		{[]string{"util.go", "-kind", "assistant"}, []string{"a1"}}, // a known flag, one dash
		{[]string{"--", "util.go", "-kind"}, []string{"a1", "t1"}},
		{[]string{"util.go", "--", "--kind", "tool"}, []string{}}, // after --, words: "--kind" and "tool"
		{[]string{"util.go", "-"}, []string{}},                    // a lone - is a word, and no record holds one
		{[]string{"-main.go", "util.go"}, nil},                    // before the query: an unknown flag
		{[]string{"util.go", "--mian"}, nil},                      // --word: a mistyped flag
		{[]string{"util.go", "--limit"}, nil},                     // a known flag without its value
	}
	for _, tt := range tests {
		args := append([]string{"search", "--session", searchSID, "--json"}, tt.args...)
		out, _, err := runCmd(t, env, args...)
		if tt.want == nil {
			var ex exitError
			if err == nil || !asExit(err, &ex) || ex.code != 2 {
				t.Errorf("%q: error %v, want a usage error (exit 2)", tt.args, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		got := []string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var h jsonHit
			if l != "" && json.Unmarshal([]byte(l), &h) == nil {
				got = append(got, h.ID)
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q: hits %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestSearchSkipsOwnResults: hookbin search leaves out the results of the
// calls that read bottle's own record (a Read of a bottle, bottle's tools
// by either install's names), as search_history does; their inputs stay.
func TestSearchSkipsOwnResults(t *testing.T) {
	home, env := scratchEnv(t)
	const sid = "33333333-2222-4333-8444-555555555555"
	bottle := filepath.Join(home, "mem", "bottles", sid+".md")
	var lines []string
	add := func(m map[string]any) {
		m["sessionId"], m["isSidechain"], m["cwd"] = sid, false, "/home/dev/proj"
		m["uuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", len(lines)+1)
		m["timestamp"] = fmt.Sprintf("2026-03-01T10:%02d:00Z", len(lines))
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	call := func(id, name string, input map[string]any, result string) {
		add(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "m" + id, "model": "x",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}}}})
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "count the WOMBAT burrows"}})
	call("t1", "Read", map[string]any{"file_path": bottle}, "# Session bottle\ncount the WOMBAT burrows")
	call("t2", "mcp__bottle__read_bottle", map[string]any{"session_id": sid}, "count the WOMBAT burrows")
	call("t3", "mcp__plugin_bottle_bottle__search_history", map[string]any{"query": "WOMBAT"}, "- [#u1] count the «WOMBAT» burrows")
	call("t4", "Read", map[string]any{"file_path": "/home/dev/proj/burrows.txt"}, "WOMBAT burrows: 3")
	dir := filepath.Join(home, ".claude", "projects", "-home-dev-proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, env, "search", "WOMBAT", "--session", sid, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var h jsonHit
		if json.Unmarshal([]byte(l), &h) == nil {
			got = append(got, h.ID)
		}
	}
	slices.Sort(got)
	// u1 the prompt, t3 by its input (the query), t4 another file's Read.
	if want := []string{"t3", "t4", "u1"}; !slices.Equal(got, want) {
		t.Errorf("hits %v, want %v:\n%s", got, want, out)
	}
}
