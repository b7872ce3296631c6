// Package hooklog is bottle.log's one line format, shared by hookbin's hooks
// and the MCP server: an [Entry] per line, appended with [Append] (which
// rotates the file past [MaxSize]) and read back with [Last] and [Parse].
//
// It owns the format and the file: how a line is written, escaped, capped,
// rotated and read back. It does not know where the log lives (callers pass
// the path) and never reports to stdout or stderr, which belong to the hook's
// answer and to Claude Code. It imports privacy, whose redactor every
// outcome passes: an error may quote a line that holds a credential.
package hooklog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"bottle/privacy"
)

// ErrNotRegular is returned by [Append] when the log's path holds a symlink,
// a folder or anything else than a regular file.
var ErrNotRegular = errors.New("not a regular file (a symlink is not followed)")

// MaxSize is the size past which the log is rotated: the file moves to
// <path>.1 (replacing the previous one) and a new file starts.
const MaxSize = 1 << 20

// DefaultOutcomeLimit is how many bytes of an outcome a line keeps when
// [Entry.OutcomeLimit] is 0.
const DefaultOutcomeLimit = 500

// Entry is one line of the log, one per hook run:
//
//	2026-07-20T10:32:00.123Z session-start session=e179046d-… source=compact mode=full 12ms ok
//
// Fields are space-separated and never contain spaces: a field is "-" when
// empty, else at most 128 bytes with every byte outside [A-Za-z0-9._:/-]
// percent-encoded, so a hostile session id or source cannot add fields or
// lines. The outcome, the rest of the line, is "ok", "ok: <note>",
// "skipped: <why>" or "error: <message>", on one line.
type Entry struct {
	// Time is when the run started; the line has it in UTC to the millisecond.
	Time time.Time
	// Hook is the hookbin subcommand that ran, or "mcpserver".
	Hook string
	// Session is the payload's session id, as given.
	Session string
	// Key names the payload field logged beside the session: "source"
	// (session-start), "reason" (session-end), or "" for none.
	Key   string
	Value string
	// Mode is how the bottle was rendered ("full", …), or "" when it was not.
	Mode string
	// Duration is logged in whole milliseconds.
	Duration time.Duration
	// Outcome is free text, made one line of valid UTF-8 when written.
	Outcome string
	// OutcomeLimit is the most bytes of Outcome the line keeps, cut at a
	// character and marked with "…"; 0 means [DefaultOutcomeLimit]. It is not
	// read back by [Parse].
	OutcomeLimit int
}

// String is the entry's log line, without the newline.
func (e Entry) String() string {
	var b strings.Builder
	b.WriteString(e.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
	b.WriteString(" " + field(e.Hook))
	b.WriteString(" session=" + field(e.Session))
	if e.Key != "" {
		b.WriteString(" " + e.Key + "=" + field(e.Value))
	}
	b.WriteString(" mode=" + field(e.Mode))
	fmt.Fprintf(&b, " %dms ", e.Duration.Milliseconds())
	limit := e.OutcomeLimit
	if limit <= 0 {
		limit = DefaultOutcomeLimit
	}
	b.WriteString(text(privacy.Redact(e.Outcome), limit))
	return b.String()
}

// field is a value as a log field (see [Entry]).
func field(s string) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 128; i++ {
		c := s[i]
		if safe(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func safe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._:/-", c) >= 0
}

// text is s as an outcome: valid UTF-8 on one line, runs of spaces and
// control characters as one space, at most max bytes ("ok" when nothing is
// left).
func text(s string, max int) string {
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

// Append appends e as one line to the log at path, rotating the file past
// [MaxSize]. The folder is created 0700 and the file 0600: lines name
// sessions. A relative path is refused, since it would log into whatever
// folder the process runs in. The hooks and the MCP server ignore the error:
// they must not fail, or speak, because their log cannot be written.
func Append(path string, e Entry) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("log %q: not an absolute path", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("log %s: %w", path, err)
	}
	// The log is bottle's own file: a symlink or anything but a regular file
	// in its place would make the hooks write, or rotate, outside bottle's
	// folders, so it is refused, and the open does not follow one either.
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("log %s: %w", path, ErrNotRegular)
		}
		if fi.Size() > MaxSize {
			// A failed rotation still logs: a long log beats a lost line.
			_ = os.Rename(path, path+".1")
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return fmt.Errorf("log %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("log %s: %w", path, ErrNotRegular)
	}
	// One write per line: appends of concurrent hooks do not interleave.
	_, err = f.WriteString(e.String() + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("log %s: %w", path, err)
	}
	return nil
}

// lineRE splits a log line into time, hook, the key=value fields, the
// duration and the outcome. Compiled on first use: every hook writes the
// log, only doctor and list read it back.
var lineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\S+) (\S+)((?: \S+=\S*)*) (\d+)ms (.*)$`)
})

// Parse reads back a line written by [Append] (a trailing newline is
// allowed). Fields are decoded, "-" reading as empty; a field cut at 128
// bytes stays cut. ok is false for anything that is not a log line.
func Parse(line string) (e Entry, ok bool) {
	m := lineRE().FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return Entry{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, m[1])
	if err != nil {
		return Entry{}, false
	}
	ms, err := strconv.ParseInt(m[4], 10, 64)
	if err != nil {
		return Entry{}, false
	}
	e = Entry{Time: t, Hook: unfield(m[2]), Duration: time.Duration(ms) * time.Millisecond, Outcome: m[5]}
	for _, kv := range strings.Fields(m[3]) {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "session":
			e.Session = unfield(v)
		case k == "mode":
			e.Mode = unfield(v)
		case e.Key == "":
			e.Key, e.Value = k, unfield(v)
		}
	}
	return e, true
}

// unfield undoes field; an escape that is not one stays as it is.
func unfield(s string) string {
	if s == "-" {
		return ""
	}
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Last returns the last line of the log at path, without its newline (""
// when the file is empty). Only the file's tail is read.
func Last(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("log %s: %w", path, ErrNotRegular)
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
