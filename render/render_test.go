package render

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/render/transcript"

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
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file %s (run go test ./render -update): %v", path, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
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

// TestClassification pins each rule of reference/transcript-format.md §5
// and §6 by what the bottle shows.
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
		{fixture: "ide-context", turns: 1, contains: []string{"Why does this panic?", "Reply to a selection only."}, forbidden: []string{"ide_opened_file", "The user opened the file"}},
		{fixture: "day-change", turns: 2, contains: []string{"**User** (23:58)", "**Assistant** (2026-01-06 00:03)", "**User** (08:00)"}},
		{fixture: "no-prompt", turns: 0, contains: []string{"## Before the first prompt", "/review the parser\nplease", "↳ assistant (10:04):\nThe parser looks fine.", "_(no prompt in this session yet)_"}},
		{fixture: "empty", turns: 0, contains: []string{"_(no prompt in this session yet)_"}},
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
			for _, s := range tt.contains {
				if !strings.Contains(md, s) {
					t.Errorf("bottle lacks %q", s)
				}
			}
			for _, s := range tt.forbidden {
				if strings.Contains(md, s) {
					t.Errorf("bottle contains %q", s)
				}
			}
			got := res.Diag
			got.Lines = 0
			if got != tt.diag {
				t.Errorf("Diag = %+v, want %+v", got, tt.diag)
			}
		})
	}
}

// structuralLines lists the lines of md that read as bottle structure.
func structuralLines(md string) []string {
	var out []string
	for _, l := range strings.Split(md, "\n") {
		if l == "---" || structuralAt(l) != 0 {
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
		"project: /home/dev/proj · started: 2026-01-05T10:01:00Z · rendered: 2026-01-05T12:00:00Z",
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
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
