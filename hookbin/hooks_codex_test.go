package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"bottle/render"
)

// codexWorld is a hook world with a CODEX_HOME holding one rollout.
type codexWorld struct {
	*hookWorld
	rollout string
}

func newCodexWorld(t *testing.T, id string, rollout []byte) codexWorld {
	w := newHookWorld(t)
	codexHome := filepath.Join(w.home, "codexhome")
	t.Setenv("CODEX_HOME", codexHome)
	path := filepath.Join(codexHome, "sessions", "2026", "12", "04", "rollout-2026-12-04T06-17-51-"+id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, rollout, 0o600); err != nil {
		t.Fatal(err)
	}
	return codexWorld{w, path}
}

func codexFixture(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "host", "codex", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func codexHookPayload(id, cwd string, fields map[string]any) string {
	p := map[string]any{"session_id": id, "cwd": cwd, "model": "gpt-5", "permission_mode": "bypassPermissions"}
	for k, v := range fields {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// TestCodexHooks: Codex's payloads are recognised (by --host codex, or by a
// rollout transcript_path), the rollout is found by thread id under
// $CODEX_HOME when the payload has no path, the bottle is rendered from it,
// and SessionStart after a compaction answers with the pointer worded for
// Codex; Stop and SessionEnd write the bottle and print nothing.
func TestCodexHooks(t *testing.T) {
	const id = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	w := newCodexWorld(t, id, codexFixture(t, "compact_mid_turn.jsonl"))
	payload := func(fields map[string]any) string { return codexHookPayload(id, w.home, fields) }
	tests := []struct {
		name, cmd, payload string
		args               []string
		pointer            bool
		bottle             bool
		log                string
	}{
		{"compact, flagged", "session-start", payload(map[string]any{"hook_event_name": "SessionStart", "source": "compact", "transcript_path": w.rollout}), []string{"--host", "codex"},
			true, true, "ok"},
		{"compact, told by its rollout path", "session-start", payload(map[string]any{"hook_event_name": "SessionStart", "source": "compact", "transcript_path": w.rollout}), nil,
			true, true, "ok"},
		{"no path: found by thread id", "stop", payload(map[string]any{"hook_event_name": "Stop", "turn_id": "t", "last_assistant_message": "x"}), []string{"--host", "codex"},
			false, true, "ok"},
		{"startup", "session-start", payload(map[string]any{"hook_event_name": "SessionStart", "source": "startup", "transcript_path": w.rollout}), []string{"--host", "codex"},
			false, false, "skipped: codex: source startup"},
		{"session end", "session-end", payload(map[string]any{"hook_event_name": "SessionEnd", "reason": "other", "transcript_path": w.rollout}), []string{"--host", "codex"},
			false, true, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(w.bottlesDir())
			os.Remove(w.logPath())
			out, _ := w.hook(t, tt.cmd, tt.payload, tt.args...)
			ptr := parseAnswer(t, out)
			if got := ptr != ""; got != tt.pointer {
				t.Fatalf("pointer %v, want %v: %q", got, tt.pointer, out)
			}
			if got := w.lastOutcome(t); !strings.HasPrefix(got, tt.log) {
				t.Errorf("log %q, want %q", got, tt.log)
			}
			entries, _ := os.ReadDir(w.bottlesDir())
			if got := len(entries) > 0; got != tt.bottle {
				t.Fatalf("bottle written %v, want %v", got, tt.bottle)
			}
			if !tt.bottle {
				return
			}
			md, err := os.ReadFile(filepath.Join(w.bottlesDir(), id+".md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"recorded by Codex CLI", "CALL_SHELL: echo midturn", "exec_command: echo midturn — ok"} {
				if !bytes.Contains(md, []byte(want)) {
					t.Errorf("bottle lacks %q:\n%s", want, md)
				}
			}
			if !tt.pointer {
				return
			}
			for _, want := range []string{"Codex CLI", "mcp__bottle", "read_bottle", "expand_observation", "search_history", "exec_command", id} {
				if !strings.Contains(ptr, want) {
					t.Errorf("pointer lacks %q:\n%s", want, ptr)
				}
			}
			for _, bad := range []string{"Read this file", "one Read", "mcp__bottle__", "Read it in parts"} {
				if strings.Contains(ptr, bad) {
					t.Errorf("pointer holds Claude Code's wording %q:\n%s", bad, ptr)
				}
			}
			if n := render.EstimateTokens(len(ptr)); n > 2500 {
				t.Errorf("pointer is %d tokens, over Codex's 2,500", n)
			}
		})
	}
}

// TestCodexResume: on resume the pointer is given only when the thread was
// compacted, no compaction hook is about to give it (the compaction made by
// this resume is the rollout's last act), and the restored context, what
// follows the last compaction, does not hold it already.
func TestCodexResume(t *testing.T) {
	const id = "01a23fb3-c93e-7f72-ab6d-669d263682d3"
	full := codexFixture(t, "compact_pre_turn.jsonl")
	lines := bytes.SplitAfter(full, []byte("\n"))
	var atCompaction []byte
	for _, l := range lines {
		atCompaction = append(atCompaction, l...)
		if bytes.Contains(l, []byte(`"type":"compacted"`)) {
			break
		}
	}
	resume := func(w codexWorld) (string, string) {
		out, _ := w.hook(t, "session-start", codexHookPayload(id, w.home, map[string]any{"hook_event_name": "SessionStart",
			"source": "resume", "transcript_path": w.rollout}), "--host", "codex")
		return parseAnswer(t, out), w.lastOutcome(t)
	}
	t.Run("never compacted", func(t *testing.T) {
		w := newCodexWorld(t, id, codexFixture(t, "exec_tool.jsonl"))
		if ptr, log := resume(w); ptr != "" || !strings.Contains(log, "no compaction") {
			t.Errorf("pointer %q, log %q", ptr, log)
		}
	})
	t.Run("compacted by this resume", func(t *testing.T) {
		w := newCodexWorld(t, id, atCompaction)
		if ptr, log := resume(w); ptr != "" || !strings.Contains(log, "compacted just now") {
			t.Errorf("pointer %q, log %q", ptr, log)
		}
	})
	t.Run("compacted earlier, no pointer since", func(t *testing.T) {
		w := newCodexWorld(t, id, full)
		if ptr, log := resume(w); ptr == "" {
			t.Errorf("no pointer; log %q", log)
		}
	})
	t.Run("compacted earlier, pointer restored", func(t *testing.T) {
		w := newCodexWorld(t, id, full)
		out, _ := w.hook(t, "session-start", codexHookPayload(id, w.home, map[string]any{"hook_event_name": "SessionStart",
			"source": "compact", "transcript_path": w.rollout}), "--host", "codex")
		ptr := parseAnswer(t, out)
		if ptr == "" {
			t.Fatal("no pointer after the compaction")
		}
		// Codex records the hook's context after the compaction.
		ctx := map[string]any{"timestamp": "2026-12-04T06:18:00.000Z", "type": "response_item", "payload": map[string]any{
			"type": "message", "role": "developer", "content": []map[string]any{{"type": "input_text", "text": ptr}},
			"internal_chat_message_metadata_passthrough": map[string]any{"content_item_kinds": []string{"hooks.additional_context"}}}}
		line, _ := json.Marshal(ctx)
		f, err := os.OpenFile(w.rollout, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(append(line, '\n'))
		f.Close()
		if ptr, log := resume(w); ptr != "" || !strings.Contains(log, "already holds its pointer") {
			t.Errorf("pointer %q, log %q", ptr, log)
		}
	})
}

// TestCodexRenderByID: "hookbin render <thread id>" renders a Codex
// thread found under $CODEX_HOME, saying the host; a Claude Code
// transcript of the same id wins over the rollout.
func TestCodexRenderByID(t *testing.T) {
	const id = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	w := newCodexWorld(t, id, codexFixture(t, "compact_mid_turn.jsonl"))
	if err := os.MkdirAll(filepath.Join(w.config, "projects"), 0o700); err != nil {
		t.Fatal(err)
	}
	render := func() string {
		out, _ := w.hook(t, "render", "", id, "--out", "-")
		return out
	}
	if md := render(); !strings.Contains(md, "recorded by Codex CLI") || !strings.Contains(md, "exec_command: echo midturn — ok") {
		t.Errorf("the Codex thread's bottle:\n%s", md)
	}
	w.transcript(t, id, "basic")
	if md := render(); strings.Contains(md, "Codex CLI") || strings.Contains(md, "midturn") {
		t.Errorf("a Claude Code transcript of the id did not win over the rollout:\n%s", md)
	}
}

// TestCodexStalePointer: when the render after a compaction fails, the
// pointer names the bottle an earlier render wrote and says it could not
// be refreshed; with no earlier bottle nothing is answered.
func TestCodexStalePointer(t *testing.T) {
	const id = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	w := newCodexWorld(t, id, codexFixture(t, "compact_mid_turn.jsonl"))
	compact := func() string {
		out, _ := w.hook(t, "session-start", codexHookPayload(id, w.home, map[string]any{"hook_event_name": "SessionStart",
			"source": "compact", "transcript_path": w.rollout}), "--host", "codex")
		return parseAnswer(t, out)
	}
	old := w.deps.render
	failing := func(context.Context, render.Options) (*render.Result, error) { return nil, errors.New("disk on fire") }
	w.deps.render = failing
	if ptr := compact(); ptr != "" {
		t.Errorf("a pointer with no bottle to name:\n%s", ptr)
	}
	w.deps.render = old
	if ptr := compact(); ptr == "" || strings.Contains(ptr, "could not be refreshed") {
		t.Fatalf("the first render's pointer: %q", ptr)
	}
	w.deps.render = failing
	ptr := compact()
	for _, want := range []string{"could not be refreshed", "recorded by Codex CLI", id + ".md"} {
		if !strings.Contains(ptr, want) {
			t.Errorf("stale pointer lacks %q:\n%s", want, ptr)
		}
	}
	if got := w.lastOutcome(t); !strings.Contains(got, "not refreshed (disk on fire)") {
		t.Errorf("log %q", got)
	}
}

// TestCodexList: "hookbin list" shows the Codex threads beside Claude
// Code's sessions, newest first, with each session's host and, over more
// than one project, the thread's working directory as its project.
func TestCodexList(t *testing.T) {
	const id = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	w := newCodexWorld(t, id, codexFixture(t, "compact_mid_turn.jsonl"))
	if err := os.MkdirAll(filepath.Join(w.config, "projects"), 0o700); err != nil {
		t.Fatal(err)
	}
	w.transcript(t, "cccccccc-0000-4000-8000-000000000001", "basic")
	out, _ := w.hook(t, "list", "")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !slices.Equal(strings.Fields(lines[0])[:3], []string{"SESSION", "PROJECT", "HOST"}) || !strings.HasPrefix(lines[1], id) {
		t.Fatalf("two sessions of two projects with a HOST column, the newer first:\n%s", out)
	}
	hosts := map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		hosts[f[0]] = f[1] + " " + f[2]
	}
	if got := hosts[id]; got != "/sandbox/work codex" {
		t.Errorf("the Codex thread's project and host: %q\n%s", got, out)
	}
	if got := hosts["cccccccc-0000-4000-8000-000000000001"]; !strings.HasSuffix(got, " claude-code") {
		t.Errorf("the Claude Code session's host: %q\n%s", got, out)
	}
}

// TestRenderPointerAcrossHosts: "hookbin render --pointer" prints the
// fresh-session pointer, worded for Claude Code or (--host codex) for
// Codex, naming the host that recorded the session when it is the other.
func TestRenderPointerAcrossHosts(t *testing.T) {
	const thread = "01a23fb3-b428-7550-a450-ac58f3e0d6d7"
	const sid = "cccccccc-0000-4000-8000-000000000001"
	w := newCodexWorld(t, thread, codexFixture(t, "compact_mid_turn.jsonl"))
	if err := os.MkdirAll(filepath.Join(w.config, "projects"), 0o700); err != nil {
		t.Fatal(err)
	}
	w.transcript(t, sid, "basic")
	tests := []struct {
		name string
		args []string
		want []string
		not  string
	}{
		{"codex thread for claude code", []string{thread, "--pointer"},
			[]string{"Read this file", "(session " + thread + ")", "- It was recorded by Codex CLI: "}, "exec_command"},
		{"claude code session for codex", []string{sid, "--pointer", "--host", "codex"},
			[]string{"read this file", "(session " + sid + ")", "- It was recorded by Claude Code. Read it with read_bottle (in the mcp__bottle namespace"}, "Codex CLI"},
		{"claude code session for claude code", []string{sid, "--pointer"}, []string{"Read this file"}, "recorded by"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := w.hook(t, "render", "", tt.args...)
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("pointer lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, tt.not) {
				t.Errorf("pointer holds %q:\n%s", tt.not, out)
			}
		})
	}
}
