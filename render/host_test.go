package render

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/host/codex"
	"bottle/render/digest"
	"bottle/session"
)

// TestRenderOtherHost renders a session another host's reader produced
// (Options.Reader): the bottle needs nothing of Claude Code's format.
func TestRenderOtherHost(t *testing.T) {
	at := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	var gotPath string
	read := func(_ context.Context, path string, _ *session.ReadOptions) (*session.Transcript, error) {
		gotPath = path
		call := digest.Call{Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`), HasResult: true, Result: "a.go\nb.go"}
		return &session.Transcript{
			SessionID: "0b6c2f4e-1d2a-4c7e-9f10-2a3b4c5d6e7f", Cwd: "/work", Started: at, Last: at.Add(time.Minute), Prompts: 1,
			Tools: []session.ToolCall{{ID: "call_1", Name: "Bash", Time: at, HasResult: true, Line: digest.Describe(call, "/work")}},
			Events: []session.Event{
				{Kind: session.EvPrompt, Time: at, Text: "List the Go files."},
				{Kind: session.EvTool, Time: at, Tool: 0},
				{Kind: session.EvAssistant, Time: at.Add(time.Minute), Blocks: []string{"Two: a.go and b.go."}},
			},
		}, nil
	}
	res, err := Render(context.Background(), Options{TranscriptPath: "rollout.jsonl", Reader: read, NoBudget: true, Now: fixedNow, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "rollout.jsonl" {
		t.Errorf("the reader read %q, want rollout.jsonl", gotPath)
	}
	md := string(res.Markdown)
	for _, want := range []string{"List the Go files.", "- [#t1] Bash: ls — ok", "Two: a.go and b.go."} {
		if !strings.Contains(md, want) {
			t.Errorf("the bottle lacks %q:\n%s", want, md)
		}
	}
}

// TestGoldenCodexBottles renders every rollout of the Codex host's
// testdata with its reader into the bottle testdata/codex/<name>.md holds:
// the structure a Codex session adds (a change of working directory, a
// compaction) is where TestEscapeDerived checks it.
func TestGoldenCodexBottles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(codexTestdata, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no rollouts under %s", codexTestdata)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			res, err := Render(context.Background(), Options{TranscriptPath: f, Reader: codex.ReadSession, Now: fixedNow, Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("codex", name+".md"), res.Markdown)
		})
	}
}

// codexTestdata holds the Codex host's rollouts.
var codexTestdata = filepath.Join("..", "host", "codex", "testdata")
