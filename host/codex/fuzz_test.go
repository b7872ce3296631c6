package codex

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"bottle/render/digest"
	"bottle/session"
)

// FuzzReadFrom: any bytes read without a panic, every line is accounted
// for, and a complete record is never lost to the torn-tail rule.
func FuzzReadFrom(f *testing.F) {
	seedRollouts(f, 7, 3)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadFrom(bytes.NewReader(data))
		if err != nil {
			if !bytes.HasPrefix(data, zstdMagic) {
				t.Fatalf("plain input gave an error: %v", err)
			}
			return
		}
		d := r.Diag
		if d.Records != len(r.Records) {
			t.Fatalf("Records %d, but %d records", d.Records, len(r.Records))
		}
		if d.Records+d.Malformed+d.Oversized+d.UnknownTypes > d.Lines {
			t.Fatalf("more lines accounted for than read: %+v", d)
		}
		if bytes.HasPrefix(data, zstdMagic) {
			return
		}
		// Appending a newline completes a torn tail: it then counts as
		// malformed, never as more records.
		r2, _ := ReadFrom(bytes.NewReader(append(bytes.Clone(data), '\n')))
		if !strings.HasSuffix(string(data), "\n") && len(r2.Records) != len(r.Records) {
			t.Fatalf("a newline at the end changed the records: %d, then %d", len(r.Records), len(r2.Records))
		}
	})
}

// FuzzSession: any rollout bytes turn into a session without a panic;
// every event's tool index names a call, and every digest is one bounded
// line of valid UTF-8 with no private tag left in it.
func FuzzSession(f *testing.F) {
	seedRollouts(f, 5, 4)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadFrom(bytes.NewReader(data))
		if err != nil {
			return
		}
		tr, err := Session(context.Background(), r, &session.ReadOptions{Capture: map[int]*session.ToolDetail{0: {}}})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Diag.Entries != len(r.Records) {
			t.Fatalf("entries %d, records %d", tr.Diag.Entries, len(r.Records))
		}
		for _, e := range tr.Events {
			if (e.Kind == session.EvTool || e.Kind == session.EvAnswer) && (e.Tool < 0 || e.Tool >= len(tr.Tools)) {
				t.Fatalf("event names call %d of %d", e.Tool, len(tr.Tools))
			}
		}
		for i := range tr.Tools {
			l := &tr.Tools[i].Line
			for _, s := range []string{l.Full(), l.Pending(), l.Short(digest.Shortest)} {
				if strings.ContainsAny(s, "\n\r") || !utf8.ValidString(s) || utf8.RuneCountInString(s) > digest.MaxPathListRunes {
					t.Fatalf("call %d: not one bounded line: %q", i, s)
				}
				if strings.Contains(strings.ToLower(s), "<private>") {
					t.Fatalf("call %d: private text in %q", i, s)
				}
			}
		}
	})
}

// seedRollouts seeds f with runs of n lines, every step lines, of each
// rollout under testdata.
func seedRollouts(f *testing.F, step, n int) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i := 0; i < len(lines); i += step {
			f.Add(bytes.Join(lines[i:min(i+n, len(lines))], nil))
		}
	}
}
