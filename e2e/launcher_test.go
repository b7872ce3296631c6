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
		return runLauncher(t, "sh", launcher, stdin, args...)
	}

	for _, tt := range launcherCalls {
		stdout, stderr, code := run("{}", tt.args...)
		if code != tt.code || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "go build -trimpath -o plugin/libexec/"+runtime.GOOS+"-"+runtime.GOARCH+"/ ./hookbin ./mcpserver ./pretooluse") {
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
	stdout, stderr, code = run("payload", "mcpserver", "x")
	if want := "mcpserver 1 [x] []\npayload"; stdout != want || stderr != "" || code != 3 {
		t.Errorf("mcpserver: stdout %q (want %q), stderr %q, exit %d (want 3)", stdout, want, stderr, code)
	}

	// pre-tool-use runs its own binary when it is there, hookbin's otherwise.
	stdout, _, _ = run("payload", "hookbin", "pre-tool-use")
	if want := "hookbin 1 [pre-tool-use] []\npayload"; stdout != want {
		t.Errorf("pre-tool-use without pretooluse: stdout %q, want %q (hookbin's)", stdout, want)
	}
	script := "#!/bin/sh\necho \"pretooluse $# [$1]\"; cat\nexit 0\n"
	if err := os.WriteFile(filepath.Join(dir, "pretooluse"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = run("payload", "hookbin", "pre-tool-use")
	if want := "pretooluse 0 []\npayload"; stdout != want || stderr != "" || code != 0 {
		t.Errorf("pre-tool-use with pretooluse: stdout %q (want %q), stderr %q, exit %d", stdout, want, stderr, code)
	}
	stdout, _, _ = run("payload", "hookbin", "session-start")
	if want := "hookbin 1 [session-start] []\npayload"; stdout != want {
		t.Errorf("session-start with pretooluse there: stdout %q, want %q (hookbin's)", stdout, want)
	}
}

// TestLauncherCannotExecute: a binary the launcher cannot execute even after
// restoring its exec bits is one stderr line, exit 0 for a hook and 1
// otherwise, and nothing on stdout. Sessions run as root, which executes any
// file with one exec bit and may chmod anything, so "cannot execute" is made
// real by the kernel: a file that is no executable at all (the exec fails
// with ENOEXEC, as for a truncated or foreign binary), and, where this
// process may mount, a real binary on a noexec tmpfs and one without exec
// bits on a read-only tmpfs.
func TestLauncherCannotExecute(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the noexec and read-only cases mount a tmpfs (Linux)")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	shBytes, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	garbage := append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0}, 64)...)
	cases := []struct {
		name  string
		mount string // tmpfs options; "" = no mount
		data  []byte
		mode  os.FileMode
		ro    bool // remount read-only after writing
	}{
		{"NotAnExecutable", "", garbage, 0o755, false},
		{"NotAnExecutableNoBits", "", garbage, 0o644, false},
		{"NoexecMount", "noexec", shBytes, 0o755, false},
		{"ReadOnlyNoBits", "noexec", shBytes, 0o644, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.mount != "" {
				if out, err := exec.Command("mount", "-t", "tmpfs", "-o", tc.mount+",size=16m", "tmpfs", root).CombinedOutput(); err != nil {
					t.Skipf("cannot mount a tmpfs here: %v %s", err, bytes.TrimSpace(out))
				}
				t.Cleanup(func() { exec.Command("umount", root).Run() })
			}
			copyDir(t, filepath.Join("..", "plugin", "bin"), filepath.Join(root, "bin"))
			dir := filepath.Join(root, "libexec", runtime.GOOS+"-"+runtime.GOARCH)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"hookbin", "mcpserver"} {
				if err := os.WriteFile(filepath.Join(dir, name), tc.data, tc.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(filepath.Join(dir, name), tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			launcher := filepath.Join(root, "bin", "bottle-run")
			if tc.ro {
				if out, err := exec.Command("mount", "-o", "remount,ro", root).CombinedOutput(); err != nil {
					t.Fatalf("remount read-only: %v %s", err, out)
				}
			}
			for _, tt := range launcherCalls {
				stdout, stderr, code := runLauncher(t, sh, launcher, "{}", tt.args...)
				lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
				last := lines[len(lines)-1]
				if tc.mount == "" && tt.code != 0 {
					// A server or a command is exec'ed: the kernel refuses
					// the file only then, and the shell says so, 126.
					if code == 0 || stdout != "" || len(lines) != 1 || !strings.Contains(last, "Exec format error") {
						t.Errorf("%q: exit %d (want non-zero), stdout %q, stderr %q", tt.args, code, stdout, stderr)
					}
					continue
				}
				// A hook's failed exec has the shell name it on a line of
				// its own first; the launcher's line is the last.
				want := 1
				if tc.mount == "" {
					want = 2
				}
				if code != tt.code || stdout != "" || len(lines) != want || !strings.HasPrefix(last, "bottle: cannot execute ") {
					t.Errorf("%q: exit %d (want %d), stdout %q, stderr %q", tt.args, code, tt.code, stdout, stderr)
				}
			}
		})
	}
}

// runLauncher runs the launcher with sh, the arguments and stdin given, and
// returns what it printed and its exit code.
func runLauncher(t *testing.T, sh, launcher, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(sh, append([]string{launcher}, args...)...)
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

// launcherCalls are the launcher's ways in and the exit code each has when
// the binary cannot run: 0 for a hook, 1 otherwise.
var launcherCalls = []struct {
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
}
