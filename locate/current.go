package locate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"bottle/claudemem"
	"bottle/host/claudecode/transcript"
	"bottle/ident"
	"bottle/session"
)

// ErrNoCurrentSession means that neither a transcript of the project nor a
// stored claude-mem session of it was found.
var ErrNoCurrentSession = errors.New("no current session")

// maxDirName is the length at which Claude Code cuts a project folder name
// and appends a hash, as Claude Code does.
const maxDirName = 200

// ProjectDirName is the name Claude Code gives the folder of the project at
// cwd under <config>/projects/: every character of the absolute cwd that is not
// an ASCII letter or digit becomes '-' (counted in UTF-16 units, as
// JavaScript does, so a character outside the BMP becomes "--"). A name longer
// than 200 characters is cut to 200 and suffixed with '-' and the base-36 djb2
// hash of cwd — the hash Claude Code computes under Node. Claude Code's native
// (Bun) build uses another hash for such names; [ProjectDirs] also finds
// those.
func ProjectDirName(cwd string) string {
	units := utf16.Encode([]rune(cwd))
	b := make([]byte, len(units))
	for i, u := range units {
		if u < 0x80 && isAlnum(byte(u)) {
			b[i] = byte(u)
		} else {
			b[i] = '-'
		}
	}
	if len(b) <= maxDirName {
		return string(b)
	}
	return string(b[:maxDirName]) + "-" + strconv.FormatInt(djb2Abs(units), 36)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// djb2Abs is Math.abs of Claude Code's djb2Hash: hash = (hash<<5) - hash + unit
// in signed 32-bit arithmetic, from 0, over UTF-16 units.
func djb2Abs(units []uint16) int64 {
	var h int32
	for _, u := range units {
		h = h<<5 - h + int32(u)
	}
	v := int64(h) // widened first: Math.abs(-2^31) is 2^31
	if v < 0 {
		v = -v
	}
	return v
}

// ProjectDirs returns the folders under env's projects folder that may hold the
// transcripts of the project at cwd, existing ones only: the folder of cwd as
// given and of cwd with symlinks resolved (Claude Code records the path its
// process was started in, which may be either). For names over 200 characters
// the folder with the expected djb2 suffix is used when it exists, else every
// folder sharing the 200-character prefix.
func ProjectDirs(env Env, cwd string) []string {
	projects := env.ProjectsDir()
	var names []string
	for _, c := range cwdForms(cwd) {
		name := ProjectDirName(c)
		if isDir(filepath.Join(projects, name)) {
			names = append(names, name)
			continue
		}
		if len(name) <= maxDirName {
			continue
		}
		entries, err := os.ReadDir(projects)
		if err != nil {
			continue
		}
		prefix := name[:maxDirName+1]
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
				names = append(names, e.Name())
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	dirs := make([]string, len(names))
	for i, n := range names {
		dirs[i] = filepath.Join(projects, n)
	}
	return dirs
}

// cwdForms is cwd made absolute, and its symlink-resolved form when that
// differs.
func cwdForms(cwd string) []string {
	if cwd == "" {
		return nil
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil
	}
	forms := []string{abs}
	if r, err := filepath.EvalSymlinks(abs); err == nil && r != abs {
		forms = append(forms, r)
	}
	return forms
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// SessionRef is a session of a project as [Sessions] lists it.
type SessionRef struct {
	ID string
	// Transcript is the transcript's path ("" when only claude-mem holds the
	// session).
	Transcript string
	// Modified is the transcript's modification time, else the stored
	// session's last activity.
	Modified time.Time
	// Size is the transcript's size when the listing read it (with
	// Modified, the stamp a search index checks its copy against).
	Size int64
	// Stored reports whether claude-mem's database holds the session.
	Stored bool
}

// LastActivity is the session's last activity as listings show it
// (session.LastActivity): its transcript's last entry, else Modified.
func (r SessionRef) LastActivity() time.Time {
	var entry time.Time
	if r.Transcript != "" {
		if t, err := transcript.LastEntryTime(r.Transcript); err == nil {
			entry = t.UTC()
		}
	}
	return session.LastActivity(entry, time.Time{}, r.Modified)
}

// Sessions lists the sessions of the project at cwd, newest first: the
// transcripts directly inside its folders under <config>/projects/ (regular
// files named <sessionId>.jsonl; subagent files "agent-*.jsonl" are not
// sessions), then the sessions claude-mem stored for the project (see
// [ClaudeMemProject]) that have no transcript. A missing or unreadable
// database is skipped: listing is best effort.
func Sessions(ctx context.Context, env Env, cwd string) []SessionRef {
	var stored []claudemem.SessionInfo
	if db, err := claudemem.Open(ctx, env.DBPath()); err == nil && cwd != "" {
		stored, _ = db.Sessions(ctx, ClaudeMemProject(cwd))
		db.Close()
	} else if err == nil {
		db.Close()
	}
	return SessionsWith(env, stored, cwd)
}

// SessionsWith is [Sessions] with claude-mem's sessions of the project
// listed already (claudemem.DB.Sessions of [ClaudeMemProject](cwd); nil:
// transcripts only).
func SessionsWith(env Env, stored []claudemem.SessionInfo, cwd string) []SessionRef {
	byID := map[string]*SessionRef{}
	for _, dir := range ProjectDirs(env, cwd) {
		for _, r := range transcriptsIn(dir) {
			if prev, ok := byID[r.ID]; !ok || r.Modified.After(prev.Modified) {
				byID[r.ID] = &r
			}
		}
	}
	addStored(stored, byID)
	return sortRefs(byID)
}

// AllSessions lists the sessions of every project, as [SessionsWith] does
// for one: the transcripts directly inside each folder under
// <config>/projects/, newest first, then the Claude Code sessions of stored
// (claudemem.DB.Sessions of every project) that have no transcript.
func AllSessions(env Env, stored []claudemem.SessionInfo) []SessionRef {
	byID := map[string]*SessionRef{}
	entries, _ := os.ReadDir(env.ProjectsDir())
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		for _, r := range transcriptsIn(filepath.Join(env.ProjectsDir(), e.Name())) {
			if prev, ok := byID[r.ID]; !ok || r.Modified.After(prev.Modified) {
				byID[r.ID] = &r
			}
		}
	}
	addStored(stored, byID)
	return sortRefs(byID)
}

// addStored marks the sessions of byID that claude-mem stored and adds the
// Claude Code ones without a transcript.
func addStored(stored []claudemem.SessionInfo, byID map[string]*SessionRef) {
	for _, s := range stored {
		if s.Platform != "" && s.Platform != "claude" || !ident.ValidSession(s.ContentSessionID) {
			continue
		}
		if r, ok := byID[s.ContentSessionID]; ok {
			r.Stored = true
			continue
		}
		byID[s.ContentSessionID] = &SessionRef{ID: s.ContentSessionID, Modified: s.LastActivity, Stored: true}
	}
}

// sortRefs lists refs newest first, transcripts before stored-only
// sessions.
func sortRefs(byID map[string]*SessionRef) []SessionRef {
	out := make([]SessionRef, 0, len(byID))
	for _, r := range byID {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b SessionRef) int {
		// Transcripts first: they are what "current" means.
		if (a.Transcript != "") != (b.Transcript != "") {
			if a.Transcript != "" {
				return -1
			}
			return 1
		}
		return cmp.Or(b.Modified.Compare(a.Modified), strings.Compare(a.ID, b.ID))
	})
	return out
}

// transcriptsIn lists the session transcripts directly inside dir.
func transcriptsIn(dir string) []SessionRef {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []SessionRef
	for _, e := range entries {
		id, ok := transcriptName(e.Name())
		// Regular files only: a symlink could point out of the projects folder.
		if !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, SessionRef{ID: id, Transcript: filepath.Join(dir, e.Name()), Modified: fi.ModTime(), Size: fi.Size()})
	}
	return out
}

