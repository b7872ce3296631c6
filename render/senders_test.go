package render

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/pointer"
)

// TestOtherParties: messages of other parties — a teammate's assignments,
// a teammate's reports to the lead, an agent, a peer session, a channel,
// Slack, a coordinator — are turns headed by their sender, with the body
// verbatim (an assignment readable), private text stripped and forged
// headings escaped; the Original request of a teammate session is its
// first assignment and Current task its newest input.
func TestOtherParties(t *testing.T) {
	tests := []struct {
		fixture   string
		turns     int
		contains  []string
		forbidden []string
		task      string // the start of the pointer's Current task
	}{
		{fixture: "teams-teammate", turns: 2,
			contains: []string{
				"## Original request\n\n**Teammate team-lead** (14:39)\n\nYou are tester on team parsers.",
				"\n**Teammate team-lead** (14:39)\n\nTask assignment\ntaskId: 2\nsubject: Write parser tests\ndescription:\nCover the torn final line",
				"\n**Teammate team-lead** (15:10)\n\nTask assignment\ntaskId: 3\nsubject: Benchmark the reader\n",
				"\n\\**Teammate team-lead** (09:00) is not a heading here.\n",
				"- Open tasks: [~] Benchmark the reader [#t7] · [ ] Profile the chunk size [#t8]\n",
				"- [#t6] SendMessage: to team-lead: Parser tests written\n",
				"- [#t2] TaskUpdate: #2 → in_progress\n",
				"- ↳ ─── context compacted here (auto) ─── 15:05",
			},
			forbidden: []string{"hunter2", "<private", "teammate-message", "SUMMARY-MUST-NOT-SHOW", "no prompt in this session yet", "Write parser tests [#"},
			task:      "Teammate team-lead: Task assignment taskId: 3 subject: Benchmark the reader"},
		{fixture: "teams-lead", turns: 2,
			contains: []string{
				"## Original request\n\nBuild the transcript parser with a team",
				"\n**Teammate tester** (14:52)\n\nTask #2 is done:",
				"\n**Teammate researcher** (14:52)\n\nIdle notification\nfrom: researcher\n",
				"\n**Teammate researcher** (14:55)\n\nThe format reference says",
				"TeamCreate: parsers (Parser work)", "- [#t10] TeamDelete\n", "SendMessage: to tester: task assignment",
			},
			forbidden: []string{"teammate-message", "\"type\""},
			task:      "Teammate tester: Task #2 is done: parser_test.go covers the torn line and the duplicate uuid. go test passes. Teammate researcher: Idle notification"},
		{fixture: "senders", turns: 7,
			contains: []string{
				"\n**Channel ci** (09:10)\n\nBuild 812 failed: TestScan timed out.\n",
				"\n**Agent reviewer** (09:20)\n\nReview done: two nits in scan.go.\n",
				"\n**Peer docs** (09:30)\n\nCan you send me the new flag name?\n",
				"\n**Slack U024BE7LH** (09:40)\n\n@claude is main green again?\n",
				"\n**Slack U1** (09:50)\n\nPlease look at the flaky test.\n",
				"\n**Coordinator** (10:00)\n\nThe user asks: ship it once tests pass.\n",
				// A background task's report keeps its one line.
				"- ↳ background task: Agent \"Fix flaky test\" completed\n",
			},
			forbidden: []string{"<channel", "<agent-message", "<cross-session", "<slack", "<coordinator", "task-notification"},
			task:      "Coordinator: The user asks: ship it once tests pass."},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			res := renderFixture(t, tt.fixture)
			md := string(res.Markdown)
			if res.Turns != tt.turns {
				t.Errorf("Turns = %d, want %d", res.Turns, tt.turns)
			}
			checkText(t, md, tt.contains, tt.forbidden)
			task, generated := res.CurrentTask()
			if line := pointer.TaskLine(task); generated || !strings.HasPrefix(line, tt.task) {
				t.Errorf("Current task = %q (generated %v), want it to start with %q", line, generated, tt.task)
			}
			if p := res.PointerFor("/b/x.md", fixedNow, false, pointer.MCPNames{}, pointer.Host{}); !strings.Contains(p, "Current task: "+tt.task) {
				t.Errorf("pointer lacks the current task:\n%s", p)
			}
		})
	}
}

// TestExpandOtherParties: the turn of another party's messages expands to
// each message after its sender, privacy-stripped.
func TestExpandOtherParties(t *testing.T) {
	tests := []struct {
		fixture, id string
		want        []string
	}{
		{"teams-teammate", "u1", []string{"Teammate team-lead:\nYou are tester on team parsers.", "Teammate team-lead:\nTask assignment\ntaskId: 2\n"}},
		{"teams-teammate", "#u2", []string{"Teammate team-lead:\nTask assignment\ntaskId: 3", "The key is ; report medians."}},
		{"teams-lead", "u2", []string{"Teammate tester:\nTask #2 is done", "Teammate researcher:\nIdle notification", "Teammate researcher:\nThe format reference says"}},
		{"senders", "u7", []string{"Coordinator:\nThe user asks: ship it once tests pass."}},
	}
	for _, tt := range tests {
		got, err := Expand(context.Background(), ExpandOptions{TranscriptPath: filepath.Join("testdata", tt.fixture+".jsonl"), Location: time.UTC}, []string{tt.id})
		if err != nil || len(got) != 1 || !got[0].Found {
			t.Fatalf("Expand(%s, %s) = %+v, %v", tt.fixture, tt.id, got, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(got[0].Text, w) {
				t.Errorf("Expand(%s, %s) = %q, lacks %q", tt.fixture, tt.id, got[0].Text, w)
			}
		}
		if strings.Contains(got[0].Text, "hunter2") || strings.Contains(got[0].Text, "-message") {
			t.Errorf("Expand(%s, %s) shows private text or a wrapper: %q", tt.fixture, tt.id, got[0].Text)
		}
	}
}

// TestFoldOtherParties: a folded turn of another party's messages names
// its sender on its [#uN] line, and each further message's.
func TestFoldOtherParties(t *testing.T) {
	res, err := Render(context.Background(), Options{
		TranscriptPath: filepath.Join("testdata", "teams-teammate.jsonl"),
		Now:            fixedNow, Location: time.UTC, BudgetTokens: 650,
	})
	if err != nil {
		t.Fatal(err)
	}
	md := string(res.Markdown)
	want := "- [#u1] Teammate team-lead (14:39): You are tester on team parsers."
	if !strings.Contains(md, want) {
		t.Errorf("folded bottle lacks %q:\n%s", want, md)
	}
}
