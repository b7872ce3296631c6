//go:build unix

package main

// Crashes (docs/reliability.md): a render killed with SIGKILL while it writes
// the bottle leaves the previous bottle intact (docs/format.md, "Writing"); the temp file it
// leaves is removed by a later write once it is stale.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// previous writes an old bottle of id, older than its sources, and returns
// its content.
func previous(t *testing.T, w *sandbox, id string) string {
	t.Helper()
	const prev = "# Session bottle — previous\nPREVIOUS BOTTLE, must survive\n"
	mustWrite(t, w.bottle(id), []byte(prev))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(w.bottle(id), old, old); err != nil {
		t.Fatal(err)
	}
	return prev
}

// TestCrashMidWrite renders a session whose bottle is about 40 MB (no
// budget) and kills the process with SIGKILL as soon as its temp file
// appears, a few times. The bottle is always either the previous one or a
// complete new one; at least one kill must land between the temp file's
// creation and the rename, and there it is the previous one.
func TestCrashMidWrite(t *testing.T) {
	w := newSandbox(t)
	const sid = "crash-mid-write-1"
	var b strings.Builder
	big := strings.Repeat("x", 1<<20)
	for i := range 40 {
		b.WriteString(promptLine(t, sid, fmt.Sprintf("p-%d", i), fmt.Sprintf("PROMPT-%d %s", i, big)))
		b.WriteString(replyLine(t, sid, fmt.Sprintf("r-%d", i), fmt.Sprintf("REPLY-%d", i)))
	}
	w.transcript(t, sid, []byte(b.String()))
	prev := previous(t, w, sid)
	tmpGlob := filepath.Join(w.bottlesDir(), "."+sid+".md.tmp-*")

	landed, attempts := 0, 0
	var sizes []string
	for ; attempts < 6 && landed < 3; attempts++ {
		cmd := w.command(t.Context(), w.hookbin, "render", sid, "--budget", "0")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var tmp string
		deadline := time.Now().Add(30 * time.Second)
		for tmp == "" && time.Now().Before(deadline) {
			if m, _ := filepath.Glob(tmpGlob); len(m) > 0 {
				tmp = m[0]
				cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		killed := errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
		data, rerr := os.ReadFile(w.bottle(sid))
		switch {
		case rerr != nil:
			t.Fatalf("attempt %d: the bottle is gone: %v", attempts, rerr)
		case string(data) == prev:
			if !killed || tmp == "" {
				t.Fatalf("attempt %d: render neither finished nor was killed (%v)", attempts, err)
			}
			landed++
			if fi, err := os.Stat(tmp); err == nil {
				sizes = append(sizes, fmt.Sprintf("%d MB", fi.Size()>>20))
			}
		case strings.HasPrefix(string(data), "# Session bottle — "+sid) && strings.HasSuffix(string(data), "REPLY-39\n\n---\n"):
			// The rename won the race: a complete new bottle. Put the
			// previous one back for the next attempt.
			prev = previous(t, w, sid)
		default:
			t.Fatalf("attempt %d: a partial bottle of %d bytes", attempts, len(data))
		}
	}
	t.Logf("%d of %d SIGKILLs landed mid-write (temp file at %s); the previous bottle survived each", landed, attempts, strings.Join(sizes, ", "))
	if landed == 0 {
		t.Fatalf("no kill landed between the temp file's creation and the rename in %d attempts", attempts)
	}

	// The killed writers' temp files: a later write removes them once they
	// are older than a minute (a live writer's is younger), and leaves a
	// complete bottle.
	temps, _ := filepath.Glob(tmpGlob)
	if len(temps) == 0 {
		t.Fatal("a writer killed mid-write left no temp file (was it killed?)")
	}
	old := time.Now().Add(-2 * time.Minute)
	for _, p := range temps {
		os.Chtimes(p, old, old)
	}
	if r := w.cli(t, "render", sid); r.code != 0 {
		t.Fatalf("render after the crashes: %s", r.stderr)
	}
	if left, _ := filepath.Glob(tmpGlob); len(left) > 0 {
		t.Errorf("stale temp files left after a later write: %v", left)
	}
	if data, _ := os.ReadFile(w.bottle(sid)); !strings.HasPrefix(string(data), "# Session bottle — "+sid) || !strings.HasSuffix(string(data), "---\n") {
		t.Errorf("bottle after the crashes is not complete")
	}
}

// TestCrashHookKilled: a session-start hook killed at any point (here while
// it renders) prints nothing, and the bottle is the previous one or a
// complete new one.
func TestCrashHookKilled(t *testing.T) {
	w := newSandbox(t)
	const sid = "crash-hook-1"
	tp := w.transcript(t, sid, basicTranscript(t))
	prev := previous(t, w, sid)
	for _, after := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 10 * time.Millisecond} {
		cmd := w.command(t.Context(), w.hookbin, "session-start")
		cmd.Stdin = strings.NewReader(string(payload(t, map[string]any{"session_id": sid, "transcript_path": tp, "source": "compact"})))
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if s := out.String(); s != "" {
			parseAnswer(t, s) // killed after it answered: a whole answer
		}
		data, _ := os.ReadFile(w.bottle(sid))
		if string(data) != prev && !(strings.HasPrefix(string(data), "# Session bottle — "+sid) && strings.HasSuffix(string(data), "---\n")) {
			t.Errorf("killed after %v: bottle is %q", after, data)
		}
	}
}
