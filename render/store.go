package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"bottle/internal/atomicfile"
)

// Errors callers branch on.
var (
	// ErrBadSessionID: the id fails SPEC §3.1's pattern and must not touch a path.
	ErrBadSessionID = errors.New("invalid session id")
	// ErrNoTranscript: no transcript of that session under the projects folder.
	ErrNoTranscript = errors.New("transcript not found")
	// ErrNothingToRender: neither a transcript nor stored data for the session.
	ErrNothingToRender = errors.New("nothing to render: no transcript and no stored prompts or observations")
)

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidSessionID reports whether id may be used in a file name.
func ValidSessionID(id string) bool {
	return sessionIDPattern.MatchString(id) && !strings.Contains(id, "..")
}

func checkID(id string) error {
	if !ValidSessionID(id) {
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

// FindTranscript finds <config>/projects/*/<id>.jsonl. When several projects
// hold the id, the most recently modified file wins. Only regular files
// count: Claude Code writes no symlinks there, and one could point anywhere.
func FindTranscript(env Env, id string) (string, error) {
	if err := checkID(id); err != nil {
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

// BottlePath is where the bottle of session id lives in dir.
func BottlePath(dir, id string) (string, error) {
	if err := checkID(id); err != nil {
		return "", err
	}
	if dir == "" || !filepath.IsAbs(dir) {
		return "", fmt.Errorf("bottles folder %q is not an absolute path (is HOME set? set BOTTLE_DIR)", dir)
	}
	return filepath.Join(dir, id+".md"), nil
}

// WriteBottle writes data as the bottle of session id in dir atomically
// (SPEC §3.7): a temp sibling, fsync, rename. The folder is created 0700 and
// the file is 0600; a failed write leaves the previous bottle intact and no
// temp file behind.
func WriteBottle(dir, id string, data []byte) (string, error) {
	path, err := BottlePath(dir, id)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create bottles dir: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// staleTemp is how old a temp sibling must be before a later write removes
// it; atomicfile.WriteFile does the removal.
const staleTemp = atomicfile.StaleAge

// ArchiveRetention is how long archived bottles are kept (Claude Code's own
// transcript retention).
const ArchiveRetention = 30 * 24 * time.Hour

// Archive moves the bottle of session id to
// <dir>/archive/<UTC yyyymmddThhmmssZ>-<id>.md and prunes archives older than
// retention (0 = ArchiveRetention). It returns "" with no error when there is
// no bottle to archive.
func Archive(dir, id string, now time.Time, retention time.Duration) (string, error) {
	src, err := BottlePath(dir, id)
	if err != nil {
		return "", err
	}
	archive := filepath.Join(dir, "archive")
	if err := os.MkdirAll(archive, 0o700); err != nil {
		return "", fmt.Errorf("create archive dir: %w", err)
	}
	stamp := now.UTC().Format("20060102T150405Z")
	dst := filepath.Join(archive, stamp+"-"+id+".md")
	// Two archives of one session in the same second keep both.
	for n := 2; ; n++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = filepath.Join(archive, fmt.Sprintf("%s-%s-%d.md", stamp, id, n))
	}
	if err := os.Rename(src, dst); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			dst = ""
		} else {
			return "", fmt.Errorf("archive bottle: %w", err)
		}
	}
	if retention <= 0 {
		retention = ArchiveRetention
	}
	if err := PruneArchive(dir, now, retention); err != nil {
		return dst, err
	}
	return dst, nil
}

// PruneArchive removes archived bottles whose timestamp (from the file
// name) is older than retention.
func PruneArchive(dir string, now time.Time, retention time.Duration) error {
	archive := filepath.Join(dir, "archive")
	entries, err := os.ReadDir(archive)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("prune archive: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var errs []error
	for _, n := range names {
		if len(n) < 17 || !strings.HasSuffix(n, ".md") {
			continue
		}
		t, err := time.Parse("20060102T150405Z", n[:16])
		if err != nil {
			continue
		}
		if now.Sub(t) > retention {
			if err := os.Remove(filepath.Join(archive, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("prune archive: %w", errors.Join(errs...))
	}
	return nil
}
