package testbin

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBuildOnce: callers at once — as the test binaries of one run are —
// get the same binaries and at most one of them builds (the lock folder);
// the binaries run; Build remembers its answer.
func TestBuildOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries; not in -short")
	}
	const callers = 3
	var (
		wg    sync.WaitGroup
		got   [callers]Binaries
		built [callers]bool
		errs  [callers]error
	)
	for i := range callers {
		wg.Go(func() { got[i], built[i], errs[i] = build(false) })
	}
	wg.Wait()
	builds := 0
	for i := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got[i] != got[0] {
			t.Errorf("caller %d got %+v, caller 0 %+v", i, got[i], got[0])
		}
		if built[i] {
			builds++
		}
	}
	if builds > 1 {
		t.Errorf("%d of %d callers built the binaries, want at most one", builds, callers)
	}
	if b, again, err := Build(false); err != nil || b != got[0] {
		t.Errorf("Build = %+v, %v; want %+v", b, err, got[0])
	} else if _, again, _ = Build(false); again {
		t.Error("a second Build in one test binary built again")
	}
	for _, bin := range []string{got[0].Hookbin, got[0].MCPServer, got[0].PreToolUse} {
		out, err := exec.Command(bin, "--version").Output()
		if err != nil || !strings.Contains(string(out), " ") {
			t.Errorf("%s --version = %q, %v", bin, out, err)
		}
	}
}

// TestSourceKey: the key is stable, and the race detector is part of it.
func TestSourceKey(t *testing.T) {
	a, err := sourceKey(false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sourceKey(false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sourceKey(true)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a == r {
		t.Errorf("keys %s, %s (race: %s): want the first two equal and the race key different", a, b, r)
	}
}

// TestStaleLock: a lock its builder no longer touches (the builder was
// killed) is taken over instead of waited on.
func TestStaleLock(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries; not in -short")
	}
	dir := filepath.Join(t.TempDir(), "bin") // not the shared build: other packages' tests run it
	lock := dir + ".lock"
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * staleLock)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := buildAt(dir, false); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("build waited on a stale lock")
	}
	if _, err := os.Stat(lock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock is left after the build: %v", err)
	}
}
