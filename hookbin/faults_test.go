//go:build linux

package main

// Environment faults (docs/reliability.md): a read-only bottles folder (as an
// unprivileged user, and as a read-only bind mount), a full disk (a file-size
// limit, a full tmpfs, a full stdout), a missing HOME, an unreadable or
// hostile claude-mem settings file, a locked database. CI runs as root,
// which ignores file modes, so the faults are made real: the subject runs as
// nobody, or in a private mount namespace. The hooks still exit 0 within
// their deadline and print one valid answer or nothing; the previous bottle
// stays intact; the CLI and the MCP server fail with a clear message.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"bottle/claudemem/memtest"
	"bottle/internal/hooklog"
)

// nobody is the unprivileged user the faults run as.
const nobody = 65534

const faultSID = "11111111-2222-4333-8444-555555555555"

// requireRoot skips a test that needs root to set a fault up.
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root to %s (running as uid %d)", why, os.Geteuid())
	}
}

// asNobody runs the world's subprocesses as nobody, for whom file modes hold.
func asNobody(t *testing.T, w *sandbox) {
	t.Helper()
	requireRoot(t, "run the subject as an unprivileged user, so that file modes apply")
	w.cred = &syscall.Credential{Uid: nobody, Gid: nobody}
}

// giveNobody makes paths (recursively) nobody's.
func giveNobody(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		filepath.Walk(p, func(q string, _ os.FileInfo, err error) error {
			if err == nil {
				err = os.Lchown(q, nobody, nobody)
			}
			if err != nil {
				t.Fatal(err)
			}
			return nil
		})
	}
}

// canUnshare reports whether this process can make a private mount namespace.
func canUnshare(t *testing.T) {
	t.Helper()
	requireRoot(t, "mount in a private namespace")
	if out, err := exec.Command("unshare", "-m", "sh", "-c", "mount --make-rprivate / && mount -t tmpfs tmpfs /mnt").CombinedOutput(); err != nil {
		t.Skipf("no private mount namespace here: %v %s", err, out)
	}
}

// wantPrevious checks that the bottle is still prev and no temp file is left.
func wantPrevious(t *testing.T, w *sandbox, id, prev string) {
	t.Helper()
	if data, err := os.ReadFile(w.bottle(id)); err != nil || string(data) != prev {
		t.Errorf("previous bottle not intact: %q, %v", data, err)
	}
	for _, f := range listFiles(t, w.bottlesDir()) {
		if strings.Contains(f, ".tmp-") {
			t.Errorf("temp file %s left behind", f)
		}
	}
}

// outcomes are the outcomes of the logged hook runs.
func (w *sandbox) outcomes(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, l := range checkLog(t, w) {
		e, _ := hooklog.Parse(l)
		out = append(out, e.Outcome)
	}
	return out
}

// allHooks runs the three hooks (and, with clear, /clear's archiving) on
// the world's session and checks that none answers.
func allHooks(t *testing.T, w *sandbox, tp string, clear bool) {
	t.Helper()
	runs := []struct{ hook, key, value string }{{"session-start", "source", "compact"}, {"stop", "", ""}, {"session-end", "reason", "other"}}
	if clear {
		runs = append(runs, struct{ hook, key, value string }{"session-end", "reason", "clear"})
	}
	for _, p := range runs {
		pl := map[string]any{"session_id": faultSID, "transcript_path": tp}
		if p.key != "" {
			pl[p.key] = p.value
		}
		fi, err := os.Lstat(w.bottle(faultSID))
		prev := err == nil && fi.Mode().IsRegular()
		ptr, _ := w.hook(t, p.hook, payload(t, pl))
		switch {
		case p.hook == "session-start" && prev:
			wantStalePointer(t, w, ptr, fi.ModTime())
		case ptr != "":
			t.Errorf("%s answered although the bottle could not be written:\n%s", p.hook, ptr)
		}
	}
}

// wantStalePointer checks a compaction's answer when the bottle could not
// be refreshed: the pointer to the previous bottle, saying when it was
// last rendered.
func wantStalePointer(t *testing.T, w *sandbox, ptr string, written time.Time) {
	t.Helper()
	for _, want := range []string{w.bottle(faultSID) + "   (session " + faultSID + ")",
		"It could not be refreshed now; it was last rendered at " + written.UTC().Format(time.RFC3339) + ", so what"} {
		if !strings.Contains(ptr, want) {
			t.Errorf("session-start with a bottle it could not refresh: answer lacks %q:\n%s", want, ptr)
		}
	}
}

