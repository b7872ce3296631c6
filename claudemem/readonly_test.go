//go:build linux || darwin

package claudemem

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"bottle/internal/measure/corpustest"
)

// helperEnv carries the database path to TestImmutableHelper in a child process.
const helperEnv = "CLAUDEMEM_IMMUTABLE_HELPER_DB"

// TestOpenImmutableWhenFolderNotWritable: a WAL database without -shm in a
// folder the process may not write cannot be opened mode=ro (SQLite fails
// with SQLITE_READONLY_DIRECTORY); Open falls back to immutable=1 and says so.
// File modes do not bind root, so as root the check re-runs this test binary
// as uid 65534 (nobody).
func TestOpenImmutableWhenFolderNotWritable(t *testing.T) {
	base := t.TempDir()
	ro := filepath.Join(base, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	path := mustCreateDB(t, filepath.Join(ro, "claude-mem.db"), schemaCurrent, rowsCurrent, "wal")
	if _, err := os.Stat(path + "-shm"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("precondition: %s-shm exists (%v)", path, err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })

	if os.Geteuid() != 0 {
		checkImmutable(t, mustOpen(t, path))
		return
	}
	// The child must reach the binary and the database: open up the temp
	// dirs (t.TempDir makes them 0700) and copy the test binary there.
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "claudemem.test")
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "-test.run=^TestImmutableHelper$", "-test.v", "-test.count=1")
	cmd.Dir = base
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("cannot run a child as uid 65534 to make the folder really unwritable: %v", err)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestImmutableHelper") {
		t.Fatalf("child as uid 65534: %v\n%s", err, out)
	}
	if _, err := os.Stat(path + "-shm"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s-shm was created in the read-only folder (%v)", path, err)
	}
}

// TestImmutableHelper is TestOpenImmutableWhenFolderNotWritable's child.
func TestImmutableHelper(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("runs only as the child of TestOpenImmutableWhenFolderNotWritable")
	}
	checkImmutable(t, mustOpen(t, path))
}

func checkImmutable(t *testing.T, db *DB) {
	t.Helper()
	if notes := strings.Join(db.Notes(), "\n"); !strings.Contains(notes, "opened immutable: folder not writable") {
		t.Errorf("Notes() = %q, want the immutable fallback noted", notes)
	}
	s, err := db.Session(t.Context(), "sess-a")
	if err != nil {
		t.Fatalf("Session after immutable open: %v", err)
	}
	if len(s.Prompts) != 3 || len(s.Observations) != 3 || len(s.Summaries) != 2 {
		t.Errorf("Session after immutable open: %d/%d/%d prompts/observations/summaries, want 3/3/2",
			len(s.Prompts), len(s.Observations), len(s.Summaries))
	}
}

// TestOpenSharedCorpusInPlace opens a corpus WAL database where it lies,
// which is only safe where that folder is really read-only for this process:
// elsewhere SQLite would create -shm/-wal files in the shared corpus.
func TestOpenSharedCorpusInPlace(t *testing.T) {
	dir := filepath.Join(corpustest.Dir(t), "claude-mem")
	const wOK = 0x2
	if err := syscall.Access(dir, wOK); err == nil {
		t.Skipf("%s is writable by this process (file modes do not bind root): opening a WAL database "+
			"in place would create -shm/-wal files there; TestOpenImmutableWhenFolderNotWritable covers the fallback", dir)
	}
	path := filepath.Join(dir, "older-10.6.3.db")
	if _, err := os.Stat(path + "-shm"); err == nil {
		t.Skipf("%s-shm exists; the fallback is not needed", path)
	}
	db := mustOpen(t, path)
	if notes := strings.Join(db.Notes(), "\n"); !strings.Contains(notes, "opened immutable") {
		t.Errorf("Notes() = %q, want the immutable fallback noted", notes)
	}
	s, err := db.Session(t.Context(), "b6ed15da-2bc8-4bc7-b7a2-32fe9746c8be")
	if err != nil || len(s.Prompts) != 2 || len(s.Observations) != 3 || len(s.Summaries) != 2 {
		t.Errorf("Session = %+v, %v; want 2 prompts, 3 observations, 2 summaries", s, err)
	}
}
