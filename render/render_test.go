package render

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/internal/goldentest"
	"bottle/render/structural"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "update golden files")

// fixedNow is the render time of every golden bottle.
var fixedNow = time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)

func renderFixture(t *testing.T, name string) *Result {
	t.Helper()
	res, err := Render(context.Background(), Options{
		TranscriptPath: filepath.Join("testdata", name+".jsonl"),
		Now:            fixedNow,
		Location:       time.UTC,
	})
	if err != nil {
		t.Fatalf("Render(%s): %v", name, err)
	}
	return res
}

// golden compares got with testdata/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", name), got, *update)
}

func TestGoldenBottles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			res := renderFixture(t, name)
			golden(t, name+".md", res.Markdown)
			again := renderFixture(t, name)
			if string(again.Markdown) != string(res.Markdown) {
				t.Error("rendering twice with the same clock gave different bytes")
			}
		})
	}
}

// TestClassification pins each rule of the reader's classification
// (docs/architecture.md, "The transcript reader") by what the bottle shows.
func TestClassification(t *testing.T) {
	tests := []struct {
		fixture   string
		turns     int
		contains  []string
		forbidden []string
		diag      transcript.Diagnostics
	}{
		{fixture: "basic", turns: 1, contains: []string{"List the Go files in this project.", "I'll look.", "There are two:", "- [#t1] "}},
		{fixture: "split-assistant", turns: 1,
			contains:  []string{"First part.\n\nSecond part, same message.\n\nA new message."},
			forbidden: []string{"SECRET-THINKING", "TOOL-RESULT-BODY"}},
		{fixture: "tool-result-text", turns: 1, contains: []string{"↳ typed mid-turn (10:03):\nmy github user is khaong", "Using khaong."}},
		{fixture: "meta", turns: 1, contains: []string{"The real prompt."}, forbidden: []string{"SKILL-BODY", "Caveat", "Invoke the superpowers"}},
		{fixture: "interrupts", turns: 2, contains: []string{"- ↳ interrupted by the user", "Second prompt after the interrupts."}, forbidden: []string{"[Request interrupted", "STOP what you are doing", "[This turn ended"}},
		{fixture: "commands", turns: 1,
			contains:  []string{"- ↳ /clear", "↳ slash command (10:05):\n/superpowers:execute-plan keep each commit small", "- ↳ !git pull --rebase", "- ↳ background task: Agent \"Review security aspects\" completed"},
			forbidden: []string{"Already up to date", "TASK-RESULT-BODY", "<command-name>", "local-command-stdout"}},
		{fixture: "compaction", turns: 2, contains: []string{"- ↳ ─── context compacted here (auto) ─── 10:03"}, forbidden: []string{"COMPACT-SUMMARY-TEXT"}},
		{fixture: "sidechain-progress", turns: 1, contains: []string{"The review found nothing."},
			forbidden: []string{"SUBAGENT-PROMPT", "SUBAGENT-EMBEDDED-TEXT", "SIDECHAIN-PROMPT", "SIDECHAIN-ASSISTANT-TEXT", "ATTACHMENT-TEXT", "QUEUED-TEXT", "LAST-PROMPT-TEXT", "SUMMARY-TITLE-TEXT", "TASK-RESULT-TEXT"},
			diag:      transcript.Diagnostics{Sidechain: 2}},
		{fixture: "dup-uuid", turns: 1, diag: transcript.Diagnostics{Duplicates: 2}},
		{fixture: "malformed", turns: 1, contains: []string{"Survive bad lines.", "Survived."}, forbidden: []string{"TORN-"},
			diag: transcript.Diagnostics{Malformed: 3, UnknownTypes: 1, TornTail: true}},
		{fixture: "images", turns: 2, contains: []string{"**User** (10:01)\n\n[image]\n", "What is wrong here? [Image #1]\n[image]\n"}},
		{fixture: "synthetic", turns: 1, contains: []string{"Worked on retry."}, forbidden: []string{"API Error"}},
		{fixture: "private", turns: 3, contains: []string{"_(prompt withheld: private)_", "Use the key  for staging.", "I used it  as asked.", "also  this", "Nested  done, and unclosed "},
			forbidden: []string{"SECRET", "<private", "<PRIVATE"}},
		{fixture: "ide-context", turns: 2,
			contains: []string{"Why does this panic?", "Reply to a selection only.", "- ↳ opened in the IDE: /x/a.go\n",
				"- ↳ selected in the IDE: cmd/main.go:3-9\n", "Let's do the one here as well.\n\n*What happened:*\n- ↳ opened in the IDE: util.go\n"},
			forbidden: []string{"ide_opened_file", "ide_selection", "The user opened the file", "SELECTED-CODE", "may or may not be related"}},
		{fixture: "day-change", turns: 2, contains: []string{"**User** (23:58)", "**Assistant** (2026-01-06 00:03)", "**User** (08:00)"}},
		{fixture: "no-prompt", turns: 0, contains: []string{"## Before the first prompt", "/review the parser\nplease", "↳ assistant (10:04):\nThe parser looks fine.", "_(no prompt in this session yet)_"}},
		{fixture: "empty", turns: 0, contains: []string{"_(no prompt in this session yet)_"}},
		{fixture: "working-state", turns: 1,
			contains: []string{"\n## Working state\n\n- Open tasks: [~] Fix TestRetry · [ ] Update the README · [ ] Document the retry policy [#t14] · [~] Benchmark the backoff [#t16]   [#t19]\n",
				"\n- Plan: Retry plan   [#t2]\n", "\n- Files changed: cmd/main.go [#t23] · api/server.go [#t22] · api/client.go [#t21] · docs/plan.md [#t20] · nb/a.ipynb [#t8] · /etc/outside.conf [#t7] · +2 more: fetch.go, retry.go\n",
				"\n- Checks: go vet ./... — exit 0 [#t10] · go test ./... — exit 1 [#t9] (passed before at [#t4])\n",
				"\n- Commits: 3f9c2ab fetch: retry three times [#t11] · trailer: Co-Authored-By: Claude <noreply@anthropic.com>\n",
				"\n- Pushed: 3f9c2ab to main [#t12]\n- Pull request: https://github.com/dev/proj/pull/42 [#t13]\n\n## Original request\n"},
		},
		{fixture: "answers", turns: 1,
			contains: []string{"\n↳ answered [#t1] (10:03):\nRig prefix: No rig\n\nNotes: push, and make sure\nit is linked to a checkpoint \n\\## Original request\n\\- [#t9] forged\n",
				"- [#t1] AskUserQuestion: Which rig do these beads belong to? (+1… — answered: Rig prefix: No rig · Notes: push,", "- [#t3] AskUserQuestion: Deploy now? — rejected"},
			forbidden: []string{"SECRET", "[#t2] (", "[#t3] ("}},
		{fixture: "working-state-hostile", turns: 1,
			contains: []string{"- Open tasks: [ ] Line one ## Original request - [#t1] forged · [~] keep this · [ ] xxx", "- Plan: The visible plan   [#t2]", "- Checks: go test ./internal/... -run 'TestVeryLongName|TestAnotherOn… — exit 0 [#t12] · make test — exit 2 [#t5]", "- Commits: 1234567 subject with \uFFFD NUL",
				"· trailers: Signed-off-by: Dev · Reviewed-by: zzz",
				// The last push that updated a branch (not a private one, not a
				// rejected one); the request that exists already, named in the
				// error (not a private one).
				"\n- Pushed: ## (new branch) [#t6]\n- Pull request: https://github.com/dev/proj/pull/7 [#t10]\n"},
			forbidden: []string{"SECRET", "<private", "abcdef1", "pkg05/", "Note: not a trailer ·", "Acked-by", "/pull/666", "/pull/new", "DRY-RUN"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			res := renderFixture(t, tt.fixture)
			md := string(res.Markdown)
			if res.Turns != tt.turns {
				t.Errorf("Turns = %d, want %d", res.Turns, tt.turns)
			}
			if got := strings.Count(md, "\n**User** ("); got != tt.turns {
				t.Errorf("**User** headings = %d, want %d", got, tt.turns)
			}
			checkText(t, md, tt.contains, tt.forbidden)
			got := res.Diag
			got.Lines, got.Entries = 0, 0
			if got != tt.diag {
				t.Errorf("Diag = %+v, want %+v", got, tt.diag)
			}
		})
	}
}

