package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"bottle/host/codex"
)

// codexPayload reports whether a hook runs for Codex: install registers
// Codex's hooks with --host codex; without the flag, a transcript_path that
// names a Codex rollout of the session (rollout-<time>-<id>.jsonl) tells.
func codexPayload(host string, p hookPayload) bool {
	if host == "codex" {
		return true
	}
	base := filepath.Base(p.TranscriptPath)
	return p.SessionID != "" && strings.HasPrefix(base, "rollout-") &&
		(strings.HasSuffix(base, "-"+p.SessionID+".jsonl") || strings.HasSuffix(base, "-"+p.SessionID+".jsonl.zst"))
}

// codexHook is a hook's work for a Codex thread. It reads the thread's
// rollout and says what it holds; the bottle of a Codex thread, and so the
// pointer, need the reader's records turned into the session model every
// host renders through, which does not exist yet: until then the hook
// renders nothing and prints nothing (it does not point at a bottle that
// was never written).
func codexHook(ctx context.Context, h hook, he hookEnv, p hookPayload) (hookResult, error) {
	if h.name == "session-start" {
		switch p.Source {
		case "compact", "resume":
		case "startup", "clear":
			return hookResult{}, skipped("codex: source " + p.Source)
		default:
			return hookResult{}, skipped(fmt.Sprintf("codex: unknown source %.40q", p.Source))
		}
	}
	path, err := codexRollout(he, p)
	if err != nil {
		return hookResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return hookResult{}, err
	}
	r, err := codex.Read(path)
	if err != nil {
		return hookResult{}, err
	}
	var msgs, calls, compactions int
	for _, rec := range r.Records {
		switch {
		case rec.Item != nil && rec.Item.Type == codex.ItemMessage && rec.Item.Injected == "":
			msgs++
		case rec.Item != nil && (rec.Item.Type == codex.ItemFunctionCall || rec.Item.Type == codex.ItemCustomToolCall ||
			rec.Item.Type == codex.ItemLocalShellCall || rec.Item.Type == codex.ItemWebSearchCall):
			calls++
		case rec.Compacted != nil:
			compactions++
		}
	}
	return hookResult{}, skipped(fmt.Sprintf("codex thread: %d messages, %d tool calls, %d compactions (%s); "+
		"not rendered: a Codex thread's bottle needs the host-neutral session model", msgs, calls, compactions, r.Diag))
}

// codexRollout is the thread's rollout: the payload's transcript_path when
// it names a file, else the one found by thread id under $CODEX_HOME.
func codexRollout(he hookEnv, p hookPayload) (string, error) {
	if path, err := payloadTranscript(p); path != "" || err != nil {
		return path, err
	}
	return codex.Find(codex.Home(he.env.Get, he.env.Home), p.SessionID)
}
