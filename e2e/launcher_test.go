//go:build unix

package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLauncher runs the plugin's launcher, plugin/bin/bottle-run, without
// Claude Code: it runs libexec/<os>-<arch>/<tool> with the arguments and
// stdin it got, restoring dropped exec bits; a missing binary is one stderr
// line saying how to build it, with exit 0 for a hook and 1 otherwise; an
// unknown tool is a usage error.
func TestLauncher(t *testing.T) {
	root := t.TempDir()
	copyDir(t, filepath.Join("..", "plugin", "bin"), filepath.Join(root, "bin"))
	launcher := filepath.Join(root, "bin", "bottle-run")
	dir := filepath.Join(root, "libexec", runtime.GOOS+"-"+runtime.GOARCH)
	run := func(stdin string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command("sh", append([]string{launcher}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), code
	}

	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"hookbin", "session-start"}, 0},
		{[]string{"hookbin", "stop"}, 0},
		{[]string{"hookbin", "session-end"}, 0},
		{[]string{"hookbin", "pre-compact"}, 0},
		{[]string{"hookbin", "pre-tool-use"}, 0},
		{[]string{"hookbin", "doctor"}, 1},
		{[]string{"mcpserver"}, 1},
	} {
		stdout, stderr, code := run("{}", tt.args...)
		if code != tt.code || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "go build -trimpath -o plugin/libexec/"+runtime.GOOS+"-"+runtime.GOARCH+"/ ./hookbin ./mcpserver") {
			t.Errorf("no binary, %q: exit %d (want %d), stdout %q, stderr %q", tt.args, code, tt.code, stdout, stderr)
		}
	}
	if _, stderr, code := run("", "go", "version"); code != 2 || !strings.Contains(stderr, "usage: bottle-run hookbin|mcpserver") {
		t.Errorf("unknown tool: exit %d, stderr %q", code, stderr)
	}

	// A stand-in binary without its exec bit, as a plugin installer may leave it.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hookbin", "mcpserver"} {
		script := "#!/bin/sh\necho \"" + name + " $# [$1] [$2]\"; cat\nexit 3\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := run("payload", "hookbin", "session-start", "two words")
	if want := "hookbin 2 [session-start] [two words]\npayload"; stdout != want || stderr != "" || code != 3 {
		t.Errorf("with the binary: stdout %q (want %q), stderr %q, exit %d (want 3, the binary's)", stdout, want, stderr, code)
	}
	if fi, err := os.Stat(filepath.Join(dir, "mcpserver")); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("the launcher left mcpserver without exec bits: %v %v", fi.Mode(), err)
	}
}