// TestFaultReadOnlyBottlesDir: the bottles folder is not writable (nobody,
// folder owned by root). Hooks print nothing and log why; the CLI fails with
// one line; render_bottle says what to do; read_bottle pages a fresh
// render; the previous bottle is intact.
func TestFaultReadOnlyBottlesDir(t *testing.T) {
	w := newSandbox(t)
	asNobody(t, w)
	tp := w.transcript(t, faultSID, basicTranscript(t))
	prev := previous(t, w, faultSID)
	mustMkdir(t, filepath.Dir(w.logPath()))
	giveNobody(t, filepath.Dir(w.logPath()))
	allHooks(t, w, tp, true)
	for _, o := range w.outcomes(t) {
		if !strings.Contains(o, "permission denied") {
			t.Errorf("log outcome %q, want permission denied", o)
		}
	}
	r := w.cli(t, "render", faultSID)
	wantFailure(t, "render", r)
	if !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("render: %q, want permission denied", r.stderr)
	}
	if r := w.cli(t, "render", faultSID, "--out", "-"); r.code != 0 {
		t.Errorf("render --out - needs no writable folder: %s", r.stderr)
	}
	m := w.startMCP(t)
	if text, isErr := m.call(t, "render_bottle", map[string]any{"session_id": faultSID}); !isErr || !strings.Contains(text, "could not write") {
		t.Errorf("render_bottle into a read-only folder: %s", text)
	}
	// read_bottle writes no bottle that exists: it pages the current
	// render all the same.
	if text, isErr := m.call(t, "read_bottle", map[string]any{"session_id": faultSID}); isErr ||
		strings.Contains(text, "PREVIOUS BOTTLE") || !strings.Contains(text, "re-rendered now") ||
		!strings.Contains(text, "There are two: `main.go` and `util.go`.") {
		t.Errorf("read_bottle with a read-only folder: %s", text)
	}
	wantPrevious(t, w, faultSID, prev)
}

