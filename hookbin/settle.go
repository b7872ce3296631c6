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
// session) it is the price of every Stop, so it stays short. Tests shorten
// it.
var transcriptSettle = 600 * time.Millisecond

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
// limit has passed or ctx is done. It returns a note for the hook log when
// it gave up, else "". Without a transcript_path there is nothing to wait
// for.
func awaitTurn(ctx context.Context, p hookPayload, limit time.Duration) string {
	if p.TranscriptPath == "" || truthy(os.Getenv("CLAUDE_CODE_SKIP_PROMPT_HISTORY")) {
		return ""
	}
	marker := turnMarker(p.LastAssistant)
	stop := time.Now().Add(limit)
	tick := time.NewTicker(settlePoll)
	defer tick.Stop()
	for {
		switch state := turnWritten(p.TranscriptPath, marker); {
		case state == turnPresent:
			return ""
		case time.Now().After(stop):
			if state == turnNoFile {
				return "no transcript after " + limit.String()
			}
			return "the transcript lacked the turn's last message after " + limit.String()
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

// turnWritten looks at the transcript once.
func turnWritten(path, marker string) turnState {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return turnNoFile
	}
	if err != nil {
		return turnPresent // the render reports what is wrong
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || marker == "" {
		return turnPresent
	}
	off := max(fi.Size()-settleTail, 0)
	tail := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(tail, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return turnPresent
	}
	if bytes.Contains(tail[:n], []byte(marker)) {
		return turnPresent
	}
	return turnMissing
}

// turnMarker is the end of msg as it appears, byte for byte, inside the
// JSON string of the transcript line that holds it: the longest suffix (at
// most 64 bytes) of characters that JSON.stringify writes unescaped and
// that Go reads back unchanged. "" when that suffix is shorter than
// minMarker.
//
// Claude Code joins a message's text blocks with "\n" and trims the result;
// a newline is escaped in JSON, so the suffix never spans two blocks.
func turnMarker(msg string) string {
	const maxMarker = 64
	end := len(msg)
	i := end
	for i > 0 && end-i < maxMarker {
		r, size := utf8.DecodeLastRuneInString(msg[:i])
		if !markerRune(r, size) || end-(i-size) > maxMarker {
			break
		}
		i -= size
	}
	if end-i < minMarker {
		return ""
	}
	return msg[i:end]
}

// markerRune reports whether a character is written as itself in a JSON
// string by JSON.stringify: not '"', '\\' or a control character; and
// whether it survives the trip to Go unchanged: not U+FFFD (a lone
// surrogate or invalid UTF-8 becomes one), U+2028 or U+2029 (left for
// encoders that escape them).
func markerRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return false
	case r < 0x20, r == '"', r == '\\', r == 0x7f:
		return false
	case r == utf8.RuneError, r == '\u2028', r == '\u2029':
		return false
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
