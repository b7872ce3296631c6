package tools

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"bottle/pointer"
)

// TestPromptsListGolden pins what Claude Code sees of the prompts (it
// offers them as /mcp__bottle__<name>). Refresh with
// go test ./tools -run TestPromptsListGolden -update.
func TestPromptsListGolden(t *testing.T) {
	c := newClient(t, newFixture(t).deps)
	res, err := c.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "prompts_list.golden.json", "prompts/list", res.Prompts)
}

func getPrompt(t *testing.T, f *fixture, args map[string]string) (string, error) {
	t.Helper()
	c := newClient(t, f.deps)
	req := mcp.GetPromptRequest{}
	req.Params.Name, req.Params.Arguments = "continue_session", args
	res, err := c.GetPrompt(context.Background(), req)
	if err != nil {
		return "", err
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("messages %+v, want one user message", res.Messages)
	}
	tc, ok := mcp.AsTextContent(res.Messages[0].Content)
	if !ok {
		t.Fatalf("content %T, want text", res.Messages[0].Content)
	}
	return tc.Text, nil
}

func TestContinueSession(t *testing.T) {
	f := searchFixture(t)
	got, err := getPrompt(t, f, map[string]string{"session_id": sidA})
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, got, "# [bottle] Endless Mode — session continuation\n", f.bottlePath(sidA)+"   (session "+sidA+")",
		"This conversation starts without it", "Current task: second prompt about the gadget")
	if strings.Contains(got, "summary above") {
		t.Errorf("the fresh pointer speaks of a summary above it:\n%s", got)
	}
	if _, err := os.Stat(f.bottlePath(sidA)); err != nil {
		t.Errorf("no bottle written: %v", err)
	}
	// A session only claude-mem holds: reconstructed.
	got, err = getPrompt(t, f, map[string]string{"session_id": sidB})
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, got, "It is a partial reconstruction", sidB)
	for _, tc := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{}, "needs a session_id"},
		{map[string]string{"session_id": "../x"}, "invalid session_id"},
		{map[string]string{"session_id": "dddddddd-0000-4000-8000-000000000000"}, "Nothing to render"},
	} {
		_, err := getPrompt(t, f, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestContinueSessionAcrossHosts: continue_session picks up a session of
// either host in a server of either host: the pointer is worded for the
// host the server runs in (Claude Code's Read, or Codex's namespace and
// shell) and names the host that recorded the session when it is the
// other one.
func TestContinueSessionAcrossHosts(t *testing.T) {
	const thread = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	codexHost := pointer.Host{Name: "Codex CLI", Namespace: "mcp__bottle", ReadWith: "exec_command"}
	tests := []struct {
		name      string
		host      pointer.Host
		id        string
		want, not []string
	}{
		{"codex thread in claude code", pointer.Host{}, thread,
			[]string{"Before doing anything else, Read this file", "- It was recorded by Codex CLI: the bottle is its whole record",
				"(session " + thread + ")", "Current task: "},
			[]string{"namespace", "exec_command"}},
		{"claude code session in codex", codexHost, sidA,
			[]string{"Before doing anything else, read this file", "- It was recorded by Claude Code. Read it with read_bottle (in the mcp__bottle namespace",
				"Current task: second prompt about the gadget"},
			[]string{"Codex CLI", "mcp__bottle__read_bottle"}},
		{"codex thread in codex", codexHost, thread,
			[]string{"- It was recorded by Codex CLI. Read it with read_bottle"}, []string{"Claude Code"}},
		{"claude code session in claude code", pointer.Host{}, sidA,
			[]string{"Read this file", "mcp__bottle__read_bottle"}, []string{"recorded by"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := searchFixture(t)
			f.addCodexRollout(t, thread, "compact_mid_turn.jsonl")
			f.deps.Host = tt.host
			got, err := getPrompt(t, f, map[string]string{"session_id": tt.id})
			if err != nil {
				t.Fatal(err)
			}
			wantContains(t, got, tt.want...)
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("pointer holds %q:\n%s", n, got)
				}
			}
			if _, err := os.Stat(f.bottlePath(tt.id)); err != nil {
				t.Errorf("no bottle written: %v", err)
			}
			// Codex offers no MCP prompt: its server has the tool, with
			// the prompt's pointer as its result.
			c := newClient(t, f.deps)
			if tt.host.Name == "" {
				list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
				if err != nil {
					t.Fatal(err)
				}
				for _, tool := range list.Tools {
					if tool.Name == "continue_session" {
						t.Error("Claude Code's server offers continue_session as a tool; it has the prompt")
					}
				}
				return
			}
			if tool := wantOK(t, call(t, c, "continue_session", map[string]any{"session_id": tt.id})); tool != got {
				t.Errorf("the tool's result differs from the prompt's pointer:\n%s\nwant:\n%s", tool, got)
			}
		})
	}
}

