// Package testbin builds bottle's binaries, hookbin, mcpserver and pretooluse, for the
// tests that run them as subprocesses (hookbin's reliability tests,
// mcpserver's process and fault tests, the end-to-end test): once per test
// run, not once per test binary. Each build goes into a folder of the
// system's temporary folder named after everything that decides the
// binaries — the module's sources and embedded files that hookbin and
// mcpserver are built from, go.mod and go.sum, the Go version, the target
// and the race detector — so the test binaries of one `go test` run share
// it (the first to arrive builds, the others wait for it), and later runs
// reuse it while the sources do not change.
//
// The folder and the binaries may be read and run by every user (tests run
// them as an unprivileged user too). What it must not do: build anything
// but the module's own binaries, or be imported by anything but tests.
package testbin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binaries are the paths of the built binaries.
type Binaries struct {
	Hookbin, MCPServer, PreToolUse string
}

// startEnv is the environment the test binary started with, before any
// t.Setenv: the binaries are built with the user's Go caches.
var startEnv = os.Environ()

// tempDir is the system's temporary folder as the test binary started:
// every test binary of a run finds the same builds whatever a test sets.
var tempDir = os.TempDir()

const (
	prefix = "bottle-testbin-"
	// heartbeat is how often a build touches its lock, and staleLock how
	// long a lock may go untouched before another test binary takes it
	// over: its builder was killed (an interrupted go test), and waiting
	// for a build with an empty Go cache on a loaded machine must not end
	// early.
	heartbeat = 2 * time.Second
	staleLock = 30 * time.Second
	// keepFor is how long an unused build is kept before a later build
	// removes it.
	keepFor = 48 * time.Hour
)

// For returns the binaries for t, built with the race detector when race
// is set; it fails t when they cannot be built.
func For(t testing.TB, race bool) Binaries {
	t.Helper()
	start := time.Now()
	b, built, err := Build(race)
	if err != nil {
		t.Fatal(err)
	}
	if built {
		t.Logf("built hookbin, mcpserver and pretooluse (race=%v) in %.1fs", race, time.Since(start).Seconds())
	}
	return b
}

// memo keeps each test binary's answer: the sources do not change during
// a run, so the key is worked out once per flavour.
var memo struct {
	sync.Mutex
	done map[bool]Binaries
}

// Build returns the binaries, building them unless a build of the same
// sources exists; built says whether this call built them.
func Build(race bool) (b Binaries, built bool, err error) {
	memo.Lock()
	defer memo.Unlock()
	if b, ok := memo.done[race]; ok {
		return b, false, nil
	}
	b, built, err = build(race)
	if err == nil {
		if memo.done == nil {
			memo.done = map[bool]Binaries{}
		}
		memo.done[race] = b
	}
	return b, built, err
}

func build(race bool) (b Binaries, built bool, err error) {
	key, err := sourceKey(race)
	if err != nil {
		return Binaries{}, false, err
	}
	return buildAt(filepath.Join(tempDir, prefix+key), race)
}

// buildAt returns the binaries in dir, building them there unless they
// are; a lock folder beside dir lets one caller build while the others
// wait.
func buildAt(dir string, race bool) (b Binaries, built bool, err error) {
	b = Binaries{Hookbin: filepath.Join(dir, exe("hookbin")), MCPServer: filepath.Join(dir, exe("mcpserver")), PreToolUse: filepath.Join(dir, exe("pretooluse"))}
	done := filepath.Join(dir, "ok")
	lock := dir + ".lock"
	for {
		if _, err := os.Stat(done); err == nil {
			now := time.Now()
			_ = os.Chtimes(done, now, now) // in use: not pruned
			return b, built, nil
		}
		err := os.Mkdir(lock, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return Binaries{}, false, fmt.Errorf("lock %s: %w", lock, err)
		}
		if fi, err := os.Stat(lock); err == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(lock)
		}
		time.Sleep(100 * time.Millisecond)
	}
	defer os.Remove(lock)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				_ = os.Chtimes(lock, now, now)
			}
		}
	}()
	if _, err := os.Stat(done); err == nil { // built while this one waited
		return b, false, nil
	}
	prune()
	os.RemoveAll(dir) // a build that did not finish
	tmp, err := os.MkdirTemp(tempDir, prefix+"build-")
	if err != nil {
		return Binaries{}, false, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Binaries{}, false, err
	}
	args := []string{"build", "-o", tmp + string(filepath.Separator)}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "bottle/hookbin", "bottle/mcpserver", "bottle/pretooluse")
	if _, err := goCmd(args...); err != nil {
		return Binaries{}, false, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "ok"), nil, 0o644); err != nil {
		return Binaries{}, false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(done); statErr == nil { // a builder that took over a stale lock finished first
			return b, true, nil
		}
		return Binaries{}, false, fmt.Errorf("keep the build: %w", err)
	}
	return b, true, nil
}

// sourceKey names what decides the binaries: the Go toolchain and target,
// the race detector, go.mod and go.sum, and the contents of every file of
// the module's packages that hookbin, mcpserver and pretooluse are built from (Go
// files and embedded files).
func sourceKey(race bool) (string, error) {
	h := sha256.New()
	env, err := goCmd("env", "GOVERSION", "GOOS", "GOARCH", "GOAMD64", "GOARM64", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOMOD")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "race=%v\n%s", race, env)
	lines := strings.Split(strings.TrimSpace(string(env)), "\n")
	gomod := lines[len(lines)-1]
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the bottle module")
	}
	root := filepath.Dir(gomod)
	files := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	const format = `{{if .Module}}{{if eq .Module.Path "bottle"}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}
{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}
{{end}}{{end}}{{end}}`
	out, err := goCmd("list", "-deps", "-f", format, "bottle/hookbin", "bottle/mcpserver", "bottle/pretooluse")
	if err != nil {
		return "", err
	}
	for _, f := range strings.Split(string(out), "\n") {
		if f != "" {
			files = append(files, filepath.FromSlash(f))
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "%s %x\n", strings.TrimPrefix(f, root), sum)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// goCmd runs the go command with the test binary's starting environment.
func goCmd(args ...string) ([]byte, error) {
	cmd := exec.Command(goTool(), args...)
	cmd.Env = startEnv
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

// goTool is the go command: on PATH, else the one of this toolchain.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// prune removes builds no test has used for keepFor.
func prune() {
	old, _ := filepath.Glob(filepath.Join(tempDir, prefix+"*"))
	for _, d := range old {
		if strings.HasSuffix(d, ".lock") || strings.HasPrefix(filepath.Base(d), prefix+"build-") {
			continue
		}
		if fi, err := os.Stat(filepath.Join(d, "ok")); err == nil && time.Since(fi.ModTime()) > keepFor {
			os.RemoveAll(d)
		}
	}
}

// exe adds the executable suffix of the target.
func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
