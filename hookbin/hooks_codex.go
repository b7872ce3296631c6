package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"bottle/bottles"
	"bottle/host/codex"
	"bottle/pointer"
	"bottle/render"
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

// codexHook is a hook's work for a Codex thread: the bottle rendered from
// its rollout, through the session model every host renders through. The
// SessionStart hook answers with the pointer after a compaction (source
// compact), and on resume of a thread whose restored context lacks it;
// Stop and SessionEnd re-render the bottle.
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
	var since codex.SinceCompaction
	if h.name == "session-start" && p.Source == "resume" {
		r, err := codex.Read(path)
		if err != nil {
			return hookResult{}, err
		}
		since = codex.Since(r)
		switch {
		case !since.Compacted:
			// Codex restores the whole thread: a pointer would duplicate it.
			return hookResult{}, skipped("codex: no compaction in the rollout")
		case since.Prompts == 0:
			// The compaction was the thread's last act, made by this very
			// resume: the SessionStart of source compact that follows points.
			return hookResult{}, skipped("codex: compacted just now; the compact hook points")
		}
	}
	res, bottle, err := renderCodex(ctx, he, p, path)
	if err != nil && h.name == "session-start" && p.Source == "compact" {
		return codexStalePointer(ctx, he, p, err)
	}
	if err != nil || h.name != "session-start" {
		return res.hookResult, err
	}
	if pointer.HoldsFor(since.HookContext, bottle, p.SessionID, codex.Wording) {
		// The context Codex restores already points at this same file,
		// which now holds everything up to this resume.
		res.note = "refreshed; the restored context already holds its pointer"
		return res.hookResult, nil
	}
	r := res.result
	task, generated := r.CurrentTask()
	ptr := pointer.Text(pointer.Input{BottlePath: bottle, SessionID: r.SessionID, Mode: r.Mode, CurrentTask: task,
		TaskGenerated: generated, NeedsPaging: r.NeedsPaging, LastActive: r.LastActivity, Now: he.now,
		Standalone: r.Standalone, Host: codex.Wording})
	answer, err := sessionStartAnswer(ptr)
	if err != nil {
		return res.hookResult, err
	}
	res.answer = answer
	return res.hookResult, nil
}

// codexStalePointer answers a SessionStart after a compaction whose render
// or write failed with cause, as stalePointer does for Claude Code: when
// the thread has a bottle from an earlier render, the pointer names it and
// says it could not be refreshed; otherwise, or once the hook has given
// up, nothing is answered and cause is the outcome.
func codexStalePointer(ctx context.Context, he hookEnv, p hookPayload, cause error) (hookResult, error) {
	var skip skipped
	if ctx.Err() != nil || errors.As(cause, &skip) {
		return hookResult{}, cause
	}
	bottle, head, written, err := bottles.Written(he.env.BottlesDir(), p.SessionID, 1024)
	if err != nil {
		return hookResult{}, cause
	}
	mode := render.ModeOf(head)
	answer, err := sessionStartAnswer(pointer.Text(pointer.Input{BottlePath: bottle, SessionID: p.SessionID, Mode: mode,
		Now: he.now, NotRefreshed: written, Host: codex.Wording}))
	if err != nil {
		return hookResult{}, cause
	}
	return hookResult{answer: answer, mode: mode,
		note: fmt.Sprintf("not refreshed (%s); pointed at the bottle rendered %s", logText(cause), written.UTC().Format(time.RFC3339))}, nil
}

// codexRender is a render of a Codex thread and what the hook logs of it.
type codexRender struct {
	hookResult
	result *render.Result
}

// renderCodex renders the thread of the rollout at path and writes its
// bottle, returning the bottle's path.
func renderCodex(ctx context.Context, he hookEnv, p hookPayload, path string) (codexRender, string, error) {
	fitMemory(path)
	res, err := he.render(ctx, render.Options{SessionID: p.SessionID, TranscriptPath: path, Reader: codex.ReadSession, DBPath: he.env.DBPath()})
	if err != nil {
		return codexRender{}, "", err
	}
	out := codexRender{hookResult: hookResult{mode: res.Mode}, result: res}
	if res.Empty() {
		return out, "", skipped("empty thread: no prompt and no tool call")
	}
	bottle, err := writeBottle(ctx, he, res)
	if err != nil {
		return out, "", err
	}
	return out, bottle, nil
}

// codexRollout is the thread's rollout: the payload's transcript_path when
// it names a file, else the one found by thread id under $CODEX_HOME.
func codexRollout(he hookEnv, p hookPayload) (string, error) {
	if path, err := payloadTranscript(p); path != "" || err != nil {
		return path, err
	}
	path, err := codex.Find(codex.Home(he.env.Get, he.env.Home), p.SessionID)
	if errors.Is(err, codex.ErrNoRollout) {
		return "", skipped("codex: no rollout of the thread")
	}
	return path, err
}
