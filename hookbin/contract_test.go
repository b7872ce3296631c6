package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestContract holds the command line's contract (README "Commands"):
// results on stdout, an error as one line on stderr and never a usage dump
// on stdout, exit 0 on success, 1 on failure, 2 on a usage error; the hooks
// always exit 0 and print nothing but their answer.
func TestContract(t *testing.T) {
	home, env := scratchEnv(t)
	for k, v := range env {
		t.Setenv(k, v)
	}
	abs, err := filepath.Abs(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(home)
	const (
		quiet = iota // nothing on the stream
		some         // something
		line         // exactly one line
	)
	tests := []struct {
		args           []string
		code           int
		stdout, stderr int
		stdoutHas      string
	}{
		{nil, 2, quiet, line, ""},
		{[]string{"rendr"}, 2, quiet, line, ""},
		{[]string{"-v"}, 0, line, quiet, "hookbin "},
		{[]string{"--version"}, 0, line, quiet, "hookbin "},
		{[]string{"version"}, 0, line, quiet, "hookbin "},
		{[]string{"--help"}, 0, some, quiet, "usage: hookbin <command>"},
		{[]string{"render", "--help"}, 0, some, quiet, "--budget N"},
		{[]string{"render", "--bogus"}, 2, quiet, line, ""},
		{[]string{"render"}, 2, quiet, line, ""},
		{[]string{"render", "a", "b"}, 2, quiet, line, ""},
		{[]string{"render", "no-such-session"}, 1, quiet, line, ""},
		{[]string{"render", "--example"}, 0, some, quiet, "# Session bottle"},
		{[]string{"render", abs, "--out", "-"}, 0, some, quiet, "# Session bottle — basic"},
		{[]string{"list", "--help"}, 0, some, quiet, "--project dir"},
		{[]string{"list", "extra"}, 2, quiet, line, ""},
		{[]string{"list"}, 0, some, quiet, ""},
		{[]string{"expand", "--help"}, 0, some, quiet, "--session id"},
		{[]string{"expand"}, 2, quiet, line, ""},
		{[]string{"expand", "t1", "--transcript", abs}, 0, some, quiet, "## [#t1]"},
		{[]string{"expand", "t1", "t9", "--transcript", abs}, 1, some, line, "## [#t9] not expanded"},
		{[]string{"search", "--help"}, 0, some, quiet, "--kind kinds"},
		{[]string{"search"}, 2, quiet, line, ""},
		{[]string{"search", "x", "--limit", "0"}, 2, quiet, line, ""},
		{[]string{"search", "x", "--all"}, 0, some, quiet, "no hits in "},
		{[]string{"install", "--help"}, 0, some, quiet, "--scope user"},
		{[]string{"install", "--scope", "bogus"}, 2, quiet, line, ""},
		{[]string{"uninstall", "--help"}, 0, some, quiet, "--dry-run"},
		{[]string{"doctor", "--help"}, 0, some, quiet, "--project DIR"},
		{[]string{"doctor", "extra"}, 2, quiet, line, ""},
		{[]string{"session-start"}, 0, quiet, quiet, ""},
		{[]string{"stop", "--bogus"}, 0, quiet, quiet, ""},
		{[]string{"session-end", "extra"}, 0, quiet, quiet, ""},
		{[]string{"session-start", "--help"}, 0, some, quiet, "--deadline"},
	}
	singleDash := regexp.MustCompile(`(?m)^\s+-[a-z]`)
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := exitCode(run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr), &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr.String())
			}
			for _, s := range []struct {
				name string
				got  string
				want int
			}{{"stdout", stdout.String(), tc.stdout}, {"stderr", stderr.String(), tc.stderr}} {
				switch n := strings.Count(s.got, "\n"); {
				case s.want == quiet && s.got != "":
					t.Errorf("%s = %q, want nothing", s.name, s.got)
				case s.want == some && s.got == "" && tc.stdoutHas != "":
					t.Errorf("%s is empty", s.name)
				case s.want == line && (n != 1 || !strings.HasSuffix(s.got, "\n")):
					t.Errorf("%s = %q, want one line", s.name, s.got)
				}
			}
			if !strings.Contains(stdout.String(), tc.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdoutHas, stdout.String())
			}
			if strings.Contains(stdout.String(), "usage:") && tc.code != 0 {
				t.Errorf("a usage dump on stdout with exit %d", tc.code)
			}
			if len(tc.args) > 1 && tc.args[1] == "--help" && singleDash.MatchString(stdout.String()) {
				t.Errorf("help spells a flag with one dash:\n%s", stdout.String())
			}
		})
	}
}

// TestPayloadInWords: a hook given a payload that is not Claude Code's
// exits 0 with nothing on stdout, and its log line says what was wrong in
// words, not in Go's.
func TestPayloadInWords(t *testing.T) {
	tests := []struct{ payload, want string }{
		{"", "empty payload on stdin"},
		{"[1, 2]", "payload is a JSON array, not the JSON object Claude Code sends"},
		{`"compact"`, "payload is a JSON string, not the JSON object Claude Code sends"},
		{`{"session_id": 5}`, `payload field "session_id" is a JSON number, not a string`},
		{`{"stop_hook_active": "yes"}`, `payload field "stop_hook_active" is a JSON string, not a boolean`},
		{`{"session_id": "s1",`, "payload is not JSON: unexpected end of JSON input"},
		{"{bad}", "payload is not JSON: invalid character 'b'"},
	}
	for _, tc := range tests {
		t.Run(tc.payload, func(t *testing.T) {
			home, env := scratchEnv(t)
			for k, v := range env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := exitCode(run(context.Background(), []string{"session-start"}, strings.NewReader(tc.payload), &stdout, &stderr), &stderr)
			if code != 0 || stdout.Len() != 0 || stderr.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and nothing", code, stdout.String(), stderr.String())
			}
			log, err := os.ReadFile(filepath.Join(home, "mem", "logs", "bottle.log"))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(log); !strings.Contains(got, "error: "+tc.want) || strings.Contains(got, "Go value") {
				t.Errorf("log line %q, want it to say %q", got, tc.want)
			}
		})
	}
}
