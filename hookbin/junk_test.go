package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingAndJunk is the contract of what the commands say when what
// they are pointed at is missing or is not what it should be: exit code,
// which stream, and the words.
func TestMissingAndJunk(t *testing.T) {
	home, env := scratchEnv(t)
	for k, v := range env {
		t.Setenv(k, v)
	}
	basic, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(filepath.Join("..", "render", "testdata", "working-state.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(home)
	// A binary that embeds a sample session, as hookbin itself does.
	var binary []byte
	for i := range 3000 {
		binary = append(binary, "\x7fELF\x02\x01\x00"...)
		binary = append(binary, byte(i), '\n')
	}
	binary = append(binary, basic...)
	const (
		good     = "6113e919-0000-4000-8000-000000000001"
		good2    = "6113e919-0000-4000-8000-000000000002"
		elsewise = "77777777-0000-4000-8000-000000000001"
		junk     = "0badf11e-0000-4000-8000-000000000001"
		empty    = "0badf11e-0000-4000-8000-000000000002"
		elf      = "0badf11e-0000-4000-8000-000000000003"
	)
	projects := filepath.Join(env["CLAUDE_CONFIG_DIR"], "projects")
	for name, data := range map[string][]byte{
		"-p/" + good + ".jsonl":     basic,
		"-p/" + good2 + ".jsonl":    basic,
		"-q/" + elsewise + ".jsonl": other,
		"-p/" + junk + ".jsonl":     []byte("\x00\x9f\xffrandom bytes\n\x01\x02"),
		"-p/" + empty + ".jsonl":    nil,
		"-p/" + elf + ".jsonl":      binary,
	} {
		p := filepath.Join(projects, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	elfPath := filepath.Join(projects, "-p", elf+".jsonl")
	noHome := map[string]string{"HOME": "", "USERPROFILE": "", "CLAUDE_CONFIG_DIR": ""}
	missingConfig := map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(home, "nowhere")}
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		stdout string // a line stdout must hold ("" = stdout must be empty)
		stderr string // stderr, exactly ("" = nothing)
	}{
		{"RenderJunkByID", nil, []string{"render", junk}, 1, "",
			"hookbin: " + filepath.Join(projects, "-p", junk+".jsonl") + ": not a Claude Code transcript: 0 of 2 lines are transcript entries\n"},
		{"RenderEmptyByID", nil, []string{"render", empty}, 1, "",
			"hookbin: " + filepath.Join(projects, "-p", empty+".jsonl") + ": not a Claude Code transcript: 0 of 0 lines are transcript entries\n"},
		{"RenderBinaryByPath", nil, []string{"render", elfPath, "--out", "-", "--force"}, 1, "",
			"hookbin: " + elfPath + ": not a Claude Code transcript: 5 of 3005 lines are transcript entries\n"},
		{"RenderBinaryByID", nil, []string{"render", elf}, 1, "",
			"hookbin: " + elfPath + ": not a Claude Code transcript: 5 of 3005 lines are transcript entries\n"},
		{"RenderPrefix", nil, []string{"render", "6113e919"}, 1, "",
			"hookbin: no such session \"6113e919\" (no transcript under " + projects + " and none in " +
				filepath.Join(home, "mem", "claude-mem.db") + "); sessions starting with \"6113e919\": " + good + ", " + good2 + "\n"},
		{"RenderUnknown", nil, []string{"render", "nonexistent"}, 1, "",
			"hookbin: no such session \"nonexistent\" (no transcript under " + projects + " and none in " +
				filepath.Join(home, "mem", "claude-mem.db") + "); hookbin list shows the sessions\n"},
		{"ExpandUnknownSession", nil, []string{"expand", "t1", "--session", "nonexistent"}, 1, "",
			"hookbin: no such session \"nonexistent\" (no transcript under " + projects + " and none in " +
				filepath.Join(home, "mem", "claude-mem.db") + "); hookbin list shows the sessions\n"},
		{"SearchUnknownSession", nil, []string{"search", "foo", "--session", "6113E919-0000"}, 1, "",
			"hookbin: no such session \"6113E919-0000\" (no transcript under " + projects + " and none in " +
				filepath.Join(home, "mem", "claude-mem.db") + "); sessions starting with \"6113E919-0000\": " + good + ", " + good2 + "\n"},
		{"SearchMissingProject", nil, []string{"search", "foo", "--project", "/missing"}, 1, "",
			"hookbin: --project /missing does not exist\n"},
		{"ListMissingProject", nil, []string{"list", "--project", "/missing"}, 1, "",
			"hookbin: --project /missing does not exist\n"},
		{"ListMissingConfig", missingConfig, []string{"list"}, 1, "",
			"hookbin: CLAUDE_CONFIG_DIR " + filepath.Join(home, "nowhere") + " does not exist\n"},
		{"SearchMissingConfig", missingConfig, []string{"search", "foo", "--all"}, 1, "",
			"hookbin: CLAUDE_CONFIG_DIR " + filepath.Join(home, "nowhere") + " does not exist\n"},
		{"RenderMissingConfig", missingConfig, []string{"render", good}, 1, "",
			"hookbin: CLAUDE_CONFIG_DIR " + filepath.Join(home, "nowhere") + " does not exist\n"},
		{"ListNoHome", noHome, []string{"list"}, 1, "", "hookbin: home directory unknown: set HOME (or CLAUDE_CONFIG_DIR)\n"},
		{"SearchNoHome", noHome, []string{"search", "foo", "--all"}, 1, "", "hookbin: home directory unknown: set HOME (or CLAUDE_CONFIG_DIR)\n"},
		{"ExpandNoHome", noHome, []string{"expand", "t1", "--session", good}, 1, "", "hookbin: home directory unknown: set HOME (or CLAUDE_CONFIG_DIR)\n"},
		{"RenderNoHome", noHome, []string{"render", good}, 1, "", "hookbin: home directory unknown: set HOME (or CLAUDE_CONFIG_DIR)\n"},
		{"ListSkipsJunk", nil, []string{"list"}, 0, good2,
			"hookbin: 3 files skipped: not a Claude Code transcript (no entry, or mostly lines that are not JSON)\n"},
		{"FlagSpelling", nil, []string{"render", "--budget", "x"}, 2, "",
			"hookbin: invalid value \"x\" for flag --budget: parse error\n"},
		{"UnknownFlag", nil, []string{"list", "--bogus"}, 2, "", "hookbin: flag provided but not defined: --bogus\n"},
		{"FlagNeedsValue", nil, []string{"search", "x", "--limit"}, 2, "", "hookbin: flag needs an argument: --limit\n"},
		{"BigBudget", nil, []string{"render", good, "--budget", "10000000000", "--out", "-"}, 0, "# Session bottle", ""},
		{"OneID", nil, []string{"expand", "t9", "--session", good}, 1, "## [#t9] not expanded", "hookbin: 1 of 1 id not expanded (the reasons are above)\n"},
		{"OneSession", nil, []string{"search", "zebra", "--session", good}, 0, "no hits in ", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := exitCode(run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr), &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if got := stderr.String(); got != tc.stderr {
				t.Errorf("stderr:\n got %q\nwant %q", got, tc.stderr)
			}
			if got := stdout.String(); tc.stdout == "" && got != "" || !strings.Contains(got, tc.stdout) {
				t.Errorf("stdout %q, want it to hold %q", got, tc.stdout)
			}
		})
	}
	// Nothing was written for the junk.
	if matches, _ := filepath.Glob(filepath.Join(home, "mem", "bottles", "0badf11e*")); len(matches) > 0 {
		t.Errorf("bottles written for files that are no transcripts: %v", matches)
	}
}

// TestListProjectsAndPrompts: hookbin list names each session's project
// when it lists more than one, and counts the prompts of a session only its
// transcript holds.
func TestListProjectsAndPrompts(t *testing.T) {
	home, env := scratchEnv(t)
	for k, v := range env {
		t.Setenv(k, v)
	}
	t.Chdir(home)
	projects := filepath.Join(env["CLAUDE_CONFIG_DIR"], "projects")
	write := func(dir, id, cwd string, prompts int) {
		var b strings.Builder
		for i := range prompts {
			b.WriteString(`{"type":"user","uuid":"u` + string(rune('a'+i)) + `","sessionId":"` + id + `","cwd":"` + cwd +
				`","timestamp":"2026-01-05T10:0` + string(rune('0'+i)) + `:00Z","message":{"role":"user","content":"prompt ` + string(rune('a'+i)) + `"}}` + "\n")
		}
		p := filepath.Join(projects, dir, id+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("-work-a", "aaaaaaaa-0000-4000-8000-000000000001", "/work/a", 3)
	write("-work-a", "aaaaaaaa-0000-4000-8000-000000000002", "/work/a", 1)
	out, _, err := runCmd(t, nil, "list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || strings.Contains(lines[0], "PROJECT") {
		t.Fatalf("one project: want no PROJECT column, 2 sessions:\n%s", out)
	}
	if f := strings.Fields(lines[1]); f[0] != "aaaaaaaa-0000-4000-8000-000000000001" || f[1] != "claude-code" || f[5] != "3" {
		t.Errorf("first session's host and prompts: got %q, %q, want claude-code, 3:\n%s", f[1], f[5], out)
	}
	write("-work-b", "bbbbbbbb-0000-4000-8000-000000000001", "/work/b", 2)
	if out, _, err = runCmd(t, nil, "list"); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "SESSION") || strings.Fields(lines[0])[1] != "PROJECT" {
		t.Fatalf("two projects: want a PROJECT column:\n%s", out)
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		want := "/work/a"
		if strings.HasPrefix(f[0], "bbbbbbbb") {
			want = "/work/b"
		}
		if f[1] != want {
			t.Errorf("%s: project %q, want %q", f[0], f[1], want)
		}
	}
}

// TestStopSkipsEmptySession: the Stop hook writes no bottle for a session
// with no prompt and no tool call (a slash command alone), and logs why.
func TestStopSkipsEmptySession(t *testing.T) {
	const id = "eeeeeeee-0000-4000-8000-000000000001"
	w := newHookWorld(t)
	p := filepath.Join(w.config, "projects", "-home-dev-proj", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","uuid":"u1","sessionId":"` + id + `","timestamp":"2026-01-05T11:00:00Z",` +
		`"message":{"role":"user","content":"<command-name>/bottle:doctor</command-name>"}}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := w.hook(t, "stop", `{"session_id":"`+id+`","transcript_path":"`+p+`"}`)
	if o := w.lastOutcome(t); out != "" || o != "skipped: empty session: no prompt and no tool call" {
		t.Errorf("stop on an empty session: stdout %q, logged %q", out, o)
	}
	if _, err := os.Stat(filepath.Join(w.bottlesDir(), id+".md")); err == nil {
		t.Error("stop wrote a bottle for an empty session")
	}
}