// TestFaultUnreadableSources: the transcript and the database are not
// readable (mode 0600, owned by root, read by nobody). Hooks print nothing;
// the CLI says why.
func TestFaultUnreadableSources(t *testing.T) {
	w := newSandbox(t)
	asNobody(t, w)
	tp := w.transcript(t, faultSID, basicTranscript(t))
	memtest.Create(t, w.dbPath(), memtest.SchemaCurrent, "", "wal")
	for _, p := range []string{tp, w.dbPath()} {
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	giveNobody(t, w.data)
	if err := os.Chown(w.dbPath(), 0, 0); err != nil {
		t.Fatal(err)
	}
	allHooks(t, w, tp, true)
	r := w.cli(t, "render", faultSID, "--out", "-")
	wantFailure(t, "render of an unreadable transcript", r)
	if !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("render: %q, want permission denied", r.stderr)
	}
	// Readable transcript, unreadable database: a bottle that says so.
	if err := os.Chmod(tp, 0o644); err != nil {
		t.Fatal(err)
	}
	r = w.cli(t, "render", faultSID, "--out", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "claude-mem observations unavailable") || !strings.Contains(r.stdout, "- [#t1] Glob") {
		t.Errorf("render with an unreadable database: exit %d, %s\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestFaultReadOnlyMount: the bottles folder is on a read-only file system
// (a read-only bind mount in a private mount namespace, as root). Then the
// data folder is read-only but BOTTLE_DIR is writable: the log cannot be
// written, and session-start still answers.
func TestFaultReadOnlyMount(t *testing.T) {
	canUnshare(t)
	w := newSandbox(t)
	tp := w.transcript(t, faultSID, basicTranscript(t))
	prev := previous(t, w, faultSID)
	mustMkdir(t, filepath.Dir(w.logPath()))
	w.env["RO"] = w.bottlesDir()
	w.wrap = []string{"unshare", "-m", "sh", "-c", `mount --make-rprivate / && mount --bind -o ro "$RO" "$RO" && exec "$@"`, "sh"}
	allHooks(t, w, tp, true)
	for _, o := range w.outcomes(t) {
		if !strings.Contains(o, "read-only file system") {
			t.Errorf("log outcome %q, want read-only file system", o)
		}
	}
	wantFailure(t, "render", w.cli(t, "render", faultSID))
	m := w.startMCP(t)
	if text, isErr := m.call(t, "render_bottle", map[string]any{"session_id": faultSID}); !isErr || !strings.Contains(text, "read-only file system") {
		t.Errorf("render_bottle on a read-only file system: %s", text)
	}
	wantPrevious(t, w, faultSID, prev)

	// The whole data folder read-only, bottles elsewhere.
	os.Remove(w.logPath())
	w.env["RO"] = w.data
	w.env["BOTTLE_DIR"] = filepath.Join(w.root, "bottles")
	ptr, _ := w.hook(t, "session-start", payload(t, map[string]any{"session_id": faultSID, "transcript_path": tp, "source": "compact"}))
	if ptr == "" {
		t.Error("session-start gave no answer because its log is on a read-only file system")
	}
	if _, err := os.Stat(w.logPath()); !os.IsNotExist(err) {
		t.Errorf("log written on a read-only file system? %v", err)
	}
}

// bigTranscript is a session whose bottle is about 50 KB.
func bigTranscript(t *testing.T, sid string) []byte {
	big := strings.Repeat("words of a long prompt ", 1500)
	return []byte(promptLine(t, sid, "b-1", "PROMPT-OK-1 "+big) + replyLine(t, sid, "b-2", "REPLY "+big))
}

// TestFaultDiskFull: writing the bottle fails half way. With a file-size
// limit (prlimit --fsize; Go ignores SIGXFSZ, so write returns EFBIG), on a
// tmpfs that is full (ENOSPC), and with stdout on /dev/full: hooks exit 0,
// print nothing, and the previous bottle is intact with no temp file left.
func TestFaultDiskFull(t *testing.T) {
	t.Run("FileSizeLimit", func(t *testing.T) {
		if _, err := exec.LookPath("prlimit"); err != nil {
			t.Skip("prlimit not installed")
		}
		w := newSandbox(t)
		tp := w.transcript(t, faultSID, bigTranscript(t, faultSID))
		prev := previous(t, w, faultSID)
		w.wrap = []string{"prlimit", "--fsize=16384"}
		allHooks(t, w, tp, false) // /clear only renames
		for _, o := range w.outcomes(t) {
			if !strings.Contains(o, "file too large") {
				t.Errorf("log outcome %q, want file too large", o)
			}
		}
		r := w.cli(t, "render", faultSID)
		wantFailure(t, "render", r)
		if !strings.Contains(r.stderr, "file too large") {
			t.Errorf("render: %q", r.stderr)
		}
		m := w.startMCP(t)
		if text, isErr := m.call(t, "render_bottle", map[string]any{"session_id": faultSID}); !isErr || !strings.Contains(text, "file too large") {
			t.Errorf("render_bottle with a file-size limit: %s", text)
		}
		wantPrevious(t, w, faultSID, prev)
	})
	t.Run("FullTmpfs", func(t *testing.T) {
		canUnshare(t)
		w := newSandbox(t)
		tp := w.transcript(t, faultSID, bigTranscript(t, faultSID))
		mustMkdir(t, w.bottlesDir())
		out := filepath.Join(w.root, "out")
		mustMkdir(t, out)
		w.env["B"], w.env["OUT"], w.env["SID"] = w.bottlesDir(), out, faultSID
		// A 64 KB tmpfs over the bottles folder, the previous bottle, a filler
		// up to ENOSPC; then the subject; then what the folder holds.
		w.wrap = []string{"unshare", "-m", "sh", "-c", `mount --make-rprivate / && mount -t tmpfs -o size=64k tmpfs "$B" || exit 97
printf 'PREVIOUS BOTTLE\n' > "$B/$SID.md"
dd if=/dev/zero of="$B/filler" bs=1k >/dev/null 2>&1
"$@"; rc=$?
cat "$B/$SID.md" > "$OUT/after.md"; ls -a "$B" > "$OUT/ls.txt"
exit $rc`, "sh"}
		check := func(where string) {
			t.Helper()
			after, _ := os.ReadFile(filepath.Join(out, "after.md"))
			ls, _ := os.ReadFile(filepath.Join(out, "ls.txt"))
			if string(after) != "PREVIOUS BOTTLE\n" || strings.Contains(string(ls), ".tmp-") {
				t.Errorf("%s on a full disk: bottle %q, folder %q", where, after, ls)
			}
		}
		for _, hook := range []string{"session-start", "stop"} {
			ptr, _ := w.hook(t, hook, payload(t, map[string]any{"session_id": faultSID, "transcript_path": tp, "source": "compact"}))
			// The previous bottle lies in the namespace's tmpfs: the pointer
			// names it, with the time the wrapper wrote it.
			if hook == "session-start" && !strings.Contains(ptr, "It could not be refreshed now; it was last rendered at ") {
				t.Errorf("session-start on a full disk with a previous bottle: %q, want the pointer to it", ptr)
			}
			if hook != "session-start" && ptr != "" {
				t.Errorf("%s answered on a full disk", hook)
			}
			check(hook)
		}
		for _, o := range w.outcomes(t) {
			if !strings.Contains(o, "no space left on device") {
				t.Errorf("log outcome %q, want no space left on device", o)
			}
		}
		r := w.cli(t, "render", faultSID)
		wantFailure(t, "render", r)
		check("render")
	})
	t.Run("StdoutFull", func(t *testing.T) {
		w := newSandbox(t)
		tp := w.transcript(t, faultSID, basicTranscript(t))
		w.wrap = []string{"sh", "-c", `exec "$@" > /dev/full`, "sh"}
		w.hook(t, "session-start", payload(t, map[string]any{"session_id": faultSID, "transcript_path": tp, "source": "compact"}))
		if o := w.outcomes(t); len(o) != 1 || !strings.Contains(o[0], "write answer") || !strings.Contains(o[0], "no space left on device") {
			t.Errorf("log outcomes %q, want a failed write of the answer", o)
		}
	})
}

// TestFaultStdoutClosed: Claude Code stopped reading the hook's stdout (the
// pipe's reader is closed). The answer's write fails; the hook exits 0 and
// logs it instead of dying of SIGPIPE.
func TestFaultStdoutClosed(t *testing.T) {
	w := newSandbox(t)
	tp := w.transcript(t, faultSID, basicTranscript(t))
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer wr.Close()
	cmd := w.command(t.Context(), w.hookbin, "session-start")
	cmd.Stdin = strings.NewReader(string(payload(t, map[string]any{"session_id": faultSID, "transcript_path": tp, "source": "compact"})))
	cmd.Stdout = wr
	err = cmd.Run()
	if err != nil {
		t.Errorf("session-start with a closed stdout: %v, want exit 0", err)
	}
	if o := w.outcomes(t); len(o) != 1 || !strings.Contains(o[0], "broken pipe") {
		t.Errorf("log outcomes %q, want a failed write of the answer", o)
	}
}

// TestFaultMissingHome: no HOME (unset, or empty) and none of the variables
// that stand in for it. The hooks exit 0 and print nothing, and — the
// default folders being relative then — write nothing into their working
// directory (the user's project); the MCP server starts and fails its tools
// with a message.
func TestFaultMissingHome(t *testing.T) {
	w := newSandbox(t)
	tp := w.transcript(t, faultSID, basicTranscript(t))
	for _, home := range []string{"unset", ""} {
		delete(w.env, "HOME")
		if home != "unset" {
			w.env["HOME"] = home
		}
		allHooks(t, w, tp, true)
		m := w.startMCP(t)
		for _, args := range []map[string]any{{"session_id": faultSID}, {"transcript_path": tp}, {}} {
			if text, isErr := m.call(t, "render_bottle", args); !isErr {
				t.Errorf("render_bottle %v without a home: %s", args, text)
			}
		}
		if text, isErr := m.call(t, "read_bottle", map[string]any{"session_id": faultSID}); !isErr {
			t.Errorf("read_bottle without a home: %s", text)
		}
		m.c.Close()
		if files := listFiles(t, w.cwd); len(files) > 0 {
			t.Errorf("HOME %s: hooks or server wrote into the working directory: %v", home, files)
		}
	}
	// The command line needs no home to print a bottle.
	if r := w.cli(t, "render", tp, "--out", "-"); r.code != 0 || !strings.Contains(r.stdout, "- [#t1] Glob") {
		t.Errorf("render --out - without a home: exit %d, %s", r.code, r.stderr)
	}
}

// TestFaultSettingsFile: claude-mem's settings file (which can move the data
// folder) is unreadable, a directory, malformed, of the wrong types, points
// below a regular file or at a relative path, or is a FIFO (which blocked
// every hook for good before bd9ed4c). Each hook exits 0 within its deadline
// with one valid answer or nothing, and writes nothing into its working
// directory.
func TestFaultSettingsFile(t *testing.T) {
	w := newSandbox(t)
	asNobody(t, w)
	tp := w.transcript(t, faultSID, basicTranscript(t))
	giveNobody(t, w.data)
	settings := filepath.Join(w.data, "settings.json")
	regular := filepath.Join(w.root, "regular")
	mustWrite(t, regular, []byte("x"))
	cases := []struct {
		name  string
		setup func() error
		// answers: session-start points to a bottle (in the default data folder).
		answers bool
	}{
		{"Unreadable", func() error {
			if err := os.WriteFile(settings, []byte(`{"CLAUDE_MEM_DATA_DIR":"/nowhere"}`), 0o600); err != nil {
				return err
			}
			return os.Chown(settings, 0, 0)
		}, true},
		{"Directory", func() error { return os.Mkdir(settings, 0o755) }, true},
		{"Malformed", func() error { return os.WriteFile(settings, []byte(`{"CLAUDE_MEM_DATA_DIR":`), 0o644) }, true},
		{"WrongTypes", func() error { return os.WriteFile(settings, []byte(`{"CLAUDE_MEM_DATA_DIR":["x"]}`), 0o644) }, true},
		{"BelowAFile", func() error {
			return os.WriteFile(settings, []byte(`{"CLAUDE_MEM_DATA_DIR":"`+filepath.Join(regular, "data")+`"}`), 0o644)
		}, false},
		{"Relative", func() error { return os.WriteFile(settings, []byte(`{"CLAUDE_MEM_DATA_DIR":"rel/data"}`), 0o644) }, false},
		{"FIFO", func() error { return syscall.Mkfifo(settings, 0o644) }, true},
	}
	// Short deadlines: a hook that blocks is killed a second past them.
	w.env[deadlineEnv] = "1s"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(settings)
			os.RemoveAll(w.bottlesDir())
			if err := tc.setup(); err != nil {
				t.Fatal(err)
			}
			ptr, _ := w.hook(t, "session-start", payload(t, map[string]any{"session_id": faultSID, "transcript_path": tp, "source": "compact"}))
			if tc.answers && !strings.Contains(ptr, w.bottle(faultSID)) {
				t.Errorf("session-start: want a pointer to the default bottles folder, got %q", ptr)
			}
			if !tc.answers && ptr != "" {
				t.Errorf("session-start answered: %s", ptr)
			}
			w.hook(t, "stop", payload(t, map[string]any{"session_id": faultSID, "transcript_path": tp}))
			if files := listFiles(t, w.cwd); len(files) > 0 {
				t.Errorf("hooks wrote into the working directory: %v", files)
			}
		})
	}
}

