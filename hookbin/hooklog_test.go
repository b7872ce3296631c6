package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFailureIgnored: an unwritable log changes nothing about a hook run.
func TestLogFailureIgnored(t *testing.T) {
	w := newHookWorld(t)
	w.transcript(t, "abc", "compaction")
	// <data>/logs is a regular file: the log folder cannot be made.
	if err := os.MkdirAll(w.data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.data, "logs"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := w.hook(t, "session-start", `{"session_id":"abc","source":"compact"}`)
	if parseAnswer(t, out) == "" {
		t.Error("no pointer when the log cannot be written")
	}
	out, _ = w.hook(t, "session-start", `garbage`)
	if out != "" {
		t.Errorf("stdout %q", out)
	}
}

// TestLogOneLinePerRun: every hook run, whatever its outcome, adds one line.
func TestLogOneLinePerRun(t *testing.T) {
	w := newHookWorld(t)
	w.transcript(t, "abc", "basic")
	w.hook(t, "session-start", `{"session_id":"abc","source":"startup"}`)
	w.hook(t, "session-start", `{"session_id":"abc","source":"compact"}`)
	w.hook(t, "stop", `{"session_id":"abc"}`)
	w.hook(t, "session-end", `{"session_id":"abc","reason":"other"}`)
	w.hook(t, "session-end", ``)
	lines := w.logLines(t)
	want := []string{
		" session-start session=abc source=startup mode=- ",
		" session-start session=abc source=compact mode=full ",
		" stop session=abc mode=full ",
		" session-end session=abc reason=other mode=full ",
		" session-end session=- reason=- mode=- ",
	}
	if len(lines) != len(want) {
		t.Fatalf("log has %d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if !strings.Contains(l, want[i]) {
			t.Errorf("line %d = %q, want it to contain %q", i+1, l, want[i])
		}
	}
}
