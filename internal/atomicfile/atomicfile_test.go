package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func mustWrite(t *testing.T, path, data string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, path string) // what is at path before
		perm  fs.FileMode
		// check looks at what else setup made (a symlink's target, say).
		check func(t *testing.T, dir, path string)
	}{
		{name: "New", perm: 0o600},
		{name: "NewReadable", perm: 0o644},
		{name: "NewReadOnly", perm: 0o400},
		{
			name:  "Replace",
			setup: func(t *testing.T, dir, path string) { mustWrite(t, path, "old", 0o600) },
			perm:  0o600,
		},
		{
			name:  "ReplaceChangesMode",
			setup: func(t *testing.T, dir, path string) { mustWrite(t, path, "old", 0o644) },
			perm:  0o600,
		},
		{
			name: "SymlinkReplacedNotFollowed",
			setup: func(t *testing.T, dir, path string) {
				victim := filepath.Join(dir, "victim")
				mustWrite(t, victim, "VICTIM", 0o600)
				if err := os.Symlink(victim, path); err != nil {
					t.Skipf("symlink: %v", err)
				}
			},
			perm: 0o600,
			check: func(t *testing.T, dir, path string) {
				if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s is not a regular file after the write (%v)", path, err)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "victim")); string(got) != "VICTIM" {
					t.Errorf("the symlink's target became %q", got)
				}
			},
		},
		{
			name: "DanglingSymlink",
			setup: func(t *testing.T, dir, path string) {
				if err := os.Symlink(filepath.Join(dir, "nowhere"), path); err != nil {
					t.Skipf("symlink: %v", err)
				}
			},
			perm: 0o600,
			check: func(t *testing.T, dir, path string) {
				if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
					t.Error("the write went through a dangling symlink")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			if tt.setup != nil {
				tt.setup(t, dir, path)
			}
			before := len(names(t, dir))
			if err := WriteFile(path, []byte("new content\n"), tt.perm); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != "new content\n" {
				t.Errorf("content = %q, %v", got, err)
			}
			if runtime.GOOS != "windows" {
				if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != tt.perm {
					t.Errorf("mode = %v (%v), want %v", fi.Mode().Perm(), err, tt.perm)
				}
			}
			if got := names(t, dir); len(got) != max(before, 1) {
				t.Errorf("folder holds %q: a temp file was left or a file lost", got)
			}
			if tt.check != nil {
				tt.check(t, dir, path)
			}
		})
	}
}

// TestWriteFileFails makes each write fail for real (the tests may run as
// root, which ignores file modes) and checks that nothing is left behind and
// what was at the path is untouched.
func TestWriteFileFails(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) (path string)
	}{
		{
			// The parent is a regular file, so no temp file can be created.
			name: "ParentIsFile",
			setup: func(t *testing.T, dir string) string {
				mustWrite(t, filepath.Join(dir, "file"), "a file", 0o600)
				return filepath.Join(dir, "file", "settings.json")
			},
		},
		{
			name:  "NoParent",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "missing", "settings.json") },
		},
		{
			// The temp file is written and synced; the rename fails.
			name: "FolderAtPath",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "settings.json")
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
				mustWrite(t, filepath.Join(path, "inside"), "kept", 0o600)
				return path
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			before := snapshot(t, dir)
			if err := WriteFile(path, []byte("new"), 0o600); err == nil {
				t.Fatal("WriteFile succeeded")
			}
			after := snapshot(t, dir)
			if !slices.Equal(before, after) {
				t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// snapshot lists every path under dir with its content.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		entry := p
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entry += "=" + string(b)
		}
		out = append(out, entry)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteFileRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.md")
	old := time.Now().Add(-2 * StaleAge)
	files := []struct {
		name      string
		old       bool
		dir       bool
		wantKept  bool
		rationale string
	}{
		{name: ".s1.md.tmp-123", old: true, wantKept: false, rationale: "a killed writer's"},
		{name: ".s1.md.tmp-456", wantKept: true, rationale: "a concurrent writer's"},
		{name: ".s2.md.tmp-789", old: true, wantKept: true, rationale: "another file's"},
		{name: ".s1.md.tmp-dir", old: true, dir: true, wantKept: true, rationale: "not a regular file"},
		{name: "s1.md.tmp-1", old: true, wantKept: true, rationale: "not hidden, so not ours"},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if f.dir {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		} else {
			mustWrite(t, p, "partial", 0o600)
		}
		if f.old {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		_, err := os.Lstat(filepath.Join(dir, f.name))
		if kept := err == nil; kept != f.wantKept {
			t.Errorf("%s (%s): kept = %v, want %v", f.name, f.rationale, kept, f.wantKept)
		}
	}
}
