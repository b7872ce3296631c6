package locate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"bottle/host/claudecode/transcript"
	"bottle/privacy"
	"bottle/session"

	"bottle/claudemem"
	"bottle/ident"
)

// Listing describes one session for `hookbin list`.
type Listing struct {
	ID string
	// Host is the host that recorded the session: HostClaudeCode or
	// HostCodex.
	Host string
	// Mode is what the session can render in: full with a transcript,
	// reconstructed from claude-mem's records alone.
	Mode           ident.Mode
	TranscriptPath string
	// Project is the transcript's folder under <config>/projects, or
	// claude-mem's project name.
	Project string
	// Cwd is the working directory of the transcript's first entry ("" when
	// none says or there is no transcript), private blocks removed.
	Cwd string
	// FirstPrompt is stripped and flattened to one line.
	FirstPrompt  string
	LastActivity time.Time
	// Stored says claude-mem holds the session; the counts are its rows.
	// A Codex thread's Prompts counts its rollout's prompts.
	Stored                           bool
	Prompts, Observations, Summaries int
	TranscriptBytes                  int64
	// Modified is the transcript's modification time when it was listed
	// (with TranscriptBytes, its stamp).
	Modified time.Time
	// Empty reports a session with no prompt and no tool call in its
	// transcript and nothing stored: one Claude Code started for a command
	// alone, nothing to continue.
	Empty bool
}

// Catalogue remembers what a listing reads of each transcript, by the
// transcript's path, size and modification time, so that a listing of a
// thousand sessions reads only the transcripts that changed.
type Catalogue interface {
	Lookup(path string, size int64, mtime time.Time) (Head, bool)
	Remember(path string, size int64, mtime time.Time, h Head)
}

// Head is what a listing reads of one transcript.
type Head struct {
	// FirstPrompt is the first genuine prompt as a listing shows it.
	FirstPrompt string
	// Cwd is the working directory of the first entry, private blocks
	// removed.
	Cwd string
	// Last is the time of the last entry (zero when none has one).
	Last time.Time
	// Empty: the file holds no prompt and no tool call.
	Empty bool
	// NotTranscript: the file is not a transcript (listings skip it).
	NotTranscript bool
}

// List lists every session with a transcript and/or stored data, newest
// activity first. With projectDir, only that project's sessions. A file
// that is not a transcript (no entry, or mostly lines that are not JSON:
// see session.Diagnostics.IsTranscript) is skipped, and the first note
// says how many were. A missing database lists transcripts only; an
// unreadable one is reported in notes.
func List(ctx context.Context, env Env, dbPath, projectDir string) (out []Listing, notes []string, err error) {
	return ListWith(ctx, env, dbPath, projectDir, nil)
}

