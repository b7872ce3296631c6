package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"bottle/locate"
)

// FuzzSessionStartPayload: whatever arrives on stdin, session-start returns
// nil and prints nothing or exactly one JSON object of the right shape.
func FuzzSessionStartPayload(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s1","transcript_path":"","cwd":"/x","hook_event_name":"SessionStart","source":"compact"}`,
		`{"session_id":"../../etc/passwd","source":"compact"}`,
		`{"session_id":"s1","source":"resume","transcript_path":"/dev/zero"}`,
		`{"source":"startup"}`, `{}`, `null`, `[`, "", "\x00\xff",
	} {
		f.Add([]byte(s))
	}
	home := f.TempDir()
	env := locate.Env{Home: home, Getenv: func(k string) string {
		switch k {
		case "CLAUDE_CONFIG_DIR":
			return filepath.Join(home, ".claude")
		case "CLAUDE_MEM_DATA_DIR":
			return filepath.Join(home, "mem")
		}
		return ""
	}}
	f.Fuzz(func(t *testing.T, payload []byte) {
		var out bytes.Buffer
		if err := runSessionStart(context.Background(), defaultDeps(), nil, env, bytes.NewReader(payload), &out); err != nil {
			t.Fatalf("session-start returned %v", err)
		}
		if out.Len() == 0 {
			return
		}
		var answer struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&answer); err != nil || dec.More() || answer.HookSpecificOutput.HookEventName != "SessionStart" {
			t.Fatalf("stdout is not one SessionStart answer: %q (%v)", out.String(), err)
		}
	})
}
