package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func userLine(uuid, text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "uuid": uuid, "sessionId": "s", "timestamp": "2026-01-05T10:00:00Z",
		"message": map[string]any{"role": "user", "content": text}})
	return string(b)
}

func TestReadTranscriptLongLines(t *testing.T) {
	big := strings.Repeat("x", 3<<20) // 3 MB: longer than any buffer
	in := userLine("u1", "first") + "\n" + userLine("u2", big) + "\n" + userLine("u3", "last") + "\n"
	tr, err := ReadFrom(strings.NewReader(in), &ReadOptions{NoDigests: true})
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
	tr, err := ReadFrom(&b, &ReadOptions{NoDigests: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Diag.Oversized != 1 || tr.Prompts != 2 {
		t.Errorf("Oversized = %d, Prompts = %d; want 1, 2", tr.Diag.Oversized, tr.Prompts)
	}
}

func TestReadTranscriptTornTail(t *testing.T) {
	in := userLine("u1", "complete") + "\n" + `{"type":"assistant","message":{"id":"m","content":[{"type":"te`
	tr, err := ReadFrom(strings.NewReader(in), &ReadOptions{NoDigests: true})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Diag.TornTail || tr.Diag.Malformed != 0 || tr.Prompts != 1 {
		t.Errorf("Diag = %+v, Prompts = %d; want a torn tail only and 1 prompt", tr.Diag, tr.Prompts)
	}
	// A complete final line without a newline is kept.
	tr, _ = ReadFrom(strings.NewReader(userLine("u1", "no newline")), &ReadOptions{NoDigests: true})
	if tr.Prompts != 1 || tr.Diag.TornTail {
		t.Errorf("final line without newline: Prompts = %d, TornTail = %v", tr.Prompts, tr.Diag.TornTail)
	}
}

func TestReadTranscriptFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(context.Background(), dir, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
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

// TestCaptureTools: the calls of the tools asked for come back in full,
// input and result, and no others.
func TestCaptureTools(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		keep func(string) bool
		want map[int]string // index -> a piece of the result
	}{
		{"all", func(string) bool { return true }, map[int]string{0: "/home/dev/proj/main.go"}},
		{"Glob", func(n string) bool { return n == "Glob" }, map[int]string{0: "util.go"}},
		{"none", func(n string) bool { return n == "Bash" }, map[int]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadFrom(bytes.NewReader(data), &ReadOptions{CaptureTools: tc.keep})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Captured) != len(tc.want) {
				t.Fatalf("captured %d calls, want %d", len(tr.Captured), len(tc.want))
			}
			for i, piece := range tc.want {
				d := tr.Captured[i]
				if d == nil || d.Name != tr.Tools[i].Name || !strings.Contains(string(d.Input), "pattern") || !d.HasResult || !strings.Contains(d.Result, piece) {
					t.Errorf("call %d captured as %+v, want its input and a result holding %q", i, d, piece)
				}
			}
		})
	}
}
