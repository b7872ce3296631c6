package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestLogLineFormat(t *testing.T) {
	at := time.Date(2026, 7, 20, 12, 32, 0, 123e6, time.FixedZone("CEST", 2*3600))
	tests := []struct {
		name string
		e    logEntry
		want string
	}{
		{"SessionStart", logEntry{Time: at, Hook: "session-start", Session: "e179046d-7049", Key: "source", Value: "compact", Mode: "full", Duration: 12 * time.Millisecond, Outcome: "ok"},
			"2026-07-20T10:32:00.123Z session-start session=e179046d-7049 source=compact mode=full 12ms ok"},
		{"Stop", logEntry{Time: at, Hook: "stop", Session: "abc", Mode: "full", Duration: 3 * time.Millisecond, Outcome: "ok"},
			"2026-07-20T10:32:00.123Z stop session=abc mode=full 3ms ok"},
		{"Unknowns", logEntry{Time: at, Hook: "session-end", Key: "reason", Outcome: "error: parse payload: unexpected EOF"},
			"2026-07-20T10:32:00.123Z session-end session=- reason=- mode=- 0ms error: parse payload: unexpected EOF"},
		{"Hostile", logEntry{Time: at, Hook: "session-start", Session: "a b\n2026 forged=1", Key: "source", Value: "x y", Outcome: "error: line one\nline two\r\n\tend"},
			"2026-07-20T10:32:00.123Z session-start session=a%20b%0A2026%20forged%3D1 source=x%20y mode=- 0ms error: line one line two end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.e.String()
			if got != tt.want {
				t.Errorf("String() =\n%q, want\n%q", got, tt.want)
			}
			tm, hook, outcome, ok := parseLogLine(got)
			if !ok || !tm.Equal(at) || hook != tt.e.Hook || outcome != logText(tt.e.Outcome, 500) {
				t.Errorf("parseLogLine(%q) = %v, %q, %q, %v", got, tm, hook, outcome, ok)
			}
		})
	}
	long := logEntry{Time: at, Hook: "stop", Session: strings.Repeat("x", 1000), Outcome: "error: " + strings.Repeat("é", 1000)}.String()
	if len(long) > 800 || strings.Contains(long, "\n") {
		t.Errorf("a log line with long fields is %d bytes", len(long))
	}
	if _, _, _, ok := parseLogLine("not a log line"); ok {
		t.Error("parseLogLine accepted garbage")
	}
}

func TestLogAppendAndRotate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	path := filepath.Join(dir, "bottle.log")
	e := logEntry{Time: time.Unix(0, 0), Hook: "stop", Session: "abc", Outcome: "ok"}
	appendLog(path, e)
	appendLog(path, e)
	if got := readLines(path); len(got) != 2 || got[1] != e.String() {
		t.Fatalf("log = %q", got)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("log dir mode %v, want 0700", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("log file mode %v, want 0600", fi.Mode().Perm())
		}
	}

	big := strings.Repeat("old line\n", hookLogMax/9+2)
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	appendLog(path, e)
	if got := readLines(path); len(got) != 1 {
		t.Errorf("after rotation the log has %d lines, want 1", len(got))
	}
	if old, _ := os.ReadFile(path + ".1"); string(old) != big {
		t.Errorf("bottle.log.1 holds %d bytes, want the rotated %d", len(old), len(big))
	}
	// A second rotation replaces bottle.log.1: one old file is kept.
	if err := os.WriteFile(path, []byte(big+"newer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	appendLog(path, e)
	if old, _ := os.ReadFile(path + ".1"); !strings.HasSuffix(string(old), "newer\n") {
		t.Error("second rotation did not replace bottle.log.1")
	}
	if files, _ := filepath.Glob(path + "*"); len(files) != 2 {
		t.Errorf("log files %q, want bottle.log and bottle.log.1", files)
	}
}

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

func TestLastLogLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bottle.log")
	if _, err := lastLogLine(path); !os.IsNotExist(err) {
		t.Errorf("missing log: err %v", err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 20000)+"\nfirst\nlast line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := lastLogLine(path); got != "last line" || err != nil {
		t.Errorf("lastLogLine = %q, %v", got, err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := lastLogLine(path); got != "" || err != nil {
		t.Errorf("empty log: %q, %v", got, err)
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
