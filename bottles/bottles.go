package bottles

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"bottle/ident"
	"bottle/internal/atomicfile"
)

// Path is where the bottle of session id lives in dir.
func Path(dir, id string) (string, error) {
	if err := ident.CheckSession(id); err != nil {
		return "", err
	}
	if dir == "" || !filepath.IsAbs(dir) {
		return "", fmt.Errorf("bottles folder %q is not an absolute path (is HOME set? set BOTTLE_DIR)", dir)
	}
	return filepath.Join(dir, id+".md"), nil
}

// Written returns the path of the bottle of session id in dir, when it
// lies there as a regular file, and its first n bytes (or fewer) and
// modification time: when it was last written. A missing bottle is an
// error that wraps fs.ErrNotExist; anything but a regular file (a folder,
// a symlink, a FIFO) is refused unopened.
func Written(dir, id string, n int) (path string, head []byte, modified time.Time, err error) {
	path, err = Path(dir, id)
	if err != nil {
		return "", nil, time.Time{}, err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return "", nil, time.Time{}, fmt.Errorf("bottle of %s: %w", id, err)
	}
	if !fi.Mode().IsRegular() {
		return "", nil, time.Time{}, fmt.Errorf("bottle %s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, time.Time{}, fmt.Errorf("bottle of %s: %w", id, err)
	}
	defer f.Close()
	head = make([]byte, n)
	k, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", nil, time.Time{}, fmt.Errorf("read bottle %s: %w", path, err)
	}
	return path, head[:k], fi.ModTime(), nil
}

// Write writes data as the bottle of session id in dir atomically
// (docs/format.md, "Writing"): a temp sibling, fsync, rename. The folder is created 0700 and
// the file is 0600; a failed write leaves the previous bottle intact and no
// temp file behind.
func Write(dir, id string, data []byte) (string, error) {
	path, err := Path(dir, id)
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

// Retention is how long archived bottles are kept (Claude Code's own
// transcript retention).
const Retention = 30 * 24 * time.Hour

// Archive moves the bottle of session id to
// <dir>/archive/<UTC yyyymmddThhmmssZ>-<id>.md and prunes archives older than
// retention (0 = Retention). It returns "" with no error when there is
// no bottle to archive.
func Archive(dir, id string, now time.Time, retention time.Duration) (string, error) {
	src, err := Path(dir, id)
	if err != nil {
		return "", err
	}
	archive, err := archiveDir(dir)
	if err != nil {
		return "", err
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
		retention = Retention
	}
	if err := Prune(dir, now, retention); err != nil {
		return dst, err
	}
	return dst, nil
}

// Prune removes archived bottles whose timestamp (from the file
// name) is older than retention.
func Prune(dir string, now time.Time, retention time.Duration) error {
	archive := filepath.Join(dir, "archive")
	if err := CheckArchive(dir); err != nil {
		return fmt.Errorf("prune archive: %w", err)
	}
	entries, err := os.ReadDir(archive)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("prune archive: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		// Only regular files: a symlink named like an archive points outside.
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var errs []error
	for _, n := range names {
		t, ok := archivedAt(n)
		if !ok || now.Sub(t) <= retention {
			continue
		}
		path := filepath.Join(archive, n)
		if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("prune archive: %w", errors.Join(errs...))
	}
	return nil
}

// ErrArchiveNotFolder is returned when <bottles>/archive exists but is not a
// real folder: a symlink there would make /clear write, and pruning delete,
// outside the bottles folder.
var ErrArchiveNotFolder = errors.New("is not a real folder (a symlink is not followed); remove it and bottle creates the folder")

// CheckArchive reports whether the archive folder of dir is usable: missing
// (it is created when needed) or a real folder, not a symlink to one.
func CheckArchive(dir string) error {
	archive := filepath.Join(dir, "archive")
	fi, err := os.Lstat(archive)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("archive folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("archive folder %s %w", archive, ErrArchiveNotFolder)
	}
	return nil
}

// archiveDir returns the archive folder of dir, creating it (0700) when
// missing; it refuses one that is not a real folder.
func archiveDir(dir string) (string, error) {
	archive := filepath.Join(dir, "archive")
	if err := CheckArchive(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create archive dir: %w", err)
	}
	if err := os.Mkdir(archive, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create archive dir: %w", err)
	}
	// Checked again: something may have taken the name in between.
	if err := CheckArchive(dir); err != nil {
		return "", err
	}
	return archive, nil
}

// archivedAt reads the time out of a name Archive gives:
// <yyyymmddThhmmssZ>-<session id>[-<n>].md. Any other name is not an
// archive of bottle's, whatever its age.
func archivedAt(name string) (time.Time, bool) {
	id, ok := strings.CutSuffix(name, ".md")
	if !ok || len(id) < 18 || id[16] != '-' || !ident.ValidSession(id[17:]) {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102T150405Z", id[:16])
	return t, err == nil
}
