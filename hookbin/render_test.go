package main

import (
	"bytes"
	"context"
	"errors"
	"io"
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
	// CLAUDE_CONFIG_DIR names it, so it must exist.
	if err := os.Mkdir(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
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
		{"UnknownSession", []string{"render", "no-such-session"}, `no such session "no-such-session"`},
		{"BadID", []string{"render", "bad*id"}, "invalid session id"},
		{"MissingFile", []string{"render", "/nonexistent/x.jsonl"}, "no such file"},
		{"Directory", []string{"render", "--transcript", os.TempDir()}, "not a regular file"},
		{"NoArgs", []string{"render"}, "render needs a session id"},
		{"TwoArgs", []string{"render", "a", "b"}, "one session id"},
		{"BadFlag", []string{"render", "--nope"}, "flag provided but not defined"},
		{"UnknownHost", []string{"render", "x", "--pointer", "--host", "cursor"}, `unknown --host "cursor"`},
		{"PointerWithOut", []string{"render", "x", "--pointer", "--out", "-"}, "drop --out"},
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

// TestRenderRefusals: what used to succeed silently — a file that is not a
// transcript, a negative budget, a database that does not exist, the
// transcript of another session — is refused with one line.
func TestRenderRefusals(t *testing.T) {
	home, env := scratchEnv(t)
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(home, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i/13) // not a line of JSON anywhere
	}
	// An ELF binary; not this test's own, whose string constants include
	// transcript lines.
	binary := "/bin/true"
	if _, err := os.Stat(binary); err != nil {
		binary = write("fake-elf", append([]byte("\x7fELF\x02\x01\x01\n"), random...))
	}
	basic, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tp := write("basic.jsonl", basic)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"RandomBytes", []string{"render", write("random.bin", random), "--out", "-"}, 1, "not a Claude Code transcript: 0 of "},
		{"Passwd", []string{"render", write("passwd", []byte("root:x:0:0:root:/root:/bin/bash\n")), "--out", "-"}, 1,
			"not a Claude Code transcript: 0 of 1 lines are transcript entries"},
		{"Binary", []string{"render", "--transcript", binary, "--out", "-"}, 1, "not a Claude Code transcript: 0 of "},
		{"EmptyFile", []string{"render", write("empty.jsonl", nil), "--out", "-"}, 1, "not a Claude Code transcript: 0 of 0 lines"},
		{"NegativeBudget", []string{"render", tp, "--budget", "-1"}, 2, "--budget must be 0"},
		{"MissingDB", []string{"render", tp, "--out", "-", "--db", filepath.Join(home, "nope.db")}, 1, "nope.db does not exist"},
		{"OtherSession", []string{"render", "other-1", "--transcript", tp, "--out", "-"}, 1,
			"transcript of another session: no entry of " + tp + " carries that id (the first carries 11111111-2222-4333-8444-555555555555) (--force renders it anyway)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCmd(t, env, tt.args...)
			if got := exitCode(err, io.Discard); got != tt.code || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q): exit %d, error %v; want exit %d with %q", tt.args, got, err, tt.code, tt.want)
			}
			if strings.Contains(err.Error(), "\n") || out != "" {
				t.Errorf("error %q is not one line, or stdout %.80q is not empty", err, out)
			}
		})
	}
}

// TestRenderSaysSo: what the bottle alone does not tell goes to stderr,
// one line each, and stdout keeps the bottle alone.
func TestRenderSaysSo(t *testing.T) {
	home, env := scratchEnv(t)
	basic, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const id = "11111111-2222-4333-8444-555555555555"
	tp := filepath.Join(home, "basic.jsonl")
	odd := filepath.Join(home, "not an id.jsonl")
	for _, p := range []string{tp, odd} {
		if err := os.WriteFile(p, basic, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	malformed := filepath.Join("..", "render", "testdata", "malformed.jsonl")
	os.WriteFile(filepath.Join(home, "empty.db"), nil, 0o600)
	tests := []struct {
		name   string
		args   []string
		stdout string   // a piece of it
		stderr []string // its lines, in order (pieces of them)
	}{
		{"Plain", []string{"render", tp, "--out", "-"}, "# Session bottle — basic\n", nil},
		{"IDFromEntries", []string{"render", odd, "--out", "-"}, "# Session bottle — " + id + "\n",
			[]string{"hookbin: session id " + id + " taken from the transcript's entries"}},
		{"Verbose", []string{"render", malformed, "--out", "-", "--verbose"}, "Survive bad lines.",
			[]string{"hookbin: read " + malformed + ": 7 lines, 2 entries, 3 malformed, 1 of unknown type, torn final line"}},
		{"OverBudget", []string{"render", tp, "--out", "-", "--budget", "10"}, "\n## Notes\n\n- over budget: ",
			[]string{"hookbin: over budget: the bottle stays at about "}},
		{"Forced", []string{"render", "other-1", "--transcript", tp, "--out", "-", "--force"}, "# Session bottle — other-1\n", nil},
		{"SameSession", []string{"render", id, "--transcript", tp, "--out", "-"}, "# Session bottle — " + id + "\n", nil},
		{"DBGiven", []string{"render", tp, "--out", "-", "--db", filepath.Join(home, "empty.db")}, "# Session bottle — basic\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := runCmd(t, env, tt.args...)
			if err != nil {
				t.Fatalf("run(%q): %v", tt.args, err)
			}
			if !strings.Contains(out, tt.stdout) || strings.Contains(out, "hookbin:") {
				t.Errorf("stdout %.200q, want the bottle with %q", out, tt.stdout)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if errOut == "" {
				lines = nil
			}
			if len(lines) != len(tt.stderr) {
				t.Fatalf("stderr %q, want %d lines like %q", errOut, len(tt.stderr), tt.stderr)
			}
			for i, l := range lines {
				if !strings.Contains(l, tt.stderr[i]) {
					t.Errorf("stderr line %d %q, want it to contain %q", i, l, tt.stderr[i])
				}
			}
		})
	}
}