// TestFaultLockedDatabase: claude-mem's worker holds an exclusive lock on a
// rollback-journal database (it waits out its busy timeout of 5 s). A hook
// whose deadline is shorter gives up in time, prints nothing and keeps the
// previous bottle.
func TestFaultLockedDatabase(t *testing.T) {
	w := newSandbox(t)
	tp := w.transcript(t, faultSID, basicTranscript(t))
	prev := previous(t, w, faultSID)
	memtest.Create(t, w.dbPath(), memtest.SchemaCurrent, "", "delete")
	db := memtest.Writer(t, w.dbPath())
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"BEGIN EXCLUSIVE", "INSERT INTO session_summaries (memory_session_id, project, created_at, created_at_epoch) VALUES ('m','p','x',1)"} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	w.env[deadlineEnv] = "1s"
	for _, hook := range []string{"session-start", "stop", "session-end"} {
		ptr, r := w.hook(t, hook, payload(t, map[string]any{"session_id": faultSID, "transcript_path": tp, "source": "compact"}))
		if ptr != "" || r.elapsed > 3*time.Second {
			t.Errorf("%s against a locked database: answer %q after %v", hook, ptr, r.elapsed)
		}
	}
	for _, o := range w.outcomes(t) {
		if !strings.Contains(o, "deadline exceeded") {
			t.Errorf("log outcome %q, want deadline exceeded", o)
		}
	}
	wantPrevious(t, w, faultSID, prev)
}
