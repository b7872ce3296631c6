package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinksNoSQLite: the binary's point is its start-up time, which SQLite's
// and the renderer's package initialisation would triple; neither may enter
// its imports, however indirectly.
func TestLinksNoSQLite(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps printed %q: too few packages to be the list", out)
	}
	for _, d := range deps {
		if d == "bottle/render" {
			t.Errorf("pretooluse links the renderer")
		}
		for _, banned := range []string{"modernc.org/sqlite", "bottle/claudemem", "bottle/search", "bottle/locate", "github.com/mark3labs/mcp-go"} {
			if d == banned || strings.HasPrefix(d, banned+"/") {
				t.Errorf("pretooluse links %s", d)
			}
		}
	}
}

// TestRun: the binary answers as `hookbin pre-tool-use` does (hookbin's
// table test covers every case of the shared decision): a Read of a bottle
// and bottle's tools are allowed, anything else gets no output, and the
// switch turns it off.
func TestRun(t *testing.T) {
	home := t.TempDir()
	bottles := filepath.Join(home, "bottles")
	bottle := filepath.Join(bottles, "11111111-2222-4333-8444-555555555555.md")
	other := filepath.Join(home, "notes.txt")
	for _, f := range []string{bottle, other} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("text\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("BOTTLE_DIR", bottles)
	t.Setenv("CLAUDE_MEM_DATA_DIR", filepath.Join(home, "mem"))
	read := func(path string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": home, "hook_event_name": "PreToolUse",
			"tool_name": "Read", "tool_input": map[string]any{"file_path": path}})
		return string(b)
	}
	tool := func(name string) string {
		b, _ := json.Marshal(map[string]any{"tool_name": name, "tool_input": map[string]any{}})
		return string(b)
	}
	tests := []struct {
		name, payload, off, allow string
	}{
		{"Bottle", read(bottle), "", "bottles folder"},
		{"OtherFile", read(other), "", ""},
		{"SettingsTool", tool("mcp__bottle__read_bottle"), "", "read_bottle"},
		{"PluginTool", tool("mcp__plugin_bottle_bottle__search_history"), "", "search_history"},
		{"OtherTool", tool("mcp__other__read_bottle"), "", ""},
		{"Off", read(bottle), "0", ""},
		{"NotJSON", "Read " + bottle, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BOTTLE_ALLOW_READS", tt.off)
			var stdout, stderr bytes.Buffer
			if err := run(nil, strings.NewReader(tt.payload), &stdout, &stderr, func(int) { t.Error("exit called before the deadline") }); err != nil {
				t.Fatalf("run: %v", err)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr %q, want nothing", stderr.String())
			}
			got := stdout.String()
			if tt.allow == "" {
				if got != "" {
					t.Errorf("printed %q, want no decision", got)
				}
				return
			}
			var answer struct {
				HookSpecificOutput struct {
					HookEventName, PermissionDecision, PermissionDecisionReason string
				}
			}
			if err := json.Unmarshal([]byte(got), &answer); err != nil || strings.Count(got, "\n") != 1 {
				t.Fatalf("answer %q is not one JSON line: %v", got, err)
			}
			a := answer.HookSpecificOutput
			if a.HookEventName != "PreToolUse" || a.PermissionDecision != "allow" || !strings.Contains(a.PermissionDecisionReason, tt.allow) {
				t.Errorf("answer %+v, want allow with a reason naming %q", a, tt.allow)
			}
		})
	}
}
