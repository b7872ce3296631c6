package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexHooks: Codex's payloads are recognised (by --host codex, or by a
// rollout transcript_path), the rollout is read, found by thread id under
// $CODEX_HOME when the payload has no path, and the hooks print nothing and
// write no bottle: a Codex thread is not rendered yet.
func TestCodexHooks(t *testing.T) {
	w := newHookWorld(t)
	codexHome := filepath.Join(w.home, "codexhome")
	t.Setenv("CODEX_HOME", codexHome)
	const id = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	src, err := os.ReadFile(filepath.Join("..", "host", "codex", "testdata", "compact_mid_turn.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rollout := filepath.Join(codexHome, "sessions", "2026", "12", "04", "rollout-2026-12-04T06-17-51-"+id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(rollout), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rollout, src, 0o600); err != nil {
		t.Fatal(err)
	}
	payload := func(fields map[string]any) string {
		p := map[string]any{"session_id": id, "cwd": w.home, "model": "gpt-5", "permission_mode": "bypassPermissions"}
		for k, v := range fields {
			p[k] = v
		}
		b, _ := json.Marshal(p)
		return string(b)
	}
	tests := []struct {
		name, cmd, payload string
		args               []string
		log                string
	}{
		{"compact, flagged", "session-start", payload(map[string]any{"hook_event_name": "SessionStart", "source": "compact", "transcript_path": rollout}), []string{"--host", "codex"},
			"skipped: codex thread: 2 messages, 1 tool calls, 1 compactions"},
		{"compact, told by its rollout path", "session-start", payload(map[string]any{"hook_event_name": "SessionStart", "source": "compact", "transcript_path": rollout}), nil,
			"skipped: codex thread: 2 messages"},
		{"no path: found by thread id", "stop", payload(map[string]any{"hook_event_name": "Stop", "turn_id": "t", "last_assistant_message": "x"}), []string{"--host", "codex"},
			"skipped: codex thread: 2 messages"},
		{"startup", "session-start", payload(map[string]any{"hook_event_name": "SessionStart", "source": "startup", "transcript_path": rollout}), []string{"--host", "codex"},
			"skipped: codex: source startup"},
		{"session end", "session-end", payload(map[string]any{"hook_event_name": "SessionEnd", "reason": "other", "transcript_path": rollout}), []string{"--host", "codex"},
			"skipped: codex thread"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(w.logPath())
			out, _ := w.hook(t, tt.cmd, tt.payload, tt.args...)
			if out != "" {
				t.Errorf("stdout %q, want nothing (no pointer before a Codex bottle exists)", out)
			}
			log, _ := os.ReadFile(w.logPath())
			if !strings.Contains(string(log), tt.log) {
				t.Errorf("log %q, want %q", log, tt.log)
			}
			if entries, _ := os.ReadDir(w.bottlesDir()); len(entries) != 0 {
				t.Errorf("a bottle was written for a Codex thread: %v", entries)
			}
		})
	}
}
