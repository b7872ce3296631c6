package render

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestValidSessionID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f", true},
		{"a", true},
		{"a.b_c-d", true},
		{"", false},
		{"..", false},
		{"a..b", false},
		{".hidden", false},
		{"-dash", false},
		{"a/b", false},
		{`a\b`, false},
		{"a\x00b", false},
		{"a b", false},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"ü", false},
	}
	for _, tt := range tests {
		if got := ValidSessionID(tt.id); got != tt.want {
			t.Errorf("ValidSessionID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestWriteBottle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bottles")
	path, err := WriteBottle(dir, "s1", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteBottle(dir, "s1", []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("bottle = %q, %v; want %q", got, err, "two")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("bottles dir holds %d entries, want 1 (no temp files)", len(entries))
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("bottle mode = %v, want 0600", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("bottles dir mode = %v, want 0700", fi.Mode().Perm())
		}
	}
	if _, err := WriteBottle(dir, "../evil", []byte("x")); !errors.Is(err, ErrBadSessionID) {
		t.Errorf("WriteBottle(../evil) error = %v, want ErrBadSessionID", err)
	}
}

// TestWriteBottleFailureKeepsPrevious: when the bottles "dir" cannot take a
// file (a path below a regular file — real even for root), the write fails
// cleanly; when the rename target is a directory, the old content survives.
func TestWriteBottleFailureKeepsPrevious(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteBottle(filepath.Join(file, "bottles"), "s1", []byte("x")); err == nil {
		t.Error("WriteBottle below a regular file succeeded")
	}
	dir := filepath.Join(base, "b")
	if err := os.MkdirAll(filepath.Join(dir, "s2.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteBottle(dir, "s2", []byte("x")); err == nil {
		t.Error("WriteBottle over a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir holds %d entries after a failed write, want 1", len(entries))
	}
}

func TestArchive(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := WriteBottle(dir, "s1", []byte("bottle")); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "archive", "20260101T000000Z-old.md")
	recent := filepath.Join(dir, "archive", "20260220T000000Z-recent.md")
	foreign := filepath.Join(dir, "archive", "notes.txt")
	os.MkdirAll(filepath.Dir(old), 0o700)
	for _, p := range []string{old, recent, foreign} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	got, err := Archive(dir, "s1", now, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "archive", "20260301T120000Z-s1.md")
	if got != want {
		t.Errorf("Archive = %q, want %q", got, want)
	}
	if b, err := os.ReadFile(want); err != nil || string(b) != "bottle" {
		t.Errorf("archived bottle = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s1.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bottle still in place after archive: %v", err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Error("archive older than 30 days was not pruned")
	}
	for _, p := range []string{recent, foreign} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was pruned: %v", p, err)
		}
	}
	if got, err := Archive(dir, "missing", now, 0); err != nil || got != "" {
		t.Errorf("Archive(missing) = %q, %v; want \"\", nil", got, err)
	}
}

func TestFindTranscript(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home}
	p := filepath.Join(home, ".claude", "projects", "-home-dev-proj", "s1.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, nil, 0o600)
	got, err := FindTranscript(env, "s1")
	if err != nil || got != p {
		t.Errorf("FindTranscript = %q, %v; want %q", got, err, p)
	}
	if _, err := FindTranscript(env, "s2"); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("FindTranscript(s2) error = %v, want ErrNoTranscript", err)
	}
	if _, err := FindTranscript(env, "*"); !errors.Is(err, ErrBadSessionID) {
		t.Errorf("FindTranscript(*) error = %v, want ErrBadSessionID", err)
	}
	cfg := t.TempDir()
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return cfg
		}
		return ""
	}
	if _, err := FindTranscript(env, "s1"); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("with CLAUDE_CONFIG_DIR elsewhere: error = %v, want ErrNoTranscript", err)
	}
}

