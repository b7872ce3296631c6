package claudemem

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// insertObs is an observation for sess-a (memory id mem-a) with a unique hash.
func insertObs(n int, narrative string) string {
	return fmt.Sprintf(`INSERT INTO observations (memory_session_id, project, type, title, narrative, prompt_number,
  created_at, created_at_epoch, content_hash) VALUES ('mem-a', 'proj', 'change', 'late %d', '%s', 2, 'x', %d, 'late-%d')`,
		n, narrative, t0+100000+int64(n), n)
}

// mustConn pins one connection of a writer, the way claude-mem's worker holds one.
func mustConn(tb testing.TB, path string, pragmas ...string) *sql.Conn {
	tb.Helper()
	w := mustWriter(tb, path)
	c, err := w.Conn(tb.Context())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	for _, p := range pragmas {
		mustExec(tb, c, p)
	}
	return c
}

func mustExec(tb testing.TB, c *sql.Conn, stmt string) {
	tb.Helper()
	if _, err := c.ExecContext(context.Background(), stmt); err != nil {
		tb.Fatalf("%s: %v", stmt, err)
	}
}

// obsCount reads sess-a with a bound on the time it may take.
func obsCount(tb testing.TB, db *DB, limit time.Duration) int {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), limit)
	defer cancel()
	s, err := db.Session(ctx, "sess-a")
	if err != nil {
		tb.Fatalf("Session while another connection writes: %v", err)
	}
	return len(s.Observations)
}

// TestReadDuringWriteTransaction: claude-mem's worker holds a write
// transaction (BEGIN IMMEDIATE + insert, not committed) while we read. The
// read succeeds at once and sees the last committed state; after the commit
// it sees the new row, without a checkpoint.
func TestReadDuringWriteTransaction(t *testing.T) {
	for _, journal := range []string{"wal", "delete"} {
		t.Run(journal, func(t *testing.T) {
			path := mustCreateDB(t, filepath.Join(t.TempDir(), "claude-mem.db"), schemaCurrent, rowsCurrent, journal)
			db := mustOpen(t, path)
			w := mustConn(t, path, "PRAGMA wal_autocheckpoint=0")
			mustExec(t, w, "BEGIN IMMEDIATE")
			mustExec(t, w, insertObs(1, "uncommitted"))
			if got := obsCount(t, db, 3*time.Second); got != 3 {
				t.Errorf("during the write transaction: %d observations, want 3 (committed only)", got)
			}
			mustExec(t, w, "COMMIT")
			if got := obsCount(t, db, 3*time.Second); got != 4 {
				t.Errorf("after commit: %d observations, want 4", got)
			}
		})
	}
}

// TestReadWaitsForExclusiveLock: in rollback-journal mode (claude-mem
// 13.4.0 leaves its file so) a committing writer locks readers out briefly;
// the busy timeout rides that out.
func TestReadWaitsForExclusiveLock(t *testing.T) {
	path := mustCreateDB(t, filepath.Join(t.TempDir(), "claude-mem.db"), schemaCurrent, rowsCurrent, "delete")
	db := mustOpen(t, path)
	w := mustConn(t, path)
	mustExec(t, w, "BEGIN EXCLUSIVE")
	mustExec(t, w, insertObs(1, "x"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond)
		w.ExecContext(context.Background(), "COMMIT")
	}()
	start := time.Now()
	got := obsCount(t, db, 4*time.Second)
	<-done
	if got != 4 {
		t.Errorf("after waiting for the lock: %d observations, want 4", got)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("read took %v: it cannot have waited for the exclusive lock", d)
	}
}

// TestLockedReadHonorsContext: a lock held longer than the caller can wait
// ends the read when its context ends, not after the busy timeout.
func TestLockedReadHonorsContext(t *testing.T) {
	path := mustCreateDB(t, filepath.Join(t.TempDir(), "claude-mem.db"), schemaCurrent, rowsCurrent, "delete")
	db := mustOpen(t, path)
	w := mustConn(t, path)
	mustExec(t, w, "BEGIN EXCLUSIVE")
	mustExec(t, w, insertObs(1, "x"))
	t.Cleanup(func() { w.ExecContext(context.Background(), "ROLLBACK") })
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := db.Session(ctx, "sess-a")
	if err == nil {
		t.Fatal("Session under an exclusive lock = nil error, want one")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Session returned after %v, want about the context's 200ms", d)
	}
	if _, err := db.Sessions(ctx, ""); err == nil {
		t.Error("Sessions with an expired context = nil error, want one")
	}
}

// TestWALFrames: committed frames still in the WAL are visible, uncommitted
// ones (spilled by a writer whose cache overflowed) are not — both live and in
// a copy of the files taken mid-transaction without the -shm index.
func TestWALFrames(t *testing.T) {
	dir := t.TempDir()
	path := mustCreateDB(t, filepath.Join(dir, "claude-mem.db"), schemaCurrent, rowsCurrent, "wal")
	db := mustOpen(t, path)
	w := mustConn(t, path, "PRAGMA wal_autocheckpoint=0", "PRAGMA cache_size=10")
	mustExec(t, w, insertObs(1, "committed"))
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	committed := walSize()
	if committed == 0 {
		t.Fatal("precondition: the committed insert is not in the WAL")
	}
	mustExec(t, w, "BEGIN IMMEDIATE")
	big := strings.Repeat("uncommitted ", 200)
	for i := 2; i < 300; i++ {
		mustExec(t, w, insertObs(i, big))
	}
	if walSize() <= committed {
		t.Fatal("precondition: the uncommitted inserts did not spill into the WAL")
	}
	if got := obsCount(t, db, 3*time.Second); got != 4 {
		t.Errorf("live: %d observations, want 4 (3 + 1 committed in the WAL)", got)
	}

	cp := filepath.Join(t.TempDir(), "claude-mem.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, cp+suffix); err != nil {
			t.Fatal(err)
		}
	}
	if got := obsCount(t, mustOpen(t, cp), 3*time.Second); got != 4 {
		t.Errorf("copy without -shm: %d observations, want 4", got)
	}
	mustExec(t, w, "ROLLBACK")
}
