package locate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Errors callers branch on.
var (
	// ErrBadSessionID means the id fails [IDPattern] (or holds "..") and must not
	// touch a path.
	ErrBadSessionID = errors.New("invalid session id")
	// ErrNoTranscript means there is no transcript of the session under
	// the projects folder.
	ErrNoTranscript = errors.New("transcript not found")
)

// IDPattern is the grammar of a session id (docs/format.md, "Where things
// live"), as a regular
// expression for schemas; [ValidID] also refuses "..".
const IDPattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`

// ValidID reports whether id may be used in a file name: IDPattern, and
// no "..". It checks by hand: compiling the pattern's {0,127} cost every
// hook's start-up half a millisecond and 1,700 allocations.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 128 || !idByte(id[0]) || id[0] == '.' || id[0] == '_' || id[0] == '-' {
		return false
	}
	for i := 1; i < len(id); i++ {
		if !idByte(id[i]) {
			return false
		}
	}
	return !strings.Contains(id, "..")
}

// idByte reports whether c may stand in a session id (after its first byte).
func idByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
}

// CheckID returns an [ErrBadSessionID] error naming id (cut to 64 bytes)
// when id is not a valid session id.
func CheckID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%w %q", ErrBadSessionID, truncateID(id))
	}
	return nil
}

func truncateID(id string) string {
	if len(id) > 64 {
		return id[:64] + "…"
	}
	return id
}

// Transcript finds <config>/projects/*/<id>.jsonl. When several projects
// hold the id, the most recently modified file wins. Only regular files
// count: Claude Code writes no symlinks there, and one could point anywhere.
func Transcript(env Env, id string) (string, error) {
	if err := CheckID(id); err != nil {
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
