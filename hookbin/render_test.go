package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd runs hookbin in process with a scratch environment.
func runCmd(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	err = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func scratchEnv(t *testing.T) (home string, env map[string]string) {
	t.Helper()
	home = t.TempDir()
	return home, map[string]string{
		"HOME":                home,
		"USERPROFILE":         home,
		"CLAUDE_CONFIG_DIR":   filepath.Join(home, ".claude"),
		"CLAUDE_MEM_DATA_DIR": filepath.Join(home, "mem"),
		"BOTTLE_DIR":          "",
	}
}

func TestRenderExample(t *testing.T) {
	out, _, err := runCmd(t, nil, "render", "--example")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# Session bottle — ", "mode: full", "## Original request", "**User** (", "**Assistant** ("} {
		if !strings.Contains(out, s) {
			t.Errorf("example bottle lacks %q", s)
		}
	}
	if strings.Contains(out, "sk-example") {
		t.Error("example bottle leaks its private text")
	}
}

func TestRenderSessionAndFile(t *testing.T) {
	home, env := scratchEnv(t)
	src, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	id := "11111111-2222-4333-8444-555555555555"
	tp := filepath.Join(home, ".claude", "projects", "-home-dev-proj", id+".jsonl")
	os.MkdirAll(filepath.Dir(tp), 0o700)
	os.WriteFile(tp, src, 0o600)

	// By session id, flags after the positional argument.
	out, _, err := runCmd(t, env, "render", id)
	if err != nil {
		t.Fatalf("render %s: %v", id, err)
	}
	want := filepath.Join(home, "mem", "bottles", id+".md")
	if strings.TrimSpace(out) != want {
		t.Errorf("render printed %q, want %q", out, want)
	}
	if b, err := os.ReadFile(want); err != nil || !strings.Contains(string(b), "List the Go files") {
		t.Errorf("bottle not written: %v", err)
	}

	// By file, printing to stdout, flag before the file.
	out, _, err = runCmd(t, env, "render", "--out", "-", tp)
	if err != nil || !strings.Contains(out, "# Session bottle — "+id) {
		t.Errorf("render --out - FILE: err %v, out %.80q", err, out)
	}
	out, _, err = runCmd(t, env, "render", tp, "--out", "-")
	if err != nil || !strings.Contains(out, "# Session bottle — "+id) {
		t.Errorf("render FILE --out -: err %v, out %.80q", err, out)
	}
	out, _, err = runCmd(t, env, "render", "--transcript", tp, "--out", "-")
	if err != nil || !strings.Contains(out, "List the Go files") {
		t.Errorf("render --transcript: err %v", err)
	}
	// --out PATH
	dst := filepath.Join(home, "out.md")
	if _, _, err = runCmd(t, env, "render", id, "--out", dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst); err != nil {
		t.Errorf("--out PATH: %v", err)
	}
	// BOTTLE_DIR wins over the data dir.
	env["BOTTLE_DIR"] = filepath.Join(home, "elsewhere")
	out, _, _ = runCmd(t, env, "render", id)
	if !strings.HasPrefix(strings.TrimSpace(out), env["BOTTLE_DIR"]) {
		t.Errorf("with BOTTLE_DIR, render printed %q", out)
	}
}

func TestRenderErrors(t *testing.T) {
	_, env := scratchEnv(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"UnknownSession", []string{"render", "no-such-session"}, "transcript not found"},
		{"BadID", []string{"render", "bad*id"}, "invalid session id"},
		{"MissingFile", []string{"render", "/nonexistent/x.jsonl"}, "no such file"},
		{"Directory", []string{"render", "--transcript", os.TempDir()}, "not a regular file"},
		{"NoArgs", []string{"render"}, "render needs a session id"},
		{"TwoArgs", []string{"render", "a", "b"}, "one session id"},
		{"BadFlag", []string{"render", "--nope"}, "flag provided but not defined"},
		{"UnknownCommand", []string{"frobnicate"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCmd(t, env, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) error = %v, want it to contain %q", tt.args, err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, _, err := runCmd(t, nil, "--version")
	if err != nil || !strings.HasPrefix(out, "hookbin ") {
		t.Errorf("--version = %q, %v", out, err)
	}
	out, _, err = runCmd(t, nil, "render", "--help")
	if err != nil || !strings.Contains(out, "usage: hookbin render") {
		t.Errorf("render --help = %q, %v", out, err)
	}
	var ex exitError
	if _, _, err := runCmd(t, nil); !errors.As(err, &ex) || ex.code != 2 {
		t.Errorf("no args: error = %v, want exit status 2", err)
	}
}