// transcriptName is the session id of a transcript's file name, if it is
// one.
func transcriptName(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ".jsonl")
	return id, ok && ident.ValidSession(id) && !strings.HasPrefix(id, "agent-")
}

// transcriptRef is the transcript name in dir as transcriptsIn lists it,
// if it is one.
func transcriptRef(dir, name string) (SessionRef, bool) {
	id, ok := transcriptName(name)
	if !ok {
		return SessionRef{}, false
	}
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return SessionRef{}, false
	}
	return SessionRef{ID: id, Transcript: p, Modified: fi.ModTime(), Size: fi.Size()}, true
}

// storedSessions lists claude-mem's Claude Code sessions of the project at
// cwd, newest activity first; nil when there is no readable database.
func storedSessions(ctx context.Context, env Env, cwd string) []claudemem.SessionInfo {
	if cwd == "" {
		return nil
	}
	db, err := claudemem.Open(ctx, env.DBPath())
	if err != nil {
		return nil
	}
	defer db.Close()
	list, err := db.Sessions(ctx, ClaudeMemProject(cwd))
	if err != nil {
		return nil
	}
	out := list[:0]
	for _, s := range list {
		if (s.Platform == "" || s.Platform == "claude") && ident.ValidSession(s.ContentSessionID) {
			out = append(out, s)
		}
	}
	return out
}