// TestContinueSessionToolErrors: the tool's refusals say what to do.
func TestContinueSessionToolErrors(t *testing.T) {
	f := searchFixture(t)
	f.deps.Host = pointer.Host{Name: "Codex CLI", Namespace: "mcp__bottle", ReadWith: "exec_command"}
	c := newClient(t, f.deps)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "needs a session_id"},
		{map[string]any{"session_id": "../x"}, "invalid session_id"},
		{map[string]any{"session_id": "dddddddd-0000-4000-8000-000000000000"}, "Nothing to render"},
		{map[string]any{"session_id": sidA, "budget_tokens": 1}, "budget_tokens"},
	} {
		wantError(t, call(t, c, "continue_session", tc.args), tc.want)
	}
}

// TestRenderBottleCodexHost: render_bottle's report, in a server Codex
// started, says how to read the file without Claude Code's Read tool.
func TestRenderBottleCodexHost(t *testing.T) {
	f := searchFixture(t)
	f.deps.Host = pointer.Host{Name: "Codex CLI", Namespace: "mcp__bottle", ReadWith: "exec_command (sed -n)"}
	got := wantOK(t, call(t, newClient(t, f.deps), "render_bottle", map[string]any{"session_id": sidA}))
	wantContains(t, got, "Page it with read_bottle {", "or read it with exec_command (sed -n).\n")
	if strings.Contains(got, "Read tool") {
		t.Errorf("the report names Claude Code's Read tool:\n%s", got)
	}
	// A bottle longer than one Read of Claude Code's is paged the same.
	const long = "33333333-4444-4555-8666-777777777777"
	f.writeTranscript(t, long, manyTurns(40, 3000), fixedNow)
	got = wantOK(t, call(t, newClient(t, f.deps), "render_bottle", map[string]any{"session_id": long, "budget_tokens": 0}))
	wantContains(t, got, "Page it with read_bottle {", "or read it with exec_command (sed -n).\n")
	if strings.Contains(got, "one Read") {
		t.Errorf("the report of a long bottle speaks of Claude Code's Read:\n%s", got)
	}
}

// TestCurrentSessionPerHost: a call that names no session means the
// newest session of the server's own host in its folder: Claude Code's
// newest transcript for Claude Code's server, the newest Codex thread for
// the server Codex started, which falls back to Claude Code's transcript
// when the folder has no Codex thread.
func TestCurrentSessionPerHost(t *testing.T) {
	const thread = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	codexHost := pointer.Host{Name: "Codex CLI", Namespace: "mcp__bottle", ReadWith: "exec_command"}
	tests := []struct {
		name   string
		host   pointer.Host
		thread bool // a Codex thread of the folder exists
		want   string
	}{
		{"claude code server", pointer.Host{}, true, "current session: the newest transcript of "},
		{"codex server", codexHost, true, "current session: the newest Codex thread of "},
		{"codex server, no thread", codexHost, false, "(Claude Code's: no Codex thread there)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := searchFixture(t)
			if tt.thread {
				f.addCodexRollout(t, thread, "compact_mid_turn.jsonl")
			}
			f.deps.Host = tt.host
			c := newClient(t, f.deps)
			got := text(t, call(t, c, "render_bottle", map[string]any{}))
			wantID := sidA
			if tt.host.Name != "" && tt.thread {
				wantID = thread
			}
			wantContains(t, got, "Rendered the bottle of session "+wantID+" (current session: ", tt.want)
		})
	}
}
