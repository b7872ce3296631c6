package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"bottle/host/claudecode/transcript"
	"bottle/render/structural"
)

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
		tr, err := transcript.ReadFrom(bytes.NewReader(data), nil)
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
		// Each turn writes exactly one **User** (or sender) and one
		// **Assistant** line; each further message of another party's one
		// sender line.
		s := string(md)
		users, senders := 0, 0
		for _, tu := range append([]Turn{b.Preamble}, b.Turns...) {
			if tu.N > 0 && tu.From == "" {
				users++
			} else if tu.N > 0 {
				senders++
			}
			for _, said := range tu.MidTurn {
				if said.From != "" {
					senders++
				}
			}
		}
		if len(b.Turns) > 0 && b.Turns[0].From != "" {
			// The Original request repeats the first entry's messages.
			senders++
			for _, said := range b.Turns[0].MidTurn {
				if said.Part {
					senders++
				}
			}
		}
		if got := strings.Count(s, "\n**User** ("); got != users {
			t.Fatalf("**User** lines = %d, turns of the user's = %d", got, users)
		}
		if got := senderLines(s); got != senders {
			t.Fatalf("sender lines = %d, messages of other parties = %d", got, senders)
		}
		if got := strings.Count(s, "\n**Assistant** ("); got != len(b.Turns) {
			t.Fatalf("**Assistant** lines = %d, turns = %d", got, len(b.Turns))
		}
		if got := strings.Count(s, "\n# Session bottle"); got != 0 || !strings.HasPrefix(s, "# Session bottle") {
			t.Fatalf("forged or missing title line")
		}
	})
}

// senderLines counts the lines that head another party's message.
func senderLines(md string) int {
	n := 0
	for _, l := range strings.Split(md, "\n") {
		if structural.SenderHeading(l) {
			n++
		}
	}
	return n
}
