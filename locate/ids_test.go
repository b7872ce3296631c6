package locate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"bottle/ident"
)

func TestTranscript(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home}
	p := filepath.Join(home, ".claude", "projects", "-home-dev-proj", "s1.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, nil, 0o600)
	got, err := Transcript(env, "s1")
	if err != nil || got != p {
		t.Errorf("Transcript = %q, %v; want %q", got, err, p)
	}
	if _, err := Transcript(env, "s2"); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("Transcript(s2) error = %v, want ErrNoTranscript", err)
	}
	if _, err := Transcript(env, "*"); !errors.Is(err, ident.ErrBadSession) {
		t.Errorf("Transcript(*) error = %v, want ident.ErrBadSession", err)
	}
	cfg := t.TempDir()
	env.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return cfg
		}
		return ""
	}
	if _, err := Transcript(env, "s1"); !errors.Is(err, ErrNoTranscript) {
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
	if _, err := Transcript(Env{Home: home}, "s1"); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("Transcript followed a symlink out of the projects folder: %v", err)
	}
}

func TestNoHomeNoRelativePaths(t *testing.T) {
	env := Env{}
	if env.BottlesDir() != "" || env.LogPath() != "" || env.DBPath() != "" {
		t.Errorf("with no home: bottles %q, log %q, db %q; want all empty", env.BottlesDir(), env.LogPath(), env.DBPath())
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
