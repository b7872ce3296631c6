package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"bottle/render"
)

// hostileRollout is a rollout with text in every field Codex writes that
// a bottle may show: each holds a private block and a credential.
func hostileRollout(t *testing.T, secret, cred string) string {
	t.Helper()
	h := func(what string) string { return what + " <private>" + secret + "</private> " + cred + " end" }
	rec := func(typ string, payload any) string {
		b, err := json.Marshal(map[string]any{"timestamp": "2026-11-20T09:00:00.000Z", "type": typ, "payload": payload})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	msg := func(role, text string, kinds ...string) map[string]any {
		m := map[string]any{"type": "message", "role": role, "content": []map[string]any{{"type": "input_text", "text": text}}}
		if kinds != nil {
			m["internal_chat_message_metadata_passthrough"] = map[string]any{"content_item_kinds": kinds}
		}
		return m
	}
	// Codex writes JSON inside a string (arguments, an older version's
	// output) without escaping '<', as serde does.
	args := func(v any) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(b.String())
	}
	call := func(name, ns string, a any, id string) map[string]any {
		m := map[string]any{"type": "function_call", "name": name, "arguments": args(a), "call_id": id}
		if ns != "" {
			m["namespace"] = ns
		}
		return m
	}
	out := func(id string, o any) map[string]any {
		return map[string]any{"type": "function_call_output", "call_id": id, "output": o}
	}
	dir := "/home/u/" + h("proj")
	lines := []string{
		rec("session_meta", map[string]any{"id": "019a7c00-2222-7222-8333-444455556666", "cwd": dir, "cli_version": "0.171.0"}),
		rec("turn_context", map[string]any{"cwd": dir + "/sub"}),
		rec("response_item", msg("user", h("prompt"), "user.text")),
		rec("response_item", map[string]any{"type": "reasoning", "summary": []map[string]any{{"type": "summary_text", "text": h("reasoning")}}}),
		rec("response_item", call("exec_command", "", map[string]any{"cmd": h("echo")}, "c1")),
		rec("response_item", out("c1", "Chunk ID: 1\nProcess exited with code 2\nOutput:\nerror: "+h("output"))),
		rec("response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
			"input": "*** Begin Patch\n*** Update File: " + h("a.go") + "\n*** Add File: b/" + h("b.go") + "\n*** End Patch"}),
		rec("response_item", map[string]any{"type": "custom_tool_call_output", "call_id": "c2", "output": "failed: " + h("patch")}),
		rec("response_item", call("update_plan", "", map[string]any{"plan": []map[string]any{{"step": h("step"), "status": "in_progress"}}}, "c3")),
		rec("response_item", out("c3", "Plan updated")),
		rec("response_item", call("request_user_input", "", map[string]any{"questions": []map[string]any{{"id": "q", "header": h("header"), "question": h("question")}}}, "c4")),
		rec("response_item", out("c4", args(map[string]any{"answers": map[string]any{"q": map[string]any{"answers": []string{h("answer")}}}}))),
		rec("response_item", call("view_image", "", map[string]any{"path": "/img/" + h("shot.png")}, "c5")),
		rec("response_item", out("c5", "ok")),
		rec("response_item", map[string]any{"type": "web_search_call", "status": "completed", "action": map[string]any{"type": "search", "query": h("query")}}),
		rec("response_item", call("search_history", "mcp__bottle", map[string]any{"query": h("mcp")}, "c6")),
		rec("response_item", out("c6", []map[string]any{{"type": "input_text", "text": h("mcp output")}})),
		rec("response_item", call("some_tool", "", map[string]any{"x": h("generic")}, "c7")),
		rec("response_item", out("c7", h("generic output"))),
		rec("response_item", call("shell", "", map[string]any{"command": []string{"bash", "-lc", h("shell")}}, "c8")),
		rec("response_item", out("c8", args(map[string]any{"output": h("shell output"), "metadata": map[string]any{"exit_code": 1}}))),
		rec("response_item", call("write_stdin", "", map[string]any{"session_id": 3, "chars": h("stdin")}, "c9")),
		rec("response_item", msg("developer", h("hook context"), "hooks.additional_context")),
		rec("response_item", map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": h("reply")}}}),
		rec("compacted", map[string]any{"message": h("summary"), "replacement_history": []any{msg("user", h("replaced"))}}),
		rec("event_msg", map[string]any{"type": "agent_message", "message": h("event reply")}),
	}
	path := filepath.Join(t.TempDir(), "rollout-2026-11-20T09-00-00-019a7c00-2222-7222-8333-444455556666.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostileRollout: a private block and a credential in every field of
// a rollout reach neither the bottle nor the expansion of any id.
func TestHostileRollout(t *testing.T) {
	const secret = "SECRET-7f3a"
	cred := "ghp_" + strings.Repeat("a1B2", 9)
	path := hostileRollout(t, secret, cred)
	res, err := render.Render(context.Background(), render.Options{TranscriptPath: path, Reader: ReadSession, NoBudget: true,
		Now: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	md := string(res.Markdown)
	for _, want := range []string{"prompt", "reply", "exec_command: echo", "apply_patch", "update_plan", "view_image", "web_search", "bottle/search_history", "some_tool", "shell: shell", "write_stdin"} {
		if !strings.Contains(md, want) {
			t.Errorf("bottle lacks %q (the field is not shown, so the test proves nothing of it):\n%s", want, md)
		}
	}
	ids := []string{"#u1", "#a1"}
	for i := 1; i <= res.ToolCalls; i++ {
		ids = append(ids, "#t"+strconv.Itoa(i))
	}
	exps, err := render.Expand(context.Background(), render.ExpandOptions{TranscriptPath: path, Reader: ReadSession}, ids)
	if err != nil {
		t.Fatal(err)
	}
	all := md
	for _, e := range exps {
		if !e.Found {
			t.Errorf("%s not expanded", e.ID)
		}
		all += "\n" + e.Text
	}
	for _, bad := range []string{secret, cred, "<private>"} {
		if strings.Contains(all, bad) {
			t.Errorf("%q reached the bottle or an expansion:\n%s", bad, all)
		}
	}
}