func TestEnvDirs(t *testing.T) {
	home := t.TempDir()
	vars := map[string]string{}
	env := Env{Home: home, Getenv: func(k string) string { return vars[k] }}
	if got, want := env.BottlesDir(), filepath.Join(home, ".claude-mem", "bottles"); got != want {
		t.Errorf("default BottlesDir = %q, want %q", got, want)
	}
	os.MkdirAll(filepath.Join(home, ".claude-mem"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude-mem", "settings.json"), []byte(`{"CLAUDE_MEM_DATA_DIR":"~/mem"}`), 0o600)
	if got, want := env.DataDir(), filepath.Join(home, "mem"); got != want {
		t.Errorf("DataDir from settings = %q, want %q", got, want)
	}
	vars["CLAUDE_MEM_DATA_DIR"] = "/data"
	if got := env.DBPath(); got != filepath.Join("/data", "claude-mem.db") {
		t.Errorf("DBPath = %q", got)
	}
	vars["BOTTLE_DIR"] = "/b"
	if got := env.BottlesDir(); got != "/b" {
		t.Errorf("BottlesDir with BOTTLE_DIR = %q", got)
	}
	os.WriteFile(filepath.Join(home, ".claude-mem", "settings.json"), []byte(`{not json`), 0o600)
	delete(vars, "CLAUDE_MEM_DATA_DIR")
	if got, want := env.DataDir(), filepath.Join(home, ".claude-mem"); got != want {
		t.Errorf("DataDir with a malformed settings file = %q, want %q", got, want)
	}
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}

func TestFindTranscriptSkipsSymlinks(t *testing.T) {
	home := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	writeFile(t, outside, "{}\n")
	dir := filepath.Join(home, ".claude", "projects", "-p")
	os.MkdirAll(dir, 0o700)
	if err := os.Symlink(outside, filepath.Join(dir, "s1.jsonl")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if _, err := FindTranscript(Env{Home: home}, "s1"); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("FindTranscript followed a symlink out of the projects folder: %v", err)
	}
}

func TestWriteBottleRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".s1.md.tmp-123")
	fresh := filepath.Join(dir, ".s1.md.tmp-456")
	writeFile(t, stale, "partial")
	writeFile(t, fresh, "partial")
	old := time.Now().Add(-2 * staleTemp)
	os.Chtimes(stale, old, old)
	if _, err := WriteBottle(dir, "s1", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Error("a stale temp file survived the next write")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temp file (a concurrent writer's) was removed")
	}
}

func TestNoHomeNoRelativePaths(t *testing.T) {
	env := Env{}
	if env.BottlesDir() != "" || env.LogPath() != "" || env.DBPath() != "" {
		t.Errorf("with no home: bottles %q, log %q, db %q; want all empty", env.BottlesDir(), env.LogPath(), env.DBPath())
	}
	for _, dir := range []string{"", "relative/bottles"} {
		if _, err := WriteBottle(dir, "s1", []byte("x")); err == nil {
			t.Errorf("WriteBottle(%q) succeeded", dir)
		}
	}
}

func TestArchiveSameSecond(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var got []string
	for i := 0; i < 3; i++ {
		WriteBottle(dir, "s1", []byte{byte('a' + i)})
		p, err := Archive(dir, "s1", now, 0)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(p))
	}
	want := []string{"20260301T120000Z-s1.md", "20260301T120000Z-s1-2.md", "20260301T120000Z-s1-3.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("archives = %v, want %v", got, want)
	}
}

// TestOSEnvResolvesDataDirOnce: the data folder is read from claude-mem's
// settings once per process environment, not once per path.
func TestOSEnvResolvesDataDirOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("CLAUDE_MEM_DATA_DIR", "")
	settings := filepath.Join(home, ".claude-mem", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	writeFile(t, settings, `{"CLAUDE_MEM_DATA_DIR":"~/first"}`)
	env := OSEnv()
	writeFile(t, settings, `{"CLAUDE_MEM_DATA_DIR":"~/second"}`)
	if got, want := env.BottlesDir(), filepath.Join(home, "first", "bottles"); got != want {
		t.Errorf("BottlesDir = %q, want %q (resolved when OSEnv ran)", got, want)
	}
	if got, want := OSEnv().DBPath(), filepath.Join(home, "second", "claude-mem.db"); got != want {
		t.Errorf("a new OSEnv: DBPath = %q, want %q", got, want)
	}
}
