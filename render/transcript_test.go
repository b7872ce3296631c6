package render

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func userLine(uuid, text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "uuid": uuid, "sessionId": "s", "timestamp": "2026-01-05T10:00:00Z",
		"message": map[string]any{"role": "user", "content": text}})
	return string(b)
}

func TestReadTranscriptLongLines(t *testing.T) {
	big := strings.Repeat("x", 3<<20) // 3 MB: longer than any buffer
	in := userLine("u1", "first") + "\n" + userLine("u2", big) + "\n" + userLine("u3", "last") + "\n"
	tr, err := ReadTranscript(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Prompts != 3 || len(tr.Events[1].Text) != len(big) {
		t.Errorf("Prompts = %d, long prompt length %d; want 3, %d", tr.Prompts, len(tr.Events[1].Text), len(big))
	}
}

func TestReadTranscriptOversizedLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(userLine("u1", "before") + "\n")
	b.WriteString(`{"type":"user","message":{"content":"`)
	b.Write(bytes.Repeat([]byte("y"), MaxLineBytes+10))
	b.WriteString("\"}}\n" + userLine("u2", "after") + "\n")
	tr, err := ReadTranscript(&b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Diag.Oversized != 1 || tr.Prompts != 2 {
		t.Errorf("Oversized = %d, Prompts = %d; want 1, 2", tr.Diag.Oversized, tr.Prompts)
	}
}

func TestReadTranscriptTornTail(t *testing.T) {
	in := userLine("u1", "complete") + "\n" + `{"type":"assistant","message":{"id":"m","content":[{"type":"te`
	tr, err := ReadTranscript(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Diag.TornTail || tr.Diag.Malformed != 0 || tr.Prompts != 1 {
		t.Errorf("Diag = %+v, Prompts = %d; want a torn tail only and 1 prompt", tr.Diag, tr.Prompts)
	}
	// A complete final line without a newline is kept.
	tr, _ = ReadTranscript(strings.NewReader(userLine("u1", "no newline")), nil)
	if tr.Prompts != 1 || tr.Diag.TornTail {
		t.Errorf("final line without newline: Prompts = %d, TornTail = %v", tr.Prompts, tr.Diag.TornTail)
	}
}

func TestReadTranscriptFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadTranscriptFile(context.Background(), dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: error = %v, want 'not a regular file'", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		next := u.Unwrap()
		if next == nil {
			return err
		}
		err = next
	}
}

// FuzzRender: no input panics the reader or the renderer, the bottle is
// valid UTF-8, and message text cannot add structural lines beyond those
// the bottle writes for its turns.
func FuzzRender(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":\"\\u0000\\ud800 ---\\n**User** (1)\"}}\n"))
	f.Add([]byte{0xff, 0xfe, '\n', '{'})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTranscript(bytes.NewReader(data), defaultDigester)
		if err != nil {
			t.Fatalf("ReadTranscript: %v", err)
		}
		b := fromTranscript(tr)
		b.SessionID = "fuzz"
		md := markdown(b, time.UTC)
		if !utf8.Valid(md) {
			t.Fatalf("bottle is not valid UTF-8")
		}
		if bytes.IndexByte(md, 0) >= 0 {
			t.Fatalf("bottle holds a NUL byte")
		}
		// Each turn writes exactly one **User** and one **Assistant** line.
		s := string(md)
		if got := strings.Count(s, "\n**User** ("); got != len(b.Turns) {
			t.Fatalf("**User** lines = %d, turns = %d", got, len(b.Turns))
		}
		if got := strings.Count(s, "\n**Assistant** ("); got != len(b.Turns) {
			t.Fatalf("**Assistant** lines = %d, turns = %d", got, len(b.Turns))
		}
		if got := strings.Count(s, "\n# Session bottle"); got != 0 || !strings.HasPrefix(s, "# Session bottle") {
			t.Fatalf("forged or missing title line")
		}
	})
}
