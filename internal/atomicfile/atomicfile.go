// Package atomicfile replaces a file's content so that a reader sees the old
// file or the new one, never a partial write, and a crash or a killed writer
// leaves the old file in place.
//
// It owns the write itself: a temporary sibling, fsync, permissions, rename,
// a sync of the folder, and the removal of temporary siblings that killed
// writers left behind. It does not create folders, resolve symlinks or choose
// permissions; callers decide those. It imports only the standard library.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// StaleAge is how old a temporary sibling must be before a later WriteFile
// of the same path removes it. A writer killed between create and rename (a
// hook past its deadline, SIGKILL) leaves one behind; a live concurrent
// writer's is younger.
const StaleAge = time.Minute

// WriteFile writes data to path atomically. It writes a temporary file in
// path's folder, gives it perm (on the open file, so the data never sits
// under looser permissions), syncs it, renames it over path and syncs the
// folder so the rename survives a crash.
//
// A symlink at path is replaced, not followed: callers that mean to write
// through one resolve it first. A folder at path is an error. On any error
// the temporary file is removed and the file at path is untouched. The error
// is the one of the step that failed, an *fs.PathError or *os.LinkError that
// names its file, as with [os.WriteFile].
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // a second Close after a failed one only reports it again
			os.Remove(tmp)
		}
	}()
	// Windows cannot chmod an open file; there the path is changed once the
	// file is closed.
	chmodPath := false
	if err = f.Chmod(perm); err != nil {
		if !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
		chmodPath = true
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if chmodPath {
		if err = os.Chmod(tmp, perm); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	removeStale(path, time.Now())
	return nil
}

// tempPrefix names path's temporary siblings: hidden, and beside the file
// they replace so a listing shows whose they are.
func tempPrefix(path string) string {
	return "." + filepath.Base(path) + ".tmp-"
}

// syncDir makes a rename durable. Windows cannot sync a folder; a failure
// elsewhere loses nothing already written, so it is ignored.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

// removeStale removes path's temporary siblings that are regular files older
// than StaleAge. Failures are ignored: the write itself has succeeded.
func removeStale(path string, now time.Time) {
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		name := filepath.Join(dir, e.Name())
		if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > StaleAge {
			os.Remove(name)
		}
	}
}