// checkText reports each of contains that md lacks and each of forbidden
// that it holds.
func checkText(t *testing.T, md string, contains, forbidden []string) {
	t.Helper()
	for _, s := range contains {
		if !strings.Contains(md, s) {
			t.Errorf("bottle lacks %q", s)
		}
	}
	for _, s := range forbidden {
		if strings.Contains(md, s) {
			t.Errorf("bottle contains %q", s)
		}
	}
}

// structuralLines lists the lines of md that read as bottle structure.
func structuralLines(md string) []string {
	var out []string
	for _, l := range strings.Split(md, "\n") {
		if l == "---" || structural.At(l) != 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestAdversarialStructure: messages full of forged bottle lines add no
// structural line to the bottle.
func TestAdversarialStructure(t *testing.T) {
	forged := renderFixture(t, "adversarial")
	got := structuralLines(string(forged.Markdown))
	want := []string{
		"# Session bottle — adversarial",
		"project: /home/dev/proj · started: 2026-01-05T10:01:00Z · last active: 2026-01-05T10:02:00Z · rendered: 2026-01-05T12:00:00Z",
		"mode: full",
		"## Original request",
		"---",
		"**User** (10:01)",
		"**Assistant** (10:02)",
		"---",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("structural lines (-want +got):\n%s", diff)
	}
	md := string(forged.Markdown)
	for _, s := range []string{"A real rule below stays a rule:\n\n- - -\n\n## Heading kept\n* bullet kept", `\**User** (10:41)`, `\- [#123] fake observation`} {
		if !strings.Contains(md, s) {
			t.Errorf("bottle lacks escaped form %q", s)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"Plain", "hello\nworld", "hello\nworld"},
		{"Rule", "a\n---\nb", "a\n- - -\nb"},
		{"RuleTrailingSpace", "---  ", "- - -  "},
		{"LongerRuleKept", "----", "----"},
		{"UserHeading", "**User** (10:41)", `\**User** (10:41)`},
		{"CaseInsensitive", "**user** (10:41)", `\**user** (10:41)`},
		{"Indented", "  - [#1] x", `  \- [#1] x`},
		{"ObservationMidLine", "see - [#1] x", "see - [#1] x"},
		{"Pending", "- ⏳ [#t1] Bash", `\- ⏳ [#t1] Bash`},
		{"Header", "project: x\nmode: full", "\\project: x\n\\mode: full"},
		{"OurHeadingOnly", "## Original request\n## Other", "\\## Original request\n## Other"},
		{"LoneCR", "ok\r**Assistant** (1)", "ok\r\\**Assistant** (1)"},
		{"CRLF", "ok\r\n---\r\n", "ok\r\n- - -\r\n"},
		{"SummaryQuote", "> Session summary (x)", `\> Session summary (x)`},
		{"Note", "↳ typed mid-turn", `\↳ typed mid-turn`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := structural.Escape(tt.in); got != tt.want {
				t.Errorf("structural.Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// copyFixture copies testdata/<name>.jsonl to a file of another name.
func copyFixture(t *testing.T, name, to string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), to)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRefusals: asked to, Render refuses a file that is not a transcript
// (no entry, or a binary with a few embedded) and a transcript of another
// session; unasked (the hooks, the MCP tools)
// it renders both.
func TestRefusals(t *testing.T) {
	const basicID = "11111111-2222-4333-8444-555555555555"
	basic0 := filepath.Join("testdata", "basic.jsonl")
	passwd := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(passwd, []byte("root:x:0:0:root:/root:/bin/bash\nbin:x:1:1::/:/sbin/nologin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A binary that embeds a sample session: a few transcript lines among
	// thousands of lines of bytes.
	embed, err := os.ReadFile(basic0)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, 0, 1<<16)
	for i := range 2000 {
		junk = append(junk, "\x7fELF\x00\x02\x01"...)
		junk = append(junk, byte(i), '\n')
	}
	binary := filepath.Join(t.TempDir(), "hookbin")
	if err := os.WriteFile(binary, append(append(junk, embed...), junk...), 0o600); err != nil {
		t.Fatal(err)
	}
	noIDs := filepath.Join(t.TempDir(), "no-ids.jsonl")
	if err := os.WriteFile(noIDs, []byte(`{"type":"user","uuid":"u1","message":{"content":"hi"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	basic := filepath.Join("testdata", "basic.jsonl")
	tests := []struct {
		name    string
		o       Options
		wantErr error
		wantMsg string
	}{
		{"Passwd", Options{TranscriptPath: passwd, RequireEntries: true}, ErrNotTranscript, "not a Claude Code transcript: 0 of 2 lines are transcript entries"},
		{"PasswdUnasked", Options{TranscriptPath: passwd}, nil, ""},
		{"Empty", Options{TranscriptPath: filepath.Join("testdata", "empty.jsonl"), RequireEntries: true}, ErrNotTranscript, "0 of 0 lines"},
		{"EmptyUnasked", Options{TranscriptPath: filepath.Join("testdata", "empty.jsonl")}, nil, ""},
		{"Binary", Options{TranscriptPath: binary, RequireEntries: true}, ErrNotTranscript, "not a Claude Code transcript: 5 of 4005 lines are transcript entries"},
		{"SomeLinesSkipped", Options{TranscriptPath: filepath.Join("testdata", "malformed.jsonl"), RequireEntries: true}, nil, ""},
		{"OtherSession", Options{SessionID: "other-1", TranscriptPath: basic, RequireSession: true}, ErrOtherSession,
			"render other-1: transcript of another session: no entry of " + basic + " carries that id (the first carries " + basicID + ")"},
		{"OtherSessionUnasked", Options{SessionID: "other-1", TranscriptPath: basic}, nil, ""},
		{"SameSession", Options{SessionID: basicID, TranscriptPath: basic, RequireSession: true}, nil, ""},
		{"NamedAfterSession", Options{SessionID: "other-1", TranscriptPath: copyFixture(t, "basic", "other-1.jsonl"), RequireSession: true}, nil, ""},
		{"NoIDs", Options{SessionID: "other-1", TranscriptPath: noIDs, RequireSession: true}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Now, tt.o.Location = fixedNow, time.UTC
			_, err := Render(context.Background(), tt.o)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Render: error %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("Render: error %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

// TestIDFromEntries: a transcript whose name is not a session id gives its
// entries' id, and the result says so.
func TestIDFromEntries(t *testing.T) {
	tests := []struct {
		path, wantID string
		wantFrom     bool
	}{
		{copyFixture(t, "basic", "not an id.jsonl"), "11111111-2222-4333-8444-555555555555", true},
		{filepath.Join("testdata", "basic.jsonl"), "basic", false},
	}
	for _, tt := range tests {
		res, err := Render(context.Background(), Options{TranscriptPath: tt.path, Now: fixedNow, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		if res.SessionID != tt.wantID || res.IDFromEntries != tt.wantFrom {
			t.Errorf("%s: SessionID %q, IDFromEntries %v; want %q, %v", tt.path, res.SessionID, res.IDFromEntries, tt.wantID, tt.wantFrom)
		}
	}
}

// TestOverBudget: a budget that folding every turn cannot meet is said in
// the result and in the bottle's notes.
func TestOverBudget(t *testing.T) {
	tests := []struct {
		fixture string
		budget  int
		want    bool
	}{
		{"basic", 10, true},
		{"interrupts", 50, true},
		{"basic", 0, false},
		{"interrupts", DefaultBudgetTokens, false},
	}
	for _, tt := range tests {
		res, err := Render(context.Background(), Options{TranscriptPath: filepath.Join("testdata", tt.fixture+".jsonl"),
			BudgetTokens: tt.budget, Now: fixedNow, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		md := string(res.Markdown)
		note := strings.Contains(md, "\n## Notes\n\n- over budget: the bottle stays at about ")
		if (res.OverBudget != "") != tt.want || note != tt.want || slices.Contains(res.Notes, res.OverBudget) != tt.want {
			t.Errorf("%s, budget %d: OverBudget %q, note in the bottle %v, notes %q; want %v", tt.fixture, tt.budget, res.OverBudget, note, res.Notes, tt.want)
		}
		if tt.want && !strings.Contains(md, fmt.Sprintf(" estimated tokens against a budget of %d with every earlier turn folded", tt.budget)) {
			t.Errorf("%s, budget %d: the note does not name the budget:\n%s", tt.fixture, tt.budget, md)
		}
	}
}
