package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// Claude Code queues transcript lines and appends them to the file every
// 100 ms (FLUSH_INTERVAL_MS in 2.1.197 and 2.1.332), and it runs Stop hooks
// without flushing first: a Stop hook can start before the turn's last
// message reaches the disk and, on a session's first turn, before the file
// exists. A bottle rendered then would lack the answer the user just read.
// awaitTurn waits, briefly, until the transcript holds the turn.

// transcriptSettle bounds the wait: a few flush intervals. It is spent only
// when the turn is missing, which with a transcript that is written means
// one interval at most; without one (Claude Code told not to persist the
// session) it is the price of every Stop, so it stays short (deps.settle:
// tests shorten it).
const transcriptSettle = 600 * time.Millisecond

// settlePoll is the pause between two looks at the transcript.
const settlePoll = 10 * time.Millisecond

// settleTail is how much of the transcript's end is searched for the turn's
// last message: the message's own line plus the few short lines Claude Code
// writes after it.
const settleTail = 1 << 20

// minMarker is the shortest end of the last message worth looking for:
// shorter ones ("OK.") are too likely to match an earlier turn.
const minMarker = 8

// awaitTurn returns once the payload's transcript exists and, when the
// payload carries the turn's last assistant message, holds it; or when
// limit, or half the time left before ctx's deadline, has passed, or ctx is
// done. It returns a note for the hook log when it gave up, else "".
// Without a transcript_path there is nothing to wait for.
func awaitTurn(ctx context.Context, p hookPayload, limit time.Duration) string {
	if p.TranscriptPath == "" || truthy(os.Getenv("CLAUDE_CODE_SKIP_PROMPT_HISTORY")) {
		return ""
	}
	if dl, ok := ctx.Deadline(); ok {
		// Leave the render the other half.
		limit = min(limit, time.Until(dl)/2)
	}
	marker := turnMarker(p.LastAssistant)
	stop := time.Now().Add(limit)
	tick := time.NewTicker(settlePoll)
	defer tick.Stop()
	var buf []byte
	for {
		var state turnState
		switch state, buf = turnWritten(p.TranscriptPath, marker, buf); {
		case state == turnPresent:
			return ""
		case time.Now().After(stop):
			if state == turnNoFile {
				return "no transcript after " + limit.Round(time.Millisecond).String()
			}
			return "the transcript lacked the turn's last message after " + limit.Round(time.Millisecond).String()
		}
		select {
		case <-ctx.Done():
			return ""
		case <-tick.C:
		}
	}
}

type turnState int

const (
	turnPresent turnState = iota // written (or not worth waiting for)
	turnNoFile                   // no transcript yet
	turnMissing                  // the transcript lacks the last message
)

// userKey starts the top-level type of a user line, as Claude Code writes
// it (JSON.stringify, no spaces); inside a string its quotes are escaped.
var userKey = []byte(`"type":"user"`)

// turnWritten looks at the transcript once, reading its tail into buf
// (returned for reuse). The turn is written when the marker stands after
// the file's last user line (prompts and tool results come before the
// turn's last assistant message: an earlier turn that ended with the same
// words does not count) and a newline ends the line holding it (a line
// being appended is not yet whole).
func turnWritten(path, marker string, buf []byte) (turnState, []byte) {
	// Stat first: opening a FIFO would block.
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return turnNoFile, buf
	case err != nil || !fi.Mode().IsRegular() || marker == "":
		return turnPresent, buf // the render reports what is wrong
	}
	f, err := os.Open(path)
	if err != nil {
		return turnPresent, buf
	}
	defer f.Close()
	off := max(fi.Size()-settleTail, 0)
	if n := int(fi.Size() - off); cap(buf) < n {
		buf = make([]byte, n)
	} else {
		buf = buf[:n]
	}
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return turnPresent, buf
	}
	tail := buf[:n]
	if u := bytes.LastIndex(tail, userKey); u >= 0 {
		tail = tail[u+len(userKey):]
	}
	if i := bytes.LastIndex(tail, []byte(marker)); i >= 0 && bytes.IndexByte(tail[i+len(marker):], '\n') >= 0 {
		return turnPresent, buf
	}
	return turnMissing, buf
}

// turnMarker is an end of msg as it appears, byte for byte, inside the
// JSON string of the transcript line that holds it: the last run of at
// least minMarker characters that JSON.stringify writes unescaped and that
// Go reads back unchanged, its last 64 bytes at most. "" when msg has no
// such run.
//
// Claude Code joins a message's text blocks with "\n" and trims the result;
// a newline is escaped in JSON, so a run never spans two blocks.
func turnMarker(msg string) string {
	const maxMarker = 64
	for end := len(msg); end > 0; {
		i := end
		for i > 0 {
			r, size := utf8.DecodeLastRuneInString(msg[:i])
			if !markerRune(r) {
				break
			}
			i -= size
		}
		if end-i >= minMarker {
			// The run's end, cut at a character boundary.
			start := max(end-maxMarker, i)
			for !utf8.RuneStart(msg[start]) {
				start++
			}
			return msg[start:end]
		}
		// Too short: look before the character that ended it.
		_, size := utf8.DecodeLastRuneInString(msg[:i])
		end = i - size
	}
	return ""
}

// markerRune reports whether a character is written as itself in a JSON
// string by JSON.stringify: not '"', '\\' or a control character; and
// whether it survives the trip to Go unchanged: not U+FFFD (a lone
// surrogate or invalid UTF-8 becomes one), U+2028 or U+2029 (left for
// encoders that escape them).
func markerRune(r rune) bool {
	switch {
	case r < 0x20, r == '"', r == '\\', r == 0x7f:
		return false
	case r == utf8.RuneError, r == '\u2028', r == '\u2029':
		return false // invalid UTF-8 decodes to U+FFFD too
	}
	return true
}

// truthy is how Claude Code reads a boolean environment variable.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
