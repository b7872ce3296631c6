package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scratchSession puts a fixture transcript into a scratch HOME's projects
// folder under the given session id.
func scratchSession(t *testing.T, home, fixture, id string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "render", "testdata", fixture+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, ".claude", "projects", "-home-dev-proj", id+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestListAndExpand(t *testing.T) {
	home, env := scratchEnv(t)
	scratchSession(t, home, "basic", "s-basic")
	scratchSession(t, home, "private", "s-private")
	out, _, err := runCmd(t, env, "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"SESSION", "s-basic", "full", "List the Go files in this project.", "s-private", "(private)"} {
		if !strings.Contains(out, s) {
			t.Errorf("list output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("list leaks private text:\n%s", out)
	}
	// Good ids are printed; the bad one makes expand exit 1.
	out, _, err = runCmd(t, env, "expand", "t1", "u1", "--session", "s-basic", "a1", "t9")
	if code := exitCode(err, io.Discard); code != 1 {
		t.Errorf("expand with one unknown id: exit %d (%v), want 1", code, err)
	}
	for _, s := range []string{"## [#t1]\ntool: Glob", "## [#u1]\nList the Go files", "## [#a1]\nI'll look.", "## [#t9] not expanded: no such tool call"} {
		if !strings.Contains(out, s) {
			t.Errorf("expand output lacks %q:\n%s", s, out)
		}
	}
	out, _, _ = runCmd(t, env, "expand", "--session", "s-private", "t1", "u2", "a2")
	if strings.Contains(out, "SECRET") {
		t.Errorf("expand leaks private text:\n%s", out)
	}
	if _, _, err := runCmd(t, env, "expand", "zz", "--session", "s-basic"); err == nil {
		t.Error("expand with no expandable id succeeded")
	}
	if _, _, err := runCmd(t, env, "expand", "t1", "--session", "../x"); err == nil || !strings.Contains(err.Error(), "invalid session id") {
		t.Errorf("expand with a bad session id: %v", err)
	}
	out, _, err = runCmd(t, env, "list", "--project", t.TempDir())
	if err != nil || !strings.Contains(out, "no sessions found") {
		t.Errorf("list --project elsewhere = %q, %v", out, err)
	}
}
