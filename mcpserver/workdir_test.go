package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSessionDir: a server in a Codex plugin's folder serves the folder of
// the process that started it; in any other folder, its own.
func TestSessionDir(t *testing.T) {
	plain := t.TempDir()
	plugin := t.TempDir()
	if err := os.MkdirAll(filepath.Join(plugin, ".codex-plugin"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugin, ".codex-plugin", "plugin.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, how := sessionDir(plain); got != plain || how != "" {
		t.Errorf("sessionDir(plain folder) = %q, %q; want the folder itself", got, how)
	}
	got, how := sessionDir(plugin)
	if got == plugin || how == "" {
		t.Fatalf("sessionDir(plugin folder) = %q, %q; want another folder", got, how)
	}
	want := os.Getenv("PWD")
	if runtime.GOOS == "linux" {
		if d, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", os.Getppid())); err == nil {
			want = d
		}
	}
	if got != want {
		t.Errorf("sessionDir(plugin folder) = %q (%s); want the parent's folder %q", got, how, want)
	}
}
