package locate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"bottle/host/codex"
	"bottle/ident"
	"bottle/privacy"
	"bottle/session"
)

// The hosts a listing names (Listing.Host).
const (
	HostClaudeCode = "claude-code"
	HostCodex      = "codex"
)

// codexListings lists the Codex threads under Codex's home, one per
// thread id ([CodexSessions]); with projectDir, only the threads whose
// working directory (their session_meta's or first turn_context's cwd) is
// that folder. A rollout that does not read is left out.
func codexListings(ctx context.Context, env Env, projectDir string) []Listing {
	want := ""
	if projectDir != "" {
		want = filepath.Clean(projectDir)
	}
	var out []Listing
	for _, r := range CodexSessions(env, projectDir) {
		id, path := r.ID, r.Transcript
		if ctx.Err() != nil {
			return out
		}
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		t, err := codex.ReadSession(ctx, path, &session.ReadOptions{NoDigests: true})
		if err != nil {
			continue
		}
		cwd := privacy.Redact(privacy.Strip(t.Cwd))
		if want != "" && (t.Cwd == "" || filepath.Clean(t.Cwd) != want) {
			continue
		}
		l := Listing{ID: id, Host: HostCodex, Mode: ident.ModeFull, TranscriptPath: path, Cwd: cwd,
			TranscriptBytes: fi.Size(), Modified: fi.ModTime(), LastActivity: session.LastActivity(t.Last.UTC(), time.Time{}, fi.ModTime().UTC())}
		if t.Cwd != "" {
			l.Project = ProjectDirName(t.Cwd)
		}
		for _, e := range t.Events {
			if e.Kind != session.EvPrompt {
				continue
			}
			if l.Prompts++; l.Prompts == 1 {
				if l.FirstPrompt = shownLine(e.Text, 100); l.FirstPrompt == "" {
					l.FirstPrompt = "(private)"
				}
			}
		}
		l.Empty = l.Prompts == 0 && len(t.Tools) == 0
		out = append(out, l)
	}
	return out
}

// CodexSessions lists the Codex threads under Codex's home as sessions,
// their rollouts as the transcripts, newest first: one per thread id (the
// plain rollout before its compressed copy, the newest name first); with
// cwd, only the threads whose rollout's first line (its session_meta) names
// that folder or none (a listing then checks the whole rollout's), passing
// over the others unread. Sessions and Current never hold them: a folder's
// current session is Claude Code's.
func CodexSessions(env Env, cwd string) []SessionRef {
	home := CodexHome(env)
	if home == "" {
		return nil
	}
	var files []string
	for _, pattern := range []string{
		filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl*"),
		filepath.Join(home, "archived_sessions", "rollout-*.jsonl*"),
		filepath.Join(home, "archived_sessions", "*", "*", "*", "rollout-*.jsonl*"),
	} {
		m, _ := filepath.Glob(pattern) // the patterns are well-formed
		files = append(files, m...)
	}
	byID := map[string]string{}
	for _, f := range files {
		id := rolloutID(f)
		if id == "" || !ident.ValidSession(id) {
			continue
		}
		if prev, ok := byID[id]; !ok || betterRollout(f, prev) {
			byID[id] = f
		}
	}
	want := ""
	if cwd != "" {
		want = filepath.Clean(cwd)
	}
	refs := map[string]*SessionRef{}
	for id, path := range byID {
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if want != "" {
			if c, err := codex.MetaCwd(path); err != nil || c != "" && filepath.Clean(c) != want {
				continue
			}
		}
		refs[id] = &SessionRef{ID: id, Transcript: path, Modified: fi.ModTime(), Size: fi.Size()}
	}
	return sortRefs(refs)
}

// rolloutID is the thread id in a rollout's name,
// rollout-<YYYY-MM-DDThh-mm-ss>-<id>.jsonl[.zst]; "" when it has none.
func rolloutID(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".zst"), ".jsonl")
	rest, ok := strings.CutPrefix(base, "rollout-")
	if !ok || !strings.HasSuffix(filepath.Base(path), ".jsonl") && !strings.HasSuffix(filepath.Base(path), ".jsonl.zst") {
		return ""
	}
	const stamp = len("2006-01-02T15-04-05-")
	if len(rest) <= stamp {
		return ""
	}
	return rest[stamp:]
}

// betterRollout reports whether rollout a is read before b of the same
// thread: a plain file before a compressed copy, then the newer name.
func betterRollout(a, b string) bool {
	az, bz := strings.HasSuffix(a, ".zst"), strings.HasSuffix(b, ".zst")
	if az != bz {
		return bz
	}
	return filepath.Base(a) > filepath.Base(b)
}
