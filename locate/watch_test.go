package locate

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestWatch: a Watch's listings equal a fresh listing's, sizes and times
// included, after each change a user's machine makes: a transcript grown,
// touched, added, removed, renamed away, replaced by a symlink; a project
// folder added, removed and renamed; the projects folder removed and made
// again.
func TestWatch(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Getenv: func(string) string { return "" }}
	projects := env.ProjectsDir()
	cwd := filepath.Join(home, "work", "a")
	dirA, dirB := filepath.Join(projects, ProjectDirName(cwd)), filepath.Join(projects, "-b")
	id := func(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	path := func(dir string, n int) string { return filepath.Join(dir, id(n)+".jsonl") }
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(path(dirA, 1), "one\n")
	write(path(dirA, 2), "two\n")
	write(path(dirB, 3), "three\n")
	w := NewWatch(env)
	defer w.Close()
	check := func(what string) {
		t.Helper()
		if got, want := w.AllSessions(nil), AllSessions(env, nil); !slices.Equal(got, want) {
			t.Errorf("%s: the watch lists\n%v\nwhere a listing lists\n%v", what, got, want)
		}
		if got, want := w.SessionsWith(nil, cwd), SessionsWith(env, nil, cwd); !slices.Equal(got, want) {
			t.Errorf("%s: the watch lists the project's\n%v\nwhere a listing lists\n%v", what, got, want)
		}
	}
	check("first")
	check("again")
	steps := []struct {
		what string
		do   func() error
	}{
		{"grown (the file still open, as Claude Code keeps it)", func() error {
			f, err := os.OpenFile(path(dirA, 1), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			t.Cleanup(func() { f.Close() })
			_, err = f.WriteString("more\n")
			return err
		}},
		{"touched", func() error {
			return os.Chtimes(path(dirB, 3), time.Now(), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
		}},
		{"added", func() error { return os.WriteFile(path(dirB, 4), []byte("four\n"), 0o600) }},
		{"removed", func() error { return os.Remove(path(dirA, 2)) }},
		{"renamed away", func() error { return os.Rename(path(dirB, 4), filepath.Join(dirB, "notes.txt")) }},
		{"renamed in", func() error { return os.Rename(filepath.Join(dirB, "notes.txt"), path(dirB, 5)) }},
		{"a symlink", func() error { return os.Symlink(path(dirB, 3), path(dirA, 6)) }},
		{"a folder added", func() error { return os.WriteFile(path(filepath.Join(projects, "-c"), 7), []byte("seven\n"), 0o600) }},
		{"a folder renamed", func() error { return os.Rename(filepath.Join(projects, "-c"), filepath.Join(projects, "-d")) }},
		{"a file in the renamed folder", func() error { return os.WriteFile(path(filepath.Join(projects, "-d"), 8), nil, 0o600) }},
		{"a folder removed", func() error { return os.RemoveAll(dirB) }},
		{"the projects folder removed", func() error { return os.RemoveAll(projects) }},
		{"made again", func() error { return os.WriteFile(path(dirA, 9), []byte("nine\n"), 0o600) }},
	}
	for _, s := range steps {
		if s.what == "a folder added" || s.what == "made again" {
			os.MkdirAll(filepath.Join(projects, "-c"), 0o700)
			os.MkdirAll(dirA, 0o700)
		}
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		check(s.what)
		if s.what == "a symlink" && runtime.GOOS == "linux" && w.relists != 1 {
			t.Errorf("after the changes to files, every folder was listed %d times; want once, at first (the changes told)", w.relists)
		}
	}
}
