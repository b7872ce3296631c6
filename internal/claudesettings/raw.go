package claudesettings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PlanRaw plans an edit of any text file with change, which gets the file's
// bytes (nil for a missing file) and returns the new bytes and notes; the
// [Edit] then commits like a settings edit: backup, atomic replace, refusal
// when the file changed meanwhile. Another host's config files (Codex's
// hooks.json and config.toml) are written through it. It writes nothing.
func PlanRaw(path string, dirPerm fs.FileMode, change func(old []byte) ([]byte, []string, error)) (*Edit, error) {
	e := &Edit{Path: path, real: path, mode: 0o600, dirPerm: dirPerm}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if e.real, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	fi, err := os.Stat(e.real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file; nothing was changed", path)
	default:
		if e.orig, err = os.ReadFile(e.real); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		e.Existed, e.mode = true, fi.Mode().Perm()
	}
	after, notes, err := change(e.orig)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", path, err)
	}
	e.before, e.after, e.Notes = e.orig, after, notes
	if e.before == nil {
		e.before = []byte{}
	}
	return e, nil
}
