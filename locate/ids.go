package locate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"bottle/ident"
)

// ErrNoTranscript means there is no transcript of the session under the
// projects folder.
var ErrNoTranscript = errors.New("transcript not found")

// Transcript finds <config>/projects/*/<id>.jsonl. When several projects
// hold the id, the most recently modified file wins; when none does, the
// Codex rollout of thread id (see [CodexHome]) is the transcript. Only regular files
// count: Claude Code writes no symlinks there, and one could point anywhere.
func Transcript(env Env, id string) (string, error) {
	if err := ident.CheckSession(id); err != nil {
		return "", err
	}
	matches, err := filepath.Glob(filepath.Join(env.ProjectsDir(), "*", id+".jsonl"))
	if err != nil {
		return "", fmt.Errorf("find transcript: %w", err)
	}
	best, bestTime := "", time.Time{}
	for _, m := range matches {
		fi, err := os.Lstat(m)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if best == "" || fi.ModTime().After(bestTime) {
			best, bestTime = m, fi.ModTime()
		}
	}
	if best == "" {
		if p := codexRollout(env, id); p != "" {
			return p, nil
		}
		return "", fmt.Errorf("%w: session %s under %s", ErrNoTranscript, id, env.ProjectsDir())
	}
	return best, nil
}

// Sources are the records a render of one session reads.
type Sources struct {
	// Transcript is the transcript's path; "" when there is none.
	Transcript string
	// TranscriptErr says why Transcript is empty (an [ErrNoTranscript]).
	TranscriptErr error
	// DB is claude-mem's database path ("" when no data folder is known;
	// the file may not exist).
	DB string
}

// Find resolves the sources of session id: transcriptPath when given, else
// its transcript under the projects folder (see [Transcript]); dbPath when
// given, else [Env.DBPath]. A session without a transcript is not an
// error: Sources.TranscriptErr says so.
func Find(env Env, id, transcriptPath, dbPath string) (Sources, error) {
	s := Sources{Transcript: transcriptPath, DB: dbPath}
	if s.DB == "" {
		s.DB = env.DBPath()
	}
	if s.Transcript == "" && id != "" {
		p, err := Transcript(env, id)
		switch {
		case errors.Is(err, ErrNoTranscript):
			s.TranscriptErr = err
		case err != nil:
			return Sources{}, err
		}
		s.Transcript = p
	}
	return s, nil
}
