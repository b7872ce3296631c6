package locate

import (
	"context"

	"bottle/host/codex"
	"bottle/session"
)

// Session ids name a session of either host: Claude Code's and Codex's
// are both UUIDs. An id is looked up under Claude Code's projects folder
// first; a Codex rollout of that thread id is taken only when no Claude
// Code transcript has the id, so that an id never changes meaning for the
// host bottle served first. The file then tells the host: a rollout is
// named rollout-<time>-<id>.jsonl[.zst].

// CodexHome is Codex's home folder ($CODEX_HOME, else ~/.codex); "" when
// neither is known.
func CodexHome(env Env) string { return codex.Home(env.Get, env.Home) }

// codexRollout is the rollout of thread id under Codex's home, "" when
// there is none.
func codexRollout(env Env, id string) string {
	p, err := codex.Find(CodexHome(env), id)
	if err != nil {
		return ""
	}
	return p
}

// IsCodex reports whether path is a Codex rollout (by its name).
func IsCodex(path string) bool { return codex.IsRollout(path) }

// ReaderFor is the reader of the host that wrote the file at path: Codex's
// for a rollout, else nil (Claude Code's, render's default).
func ReaderFor(path string) session.Reader {
	if codex.IsRollout(path) {
		return codex.ReadSession
	}
	return nil
}

// CurrentCodex is [Current] for a server Codex started: the newest Codex
// thread whose working directory is cwd (by its rollout's time), else what
// Current finds. A Codex session's own thread is the one its tools mean;
// Claude Code's newest transcript of the folder is another agent's.
func CurrentCodex(ctx context.Context, env Env, cwd string) (id, transcriptPath string, err error) {
	if cwd != "" {
		if refs := CodexSessions(env, cwd); len(refs) > 0 {
			return refs[0].ID, refs[0].Transcript, nil
		}
	}
	return Current(ctx, env, cwd)
}

// OtherHostSessions are the sessions that hosts other than Claude Code
// record outside its projects folder (Codex's threads), of the working
// directory folder or, with "", every one, newest first; each
// transcript's reader is ReaderFor's. Host-neutral callers (search's
// scopes) list them here without naming the hosts.
func OtherHostSessions(env Env, folder string) []SessionRef { return CodexSessions(env, folder) }
