package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
