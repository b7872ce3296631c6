package main

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair and returns its terminal end.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("pty number: %v", e)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestHookOnATerminal: a hook run by hand, with a terminal on stdin, says
// what it expects in one line on stderr and returns at once, instead of
// waiting its deadline for a payload.
func TestHookOnATerminal(t *testing.T) {
	tty := openPTY(t)
	if !isTerminal(tty) {
		t.Fatal("isTerminal(a pty) = false")
	}
	for _, name := range []string{"session-start", "stop", "session-end"} {
		t.Run(name, func(t *testing.T) {
			_, env := scratchEnv(t)
			for k, v := range env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := exitCode(run(context.Background(), []string{name}, tty, &stdout, &stderr), &stderr)
			if took := time.Since(start); took > 100*time.Millisecond {
				t.Errorf("took %v, want at most 100ms", took)
			}
			if code != 0 || stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q; want 0 and nothing", code, stdout.String())
			}
			if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "reads the hook's JSON payload on stdin") {
				t.Errorf("stderr = %q, want one line saying what the hook reads", got)
			}
		})
	}
	// Neither a pipe nor a file is a terminal.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(r) || isTerminal(os.NewFile(^uintptr(0), "bad")) {
		t.Error("isTerminal says a pipe or a bad descriptor is a terminal")
	}
}
