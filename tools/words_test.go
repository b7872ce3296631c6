package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"bottle/host/codex"
	"bottle/internal/goldentest"
)

// serverTexts are what a server's model reads of it: its initialize
// instructions and its tools/list as JSON.
func serverTexts(t *testing.T, d Deps) (instructions string, list []byte) {
	t.Helper()
	c, res := startClient(t, NewServer(d, "test"))
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	list, err = json.MarshalIndent(tools.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return res.Instructions, list
}

// TestHostWords: the server Codex starts words its instructions and every
// tool's texts for Codex — no Read tool, the tools as functions of the
// mcp__bottle namespace, read_bottle to read a bottle, the summary not
// steered — within Codex's and Claude Code's 2 KB per text; Claude Code's
// are as they were (the goldens).
func TestHostWords(t *testing.T) {
	for _, tt := range []struct {
		name   string
		deps   func(Deps) Deps
		golden string
		want   []string
		never  []string
	}{
		{name: "claude code", deps: func(d Deps) Deps { return d }, golden: "instructions.golden.txt",
			want: []string{"Read that file (Read tool)", "mcp__bottle__read_bottle"}},
		{name: "codex", deps: func(d Deps) Deps { d.Host = codex.Wording; return d }, golden: "instructions_codex.golden.txt",
			want: []string{"keeps a Codex CLI session readable", "Read it with read_bottle", "read_bottle pages the bottle",
				"functions of the mcp__bottle namespace", "bottle does not steer it", "exec_command (sed -n",
				"Read bottles with it: Codex CLI has no file-reading tool", "a Codex CLI thread id"},
			never: []string{"Read tool", "one Read", "Claude Code session id (the transcript", "bottle of a Claude Code session", "Claude Code names the tools", "mcp__bottle__"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			instructions, list := serverTexts(t, tt.deps(newFixture(t).deps))
			goldentest.Check(t, "testdata/"+tt.golden, []byte(instructions+"\n"), *update)
			if n := len(instructions); n > 2048 {
				t.Errorf("instructions are %d bytes, want ≤ 2048", n)
			}
			all := instructions + "\n" + string(list)
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("the server's texts lack %q", w)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(all, n) {
					t.Errorf("the server's texts say %q:\n%s", n, all)
				}
			}
		})
	}
}

// TestCodexToolsListGolden pins what Codex's model sees of every tool.
func TestCodexToolsListGolden(t *testing.T) {
	d := newFixture(t).deps
	d.Host = codex.Wording
	c := newClient(t, d)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tools_list_codex.golden.json", "tools/list under Codex", res.Tools)
	for _, tool := range res.Tools {
		if n := len(tool.Description); n > 2048 {
			t.Errorf("%s description is %d bytes, want ≤ 2048", tool.Name, n)
		}
	}
}

// TestHostPhrases: every phrase a host's wording replaces is in Claude
// Code's texts, so that none is left behind by an edit of a text; and
// none is replaced for Claude Code.
func TestHostPhrases(t *testing.T) {
	instructions, list := serverTexts(t, newFixture(t).deps)
	var tools []mcp.Tool
	if err := json.Unmarshal(list, &tools); err != nil {
		t.Fatal(err)
	}
	texts := []string{instructions}
	for _, tool := range tools {
		texts = append(texts, tool.Description)
		for _, p := range tool.InputSchema.Properties {
			if m, ok := p.(map[string]any); ok {
				if s, ok := m["description"].(string); ok {
					texts = append(texts, s)
				}
			}
		}
	}
	all := strings.Join(texts, "\n")
	pairs := hostPhrases(codex.Wording)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(all, pairs[i]) {
			t.Errorf("no text of the server holds the phrase %q that Codex's wording replaces", pairs[i])
		}
		if got := (Deps{}).worded(pairs[i]); got != pairs[i] {
			t.Errorf("Claude Code's wording changed %q to %q", pairs[i], got)
		}
	}
}