// ListWith is List with a catalogue (nil: none).
func ListWith(ctx context.Context, env Env, dbPath, projectDir string, cat Catalogue) (out []Listing, notes []string, err error) {
	skipped := 0
	byID := map[string]*Listing{}
	// The parts of each session's last activity, put together at the end.
	type times struct{ entry, stored, modified time.Time }
	when := map[string]*times{}
	var dirs []string
	if projectDir != "" {
		dirs = ProjectDirs(env, projectDir)
	} else {
		entries, err := os.ReadDir(env.ProjectsDir())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(env.ProjectsDir(), e.Name()))
			}
		}
	}
	for _, dir := range dirs {
		for _, r := range transcriptsIn(dir) {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			// The folder's listing stamped the file (a regular one): no
			// second stat.
			var head Head
			known := false
			if cat != nil {
				head, known = cat.Lookup(r.Transcript, r.Size, r.Modified)
			}
			if !known {
				head = headOf(ctx, r.Transcript)
				if cat != nil {
					cat.Remember(r.Transcript, r.Size, r.Modified, head)
				}
			}
			if head.NotTranscript {
				skipped++
				continue
			}
			entry := head.Last
			tm := &times{entry: entry.UTC(), modified: r.Modified.UTC()}
			l := &Listing{ID: r.ID, Mode: ident.ModeFull, TranscriptPath: r.Transcript, Project: filepath.Base(dir),
				LastActivity: session.LastActivity(tm.entry, time.Time{}, tm.modified), TranscriptBytes: r.Size, Modified: r.Modified}
			l.FirstPrompt, l.Empty, l.Cwd = head.FirstPrompt, head.Empty, head.Cwd
			if prev, ok := byID[r.ID]; !ok || l.LastActivity.After(prev.LastActivity) {
				byID[r.ID], when[r.ID] = l, tm
			}
		}
	}
	for _, l := range codexListings(ctx, env, projectDir) {
		if _, ok := byID[l.ID]; !ok { // a Claude Code transcript of the id wins
			byID[l.ID], when[l.ID] = &l, &times{}
		}
	}
	if dbPath == "" {
		dbPath = env.DBPath()
	}
	if dbPath != "" {
		db, err := claudemem.Open(ctx, dbPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			notes = append(notes, "claude-mem database unreadable: "+err.Error())
		default:
			defer db.Close()
			project := ""
			if projectDir != "" {
				project = ClaudeMemProject(projectDir)
			}
			stored, err := db.Sessions(ctx, project)
			if err != nil {
				notes = append(notes, "claude-mem database unreadable: "+err.Error())
			}
			for _, s := range stored {
				if !ident.ValidSession(s.ContentSessionID) || s.Platform != "" && s.Platform != "claude" {
					continue
				}
				l, ok := byID[s.ContentSessionID]
				if !ok {
					if s.Prompts == 0 && s.Observations == 0 {
						continue // nothing to render
					}
					l = &Listing{ID: s.ContentSessionID, Mode: ident.ModeReconstructed, Project: s.Project}
					byID[s.ContentSessionID], when[s.ContentSessionID] = l, &times{}
				}
				l.Stored = true
				l.Prompts, l.Observations, l.Summaries = s.Prompts, s.Observations, s.Summaries
				l.Empty = l.Empty && s.Prompts == 0 && s.Observations == 0
				if l.FirstPrompt == "" {
					l.FirstPrompt = shownLine(s.FirstPrompt, 100)
				}
				tm := when[s.ContentSessionID]
				tm.stored = s.LastActivity
				l.LastActivity = session.LastActivity(tm.entry, tm.stored, tm.modified)
			}
		}
	}
	if skipped > 0 {
		notes = append([]string{fmt.Sprintf("%s skipped: not a Claude Code transcript (no entry, or mostly lines that are not JSON)",
			plural(skipped, "file"))}, notes...)
	}
	for _, l := range byID {
		if l.Host == "" {
			l.Host = HostClaudeCode
		}
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Listing) int {
		return cmp.Or(b.LastActivity.Compare(a.LastActivity), strings.Compare(a.ID, b.ID))
	})
	return out, notes, nil
}

// headOf reads what a listing shows of the transcript at path: up to its
// first genuine prompt, and the time of its last entry. An unreadable file
// is listed without a prompt.
func headOf(ctx context.Context, path string) Head {
	last, _ := transcript.LastEntryTime(path) // zero when unreadable or without a timestamp
	t, err := transcript.Read(ctx, path, &session.ReadOptions{UntilFirstPrompt: true, NoDigests: true})
	if err != nil {
		return Head{Last: last}
	}
	if !t.Diag.IsTranscript() {
		return Head{NotTranscript: true}
	}
	for _, e := range t.Events {
		if e.Kind == session.EvPrompt {
			text := e.Text
			if e.From != "" {
				text = e.From + ": " + text // another party's input
			}
			s := shownLine(text, 100)
			if s == "" {
				s = "(private)"
			}
			return Head{FirstPrompt: s, Cwd: privacy.Redact(privacy.Strip(t.Cwd)), Last: last}
		}
	}
	return Head{Empty: len(t.Tools) == 0, Cwd: privacy.Redact(privacy.Strip(t.Cwd)), Last: last}
}

// plural is n and what, with an s unless n is 1: "1 file", "2 files".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// shownLine is s as a listing shows it: private blocks removed, invalid
// UTF-8 and NUL bytes replaced, white space collapsed, cut to max runes.
func shownLine(s string, max int) string {
	s = privacy.Redact(privacy.Strip(s))
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	return strings.TrimRight(string(r), " ") + "…"
}
