package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"bottle/internal/atomicfile"
)

// ErrChanged means a file changed on disk between planning an edit and
// committing it; nothing was written to it.
var ErrChanged = errors.New("file changed since it was read")

// change is one edit of one JSON file.
type change struct {
	path    string
	dirPerm fs.FileMode
	apply   func(doc *object) (notes []string, err error)
}

// Edit is a JSON config file read and edited in memory, to be written by
// [Edit.Commit].
type Edit struct {
	// Path is the file as configured (a symlink is written through).
	Path string
	// Existed reports whether the file existed when it was read.
	Existed bool
	// Notes describe the changes, one line each: "+ added", "~ replaced",
	// "- removed" or "! kept", then where and what.
	Notes []string
	// Backup is the copy of the original that Commit wrote ("" before, or
	// for a new file).
	Backup string

	real    string      // path read and written (symlinks resolved)
	dirPerm fs.FileMode // mode of folders created for a new file
	mode    fs.FileMode // permissions kept on rewrite (0600 for a new file)
	orig    []byte      // bytes read
	before  []byte      // canonical encoding of the parsed original
	after   []byte      // canonical encoding after the edit
}

// Changed reports whether committing the edit would change the file.
func (e *Edit) Changed() bool { return !bytes.Equal(e.before, e.after) }

// PlanInstall plans putting bottle's hooks, running hookbin (an absolute
// path), into t's settings file and its MCP server, running mcpserver, into
// t's MCP file. It reads both files and writes nothing.
func (t Target) PlanInstall(hookbin, mcpserver string) ([]*Edit, error) {
	return plan([]change{
		{t.Settings, t.SettingsDirPerm, func(doc *object) ([]string, error) { return installHooks(doc, hookbin) }},
		{t.MCP, t.MCPDirPerm, func(doc *object) ([]string, error) { return installServer(doc, t.ProjectKeys, mcpserver) }},
	})
}

// PlanUninstall plans removing bottle's hooks and MCP server from t's files.
// It reads both files and writes nothing.
func (t Target) PlanUninstall() ([]*Edit, error) {
	return plan([]change{
		{t.Settings, t.SettingsDirPerm, removeHooks},
		{t.MCP, t.MCPDirPerm, func(doc *object) ([]string, error) { return removeServer(doc, t.ProjectKeys) }},
	})
}

// plan reads and edits every file in memory, in order; two changes of one
// file apply to one document. It fails, having written nothing, if any file
// cannot be read or is not a JSON object.
func plan(changes []change) ([]*Edit, error) {
	var edits []*Edit
	docs := map[string]*object{}
	for _, c := range changes {
		var e *Edit
		for _, prev := range edits {
			if prev.Path == c.path {
				e = prev
			}
		}
		if e == nil {
			var doc *object
			var err error
			if e, doc, err = loadFile(c.path); err != nil {
				return nil, err
			}
			e.dirPerm = c.dirPerm
			docs[c.path] = doc
			edits = append(edits, e)
		}
		notes, err := c.apply(docs[c.path])
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", c.path, err)
		}
		e.Notes = append(e.Notes, notes...)
	}
	for _, e := range edits {
		e.after = encodeFile(docs[e.Path])
	}
	return edits, nil
}

// loadFile reads path, through a symlink, for an edit; a missing file is an
// empty document, and anything but a regular file holding a JSON object is
// an error.
func loadFile(path string) (*Edit, *object, error) {
	e := &Edit{Path: path, real: path, mode: 0o600}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if e.real, err = filepath.EvalSymlinks(path); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	fi, err := os.Stat(e.real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc := newObject()
		e.before = encodeFile(doc)
		return e, doc, nil
	case err != nil:
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return nil, nil, fmt.Errorf("%s is not a regular file; nothing was changed", path)
	}
	data, err := os.ReadFile(e.real)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	doc, err := parseFile(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w; fix or move the file, nothing was changed", path, err)
	}
	e.Existed, e.mode, e.orig = true, fi.Mode().Perm(), data
	e.before = encodeFile(doc)
	return e, doc, nil
}

// parseFile parses a config file that must hold one JSON object; an empty
// file counts as an empty object.
func parseFile(data []byte) (*object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	doc, err := decodeObject(data)
	if err != nil {
		return nil, errors.New("not a JSON object")
	}
	return doc, nil
}

// checkJSON reports whether data is one JSON value, and where it goes
// wrong when it is not: "invalid JSON at line L, column C: …".
func checkJSON(data []byte) error {
	err := json.Unmarshal(data, new(json.RawMessage))
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, se.Offset)
		return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - (bytes.LastIndexByte(before, '\n') + 1) // Offset counts the bad byte
	return line, col
}

// Commit backs up the original file (if any) to
// <file>.bak-<UTC yyyymmddThhmmssZ> and replaces the file atomically; a new
// file gets its folders first. It fails with [ErrChanged], writing nothing,
// when the file is no longer what was read.
func (e *Edit) Commit(now time.Time) error {
	cur, err := os.ReadFile(e.real)
	switch {
	case err == nil && e.Existed && bytes.Equal(cur, e.orig):
	case errors.Is(err, fs.ErrNotExist) && !e.Existed:
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read %s: %w", e.Path, err)
	default:
		return fmt.Errorf("%s: %w", e.Path, ErrChanged)
	}
	if e.Existed {
		if e.Backup, err = writeBackup(e.real, e.orig, e.mode, now); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Dir(e.real), e.dirPerm); err != nil {
		return fmt.Errorf("create %s: %w", e.Path, err)
	}
	if err := atomicfile.WriteFile(e.real, e.after, e.mode); err != nil {
		return fmt.Errorf("write %s: %w", e.Path, err)
	}
	return nil
}

// writeBackup copies data to path.bak-<UTC yyyymmddThhmmssZ>, adding -2, -3, …
// when that name is taken, and returns the backup's path.
func writeBackup(path string, data []byte, perm fs.FileMode, now time.Time) (string, error) {
	base := path + ".bak-" + now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups named %s*", path, base)
}
