package permit

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/internal/folders"
)

// TestRunDeadline: a payload that never ends does not hold the Read: at the
// deadline Run logs one line and calls exit(0), and prints nothing.
func TestRunDeadline(t *testing.T) {
	mem := t.TempDir()
	env := folders.Env{Home: t.TempDir(), Getenv: func(k string) string {
		if k == "CLAUDE_MEM_DATA_DIR" {
			return mem
		}
		return ""
	}}
	stdin, w := io.Pipe() // never written: the read blocks
	var stdout bytes.Buffer
	exited := make(chan int, 1)
	// The real exit ends the process; this one ends the blocked read, so
	// that Run can return.
	exit := func(code int) { exited <- code; w.CloseWithError(io.ErrUnexpectedEOF) }
	Run(nil, env, stdin, &stdout, 50*time.Millisecond, exit)
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("exit(%d), want exit(0)", code)
		}
	default:
		t.Fatal("Run returned without calling exit at the deadline")
	}
	if stdout.Len() != 0 {
		t.Errorf("printed %q, want nothing", stdout.String())
	}
	log, err := os.ReadFile(filepath.Join(mem, "logs", "bottle.log"))
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	if got := string(log); strings.Count(got, "\n") != 1 || !strings.Contains(got, "pre-tool-use") || !strings.Contains(got, "deadline exceeded") {
		t.Errorf("log %q, want one pre-tool-use line saying the deadline passed", got)
	}
}

// TestRunAnswers: before the deadline Run answers as Hook does and never
// calls exit.
func TestRunAnswers(t *testing.T) {
	env := folders.Env{Home: t.TempDir(), Getenv: func(string) string { return "" }}
	var run, hook bytes.Buffer
	payload := `{"session_id":"s","tool_name":"mcp__bottle__read_bottle","tool_input":{}}`
	Run(nil, env, strings.NewReader(payload), &run, time.Minute, func(int) { t.Error("exit called before the deadline") })
	if err := Hook(t.Context(), nil, env, strings.NewReader(payload), &hook); err != nil {
		t.Fatal(err)
	}
	if got, want := run.String(), hook.String(); got != want || !strings.Contains(got, `"permissionDecision":"allow"`) {
		t.Errorf("Run printed %q, want Hook's allow %q", got, want)
	}
}