// Current is the session a tool call means when it names none: the
// most recently modified transcript directly inside the project folder of cwd
// (see [ProjectDirs]), else the claude-mem session of cwd's project with the
// newest activity (transcriptPath is then ""). It returns an error wrapping
// [ErrNoCurrentSession] when there is neither.
func Current(ctx context.Context, env Env, cwd string) (id, transcriptPath string, err error) {
	if cwd == "" {
		return "", "", fmt.Errorf("%w: no working directory", ErrNoCurrentSession)
	}
	var best SessionRef
	for _, dir := range ProjectDirs(env, cwd) {
		for _, r := range transcriptsIn(dir) {
			if best.ID == "" || r.Modified.After(best.Modified) {
				best = r
			}
		}
	}
	if best.ID != "" {
		return best.ID, best.Transcript, nil
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	if stored := storedSessions(ctx, env, cwd); len(stored) > 0 {
		return stored[0].ContentSessionID, "", nil
	}
	return "", "", fmt.Errorf("%w: no transcript in %s and no claude-mem session of project %q",
		ErrNoCurrentSession, filepath.Join(env.ProjectsDir(), ProjectDirName(absOr(cwd))), ClaudeMemProject(cwd))
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// worktreeGitdir matches the gitdir line of a worktree's .git file:
// <parent repo>/.git/worktrees/<name>.
var worktreeGitdir = regexp.MustCompile(`^(.+)[/\\]\.git[/\\]worktrees[/\\]([^/\\]+)$`)

// ClaudeMemProject is the project name claude-mem stores for sessions started
// in cwd (its getProjectContext): the base name of the git work tree holding
// cwd, else of cwd itself; "<parent>/<name>" when cwd is the root of a linked
// git worktree of the repository <parent>; "unknown-project" for an empty cwd
// or a root directory ("drive-C" for C:\ on Windows). The work tree is found
// by looking for .git upwards, as `git rev-parse --show-toplevel` does,
// without running git.
func ClaudeMemProject(cwd string) string {
	if strings.TrimSpace(cwd) == "" {
		return "unknown-project"
	}
	abs := absOr(cwd)
	name := filepath.Base(gitTopLevel(abs))
	if name == "" || name == "." || name == string(filepath.Separator) {
		if runtime.GOOS == "windows" {
			if v := filepath.VolumeName(abs); len(v) == 2 && v[1] == ':' {
				return "drive-" + strings.ToUpper(v[:1])
			}
		}
		return "unknown-project"
	}
	if parent := worktreeParent(abs); parent != "" {
		return parent + "/" + name
	}
	return name
}

// gitTopLevel is the nearest folder at or above dir that holds a .git entry
// (symlinks resolved, as git reports it), else dir.
func gitTopLevel(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if r, err := filepath.EvalSymlinks(d); err == nil {
				return r
			}
			return d
		} else if !errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// worktreeParent is the base name of the main repository when dir's .git is a
// file pointing into <repo>/.git/worktrees/, else "".
func worktreeParent(dir string) string {
	p := filepath.Join(dir, ".git")
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return ""
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "gitdir:")
	if !ok {
		return ""
	}
	m := worktreeGitdir.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return ""
	}
	return filepath.Base(m[1])
}
