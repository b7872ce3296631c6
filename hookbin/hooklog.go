package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// hookLogMax is the size past which the hook log is rotated: the file moves
// to bottle.log.1 (replacing the previous one) and a new file starts.
const hookLogMax = 1 << 20

// logEntry is one line of the hook log, one per hook run:
//
//	2026-07-20T10:32:00.123Z session-start session=e179046d-… source=compact mode=full 12ms ok
//
// Fields are space-separated and never contain spaces (see logField); the
// outcome, the rest of the line, is "ok", "ok: <note>", "skipped: <why>" or
// "error: <message>".
type logEntry struct {
	Time     time.Time
	Hook     string
	Session  string
	Key      string // "source" (session-start), "reason" (session-end), or "" for none
	Value    string
	Mode     string
	Duration time.Duration
	Outcome  string
}

// String is the entry's log line, without the newline.
func (e logEntry) String() string {
	var b strings.Builder
	b.WriteString(e.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
	b.WriteString(" " + logField(e.Hook))
	b.WriteString(" session=" + logField(e.Session))
	if e.Key != "" {
		b.WriteString(" " + e.Key + "=" + logField(e.Value))
	}
	b.WriteString(" mode=" + logField(e.Mode))
	fmt.Fprintf(&b, " %dms ", e.Duration.Milliseconds())
	b.WriteString(logText(e.Outcome, 500))
	return b.String()
}

// logField is a value as a log field: "-" when empty, else at most 128
// bytes with every byte outside [A-Za-z0-9._:/-] percent-encoded, so a
// hostile session id or source cannot add fields or lines.
func logField(s string) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 128; i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._:/-", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// logText is free text on one line of at most max bytes.
func logText(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || r == '\u2028' || r == '\u2029' || r == ' ' }), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	if s == "" {
		return "ok"
	}
	return s
}

// appendLog appends e to the hook log at path, rotating it past hookLogMax.
// Failures are ignored: a hook never writes to stderr (Claude Code logs it)
// or stdout (its answer), and must not fail because its log cannot be written.
// The folder is created 0700 and the file 0600: log lines name sessions.
func appendLog(path string, e logEntry) {
	if !filepath.IsAbs(path) {
		return // no data folder known: never log into the working directory
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > hookLogMax {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	// One write per line: appends of concurrent hooks do not interleave.
	_, _ = f.WriteString(e.String() + "\n")
	_ = f.Close()
}

// logLineRE splits a hook log line into time, hook and outcome.
var logLineRE = regexp.MustCompile(`^(\S+) (\S+)(?: \S+=\S*)* (\d+)ms (.*)$`)

// parseLogLine reads back a line written by appendLog.
func parseLogLine(line string) (t time.Time, hook, outcome string, ok bool) {
	m := logLineRE.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return time.Time{}, "", "", false
	}
	t, err := time.Parse(time.RFC3339Nano, m[1])
	if err != nil {
		return time.Time{}, "", "", false
	}
	return t, m[2], m[4], true
}

// lastLogLine returns the last line of the log at path ("" when the file is
// missing or empty). Only the file's tail is read.
func lastLogLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	const tail = 8 << 10
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	s := strings.TrimRight(string(buf[:n]), "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s, nil
}
