package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTurnMarker(t *testing.T) {
	long := strings.Repeat("abcdefgh", 10)
	tests := []struct {
		name, msg, want string
	}{
		{"empty", "", ""},
		{"short", "Done.", ""},
		{"plain", "There are two: main.go and util.go.", "There are two: main.go and util.go."},
		{"capped at 64 bytes", long, long[len(long)-64:]},
		{"stops at a newline", "first block\nsecond block here", "second block here"},
		{"stops at a quote", `he said "go" and then it ran`, " and then it ran"},
		{"stops at a backslash", `C:\path\to the file is here`, "to the file is here"},
		{"stops at a tab", "col\tthe value is 42 here", "the value is 42 here"},
		{"a short end: the run before it", "a long first line\nok", "a long first line"},
		{"after a code fence", "Here is the fix:\n```go\nx := 1\n```", "Here is the fix:"},
		{"no run long enough", "a\nbb\nccc\n\"dddd\"", ""},
		{"multibyte kept whole", "Das Ergebnis ist größer als erwartet", "Das Ergebnis ist größer als erwartet"},
		{"no cut inside a rune", strings.Repeat("é", 40), strings.Repeat("é", 32)},
		{"a cut inside a rune moves on", strings.Repeat("→", 30), strings.Repeat("→", 21)},
		{"stops at U+2028", "before\u2028after the separator", "after the separator"},
		{"stops at U+FFFD", "bad \ufffd then good text", " then good text"},
		{"stops at invalid UTF-8", "bad \xff then good text", " then good text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := turnMarker(tt.msg); got != tt.want {
				t.Errorf("turnMarker(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}

// FuzzTurnMarker: the marker is part of the message and appears verbatim
// in the message's JSON encoding (Go's, which escapes at least what
// JSON.stringify does).
func FuzzTurnMarker(f *testing.F) {
	for _, s := range []string{"There are two: main.go and util.go.", "a\nbb ccc dddd eeee", `x"yyyyyyyyyyyy`, "ü\u2028ééééééééé", "\xffabcdefghij"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		m := turnMarker(msg)
		if m == "" {
			return
		}
		if !strings.Contains(msg, m) || len(m) < minMarker || len(m) > 64 || !utf8.ValidString(m) {
			t.Fatalf("turnMarker(%q) = %q", msg, m)
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(msg); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), m) {
			t.Fatalf("marker %q of %q not in its JSON %s", m, msg, b.String())
		}
	})
}

// splitLast returns a fixture's lines but the last, the last line, and the
// text of the last line's text block.
func splitLast(t *testing.T, fixture string) (head, last []byte, text string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "render", "testdata", fixture+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.TrimSuffix(string(src), "\n"))
	i := strings.LastIndexByte(string(src), '\n') + 1
	head, last = src[:i], append(src[i:], '\n')
	var line struct {
		Message struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(last, &line); err != nil || len(line.Message.Content) == 0 {
		t.Fatalf("last line of %s: %v", fixture, err)
	}
	return head, last, line.Message.Content[0].Text
}

// compactLine is a transcript line as Claude Code writes it (no spaces).
func compactLine(t *testing.T, typ string, n int, content any, msgID string) []byte {
	t.Helper()
	msg := map[string]any{"role": typ, "content": content}
	if typ == "assistant" {
		msg["id"], msg["model"], msg["type"] = msgID, "claude-opus-4-5", "message"
	}
	b, err := json.Marshal(map[string]any{
		"type": typ, "uuid": fmt.Sprintf("bbbbbbbb-0000-4000-8000-%012d", n), "sessionId": "11111111-2222-4333-8444-555555555555",
		"cwd": "/home/dev/proj", "isSidechain": false, "timestamp": fmt.Sprintf("2026-01-05T10:%02d:00.000Z", n), "message": msg,
	})
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestStopAwaitsTheTurn: Claude Code writes the transcript up to 100 ms
// after it runs the Stop hook; the bottle still holds the turn's answer.
func TestStopAwaitsTheTurn(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	head, last, answer := splitLast(t, "basic")
	if !strings.Contains(answer, "util.go") {
		t.Fatalf("fixture's last answer is %q", answer)
	}
	// A turn that ends as the one before it did.
	const same = "Let me know if you need anything else."
	var repeat []byte
	repeat = append(repeat, compactLine(t, "user", 1, "Rename the package.", "")...)
	repeat = append(repeat, compactLine(t, "assistant", 2, []any{map[string]any{"type": "text", "text": same}}, "msg_1")...)
	repeat = append(repeat, compactLine(t, "user", 3, "Now fix the imports.", "")...)
	again := compactLine(t, "assistant", 4, []any{map[string]any{"type": "text", "text": same}}, "msg_2")

	tests := []struct {
		name         string
		before, then []byte // on disk when the hook starts (nil: no file); appended 150 ms later
		answer       string
		wantAnswers  int // times the answer is in the bottle
	}{
		{"first turn: no file yet", nil, append(bytes.Clone(head), last...), answer, 1},
		{"later turn: the answer not yet written", head, last, answer, 1},
		{"the answer's line half written", append(bytes.Clone(head), last[:len(last)-20]...), last[len(last)-20:], answer, 1},
		{"the turn before ended the same way", repeat, again, same, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newHookWorld(t)
			// A loaded machine may delay the writer: the wait may be longer
			// than Claude Code needs, but within the Stop hook's deadline.
			w.deps.settle = stopDeadline * 3 / 4
			tp := filepath.Join(w.config, "projects", "-home-dev-proj", id+".jsonl")
			if err := os.MkdirAll(filepath.Dir(tp), 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.before != nil {
				if err := os.WriteFile(tp, tt.before, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() {
				time.Sleep(150 * time.Millisecond) // past a flush interval
				f, err := os.OpenFile(tp, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
				if err == nil {
					_, err = f.Write(tt.then)
					if cerr := f.Close(); err == nil {
						err = cerr
					}
				}
				done <- err
			}()
			w.hook(t, "stop", payloadJSON(t, map[string]any{
				"session_id": id, "transcript_path": tp, "hook_event_name": "Stop", "last_assistant_message": tt.answer,
			}))
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if o := w.lastOutcome(t); o != "ok" {
				t.Errorf("stop logged %q", o)
			}
			md, err := os.ReadFile(filepath.Join(w.bottlesDir(), id+".md"))
			if err != nil {
				t.Fatalf("no bottle: %v", err)
			}
			if n := strings.Count(string(md), tt.answer); n != tt.wantAnswers {
				t.Errorf("bottle holds the answer %q %d times, want %d:\n%s", tt.answer, n, tt.wantAnswers, md)
			}
		})
	}
}

// TestStopSettleBounded: when the transcript never shows the turn, the Stop
// hook waits its settle time (deps.settle), renders what there is and says so in its log.
func TestStopSettleBounded(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	head, _, answer := splitLast(t, "basic")

	w := newHookWorld(t)
	w.deps.settle = 50 * time.Millisecond
	tp := filepath.Join(w.config, "projects", "-home-dev-proj", id+".jsonl")
	w.hook(t, "stop", payloadJSON(t, map[string]any{"session_id": id, "transcript_path": tp, "last_assistant_message": answer}))
	if o := w.lastOutcome(t); !strings.HasPrefix(o, "error: ") || !strings.Contains(o, "nothing to render") {
		t.Errorf("stop without a transcript logged %q", o)
	}

	if err := os.MkdirAll(filepath.Dir(tp), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tp, head, 0o600); err != nil {
		t.Fatal(err)
	}
	w.hook(t, "stop", payloadJSON(t, map[string]any{"session_id": id, "transcript_path": tp, "last_assistant_message": answer}))
	if o, want := w.lastOutcome(t), "ok: the transcript lacked the turn's last message after 50ms"; o != want {
		t.Errorf("stop logged %q, want %q", o, want)
	}
	if _, err := os.Stat(filepath.Join(w.bottlesDir(), id+".md")); err != nil {
		t.Errorf("no bottle of what there is: %v", err)
	}

	// A short deadline (--deadline, $BOTTLE_HOOK_DEADLINE) halves the wait:
	// the render gets the other half.
	w.deps.settle = 10 * time.Second
	w.hook(t, "stop", payloadJSON(t, map[string]any{"session_id": id, "transcript_path": tp, "last_assistant_message": answer}), "--deadline", "400ms")
	if o := w.lastOutcome(t); !strings.HasPrefix(o, "ok: the transcript lacked the turn's last message after ") {
		t.Errorf("stop with a 400ms deadline logged %q, want ok after a shorter wait", o)
	}
	w.deps.settle = 50 * time.Millisecond

	// Claude Code told not to write transcripts: no wait, no note.
	t.Setenv("CLAUDE_CODE_SKIP_PROMPT_HISTORY", "true")
	w.hook(t, "stop", payloadJSON(t, map[string]any{"session_id": id, "transcript_path": tp, "last_assistant_message": answer}))
	if o := w.lastOutcome(t); o != "ok" {
		t.Errorf("stop with CLAUDE_CODE_SKIP_PROMPT_HISTORY logged %q", o)
	}
}
