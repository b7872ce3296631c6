package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// TestCaptureTools: the calls of the tools asked for are observed in
// full, input and result, and no others; none is kept in Captured.
func TestCaptureTools(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "render", "testdata", "basic.jsonl"))
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
			got := map[int]bool{}
			tr, err := ReadFrom(bytes.NewReader(data), &ReadOptions{CaptureTools: tc.keep,
				Observe: func(i int, d *ToolDetail, result func() string) {
					got[i] = true
					piece, ok := tc.want[i]
					if r := result(); !ok || d.Name != "Glob" || !strings.Contains(string(d.Input), "pattern") || !d.HasResult || !strings.Contains(r, piece) {
						t.Errorf("call %d observed as %+v, result %q, want its input and a result holding %q", i, d, r, piece)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) || len(tr.Captured) != 0 {
				t.Fatalf("observed %d calls and kept %d, want %d and none", len(got), len(tr.Captured), len(tc.want))
			}
		})
	}
}

// TestObserve: every call of the tools asked for goes to Observe once —
// a call with a result as it arrives, its result decoded on demand, a call
// without one at the end — and none stays in Captured.
func TestObserve(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// A second call whose result never comes.
	data = append(data, []byte(`{"type":"assistant","uuid":"ffffffff-0000-4000-8000-000000000009","sessionId":"s","timestamp":"2026-01-05T11:00:00Z",`+
		`"message":{"role":"assistant","id":"msg_x","content":[{"type":"tool_use","id":"toolu_x","name":"Bash","input":{"command":"sleep"}}]}}`+"\n")...)
	var got []string
	tr, err := ReadFrom(bytes.NewReader(data), &ReadOptions{CaptureTools: func(string) bool { return true },
		Observe: func(i int, d *ToolDetail, result func() string) {
			if d.Result != "" {
				t.Errorf("call %d handed over with its result decoded", i)
			}
			got = append(got, fmt.Sprintf("%d %s %v %s", i, d.Name, d.HasResult, strings.ReplaceAll(result(), "\n", " ")))
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0 Glob true /home/dev/proj/main.go /home/dev/proj/util.go", "1 Bash false "}
	if !slices.Equal(got, want) {
		t.Errorf("observed %q, want %q", got, want)
	}
	if len(tr.Captured) != 0 {
		t.Errorf("Captured = %+v, want none", tr.Captured)
	}
}

// TestEntries: every line read but a blank one is an entry, malformed,
// oversized, of an unknown type or the torn tail, whatever the file holds.
func TestEntries(t *testing.T) {
	elf := append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\n"), bytes.Repeat([]byte{0, 1, 0xfe, '\n', 0x90}, 50)...)
	tests := []struct {
		name    string
		in      string
		entries int
		lines   int
	}{
		{"Empty", "", 0, 0},
		{"Blank", "\n \n\t\n", 0, 2},
		{"Passwd", "root:x:0:0:root:/root:/bin/bash\nbin:x:1:1:bin:/bin:/sbin/nologin\n", 0, 2},
		{"ELF", string(elf), 0, 52},
		{"JSONNotEntries", `{"a":1}` + "\n" + `[1]` + "\nnull\n" + `{"type":"brand-new"}` + "\n", 0, 4},
		{"BadMessage", `{"type":"user","message":{"content":42}}` + "\n" + `{"type":"assistant","message":7}` + "\n", 0, 2},
		{"Skipped", `{"type":"progress"}` + "\n" + `{"type":"summary","summary":"x"}` + "\n", 2, 2},
		{"Sidechain", `{"type":"user","isSidechain":true,"message":{"content":"sub"}}` + "\n", 1, 1},
		{"Duplicate", userLine("u1", "a") + "\n" + userLine("u1", "a") + "\n", 2, 2},
		{"Mixed", userLine("u1", "a") + "\nnot json\n\n" + userLine("u2", "b") + "\n" + `{"type":"user","message":{"con`, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadFrom(strings.NewReader(tt.in), nil)
			if err != nil {
				t.Fatal(err)
			}
			d := tr.Diag
			if d.Entries != tt.entries || d.Lines != tt.lines {
				t.Errorf("Entries, Lines = %d, %d; want %d, %d (%+v)", d.Entries, d.Lines, tt.entries, tt.lines, d)
			}
			blank := 0
			for _, l := range strings.Split(strings.TrimSuffix(tt.in, "\n"), "\n") {
				if l != "" && strings.TrimSpace(l) == "" {
					blank++
				}
			}
			torn := 0
			if d.TornTail {
				torn = 1
			}
			if got := d.Entries + d.Malformed + d.Oversized + d.UnknownTypes + torn + blank; got != d.Lines {
				t.Errorf("entries, malformed, oversized, unknown, torn and blank lines add up to %d, want %d lines (%+v)", got, d.Lines, d)
			}
		})
	}
}

// TestHasSession: a session id is found in any main-thread entry, not only
// the first (a resumed session's file holds the ids it resumed).
func TestHasSession(t *testing.T) {
	line := func(uuid, session string, sidechain bool) string {
		b, _ := json.Marshal(map[string]any{"type": "user", "uuid": uuid, "sessionId": session, "isSidechain": sidechain,
			"message": map[string]any{"content": "hi"}})
		return string(b) + "\n"
	}
	in := line("u1", "old", false) + line("u2", "sub", true) + line("u3", "new", false) + `{"type":"user","uuid":"u4","sessionId":"n\u0065xt","message":{"content":"x"}}` + "\n"
	tests := []struct {
		session string
		want    bool
	}{
		{"old", true}, {"new", true}, {"next", true}, {"sub", false}, {"other", false}, {"", false},
	}
	for _, tt := range tests {
		tr, err := ReadFrom(strings.NewReader(in), &ReadOptions{Session: tt.session})
		if err != nil {
			t.Fatal(err)
		}
		if tr.HasSession != tt.want || tr.SessionID != "old" {
			t.Errorf("session %q: HasSession = %v, SessionID = %q; want %v, old", tt.session, tr.HasSession, tr.SessionID, tt.want)
		}
	}
}

func TestIDEContext(t *testing.T) {
	tests := []struct {
		block string
		want  IDEContext
		ok    bool
	}{
		{"<ide_opened_file>The user opened the file /p/a.go in the IDE. This may or may not be related to the current task.</ide_opened_file>",
			IDEContext{Path: "/p/a.go"}, true},
		{"<ide_selection>The user selected the lines 200 to 240 from /p/b.go:\nx := 1\n\nThis may or may not be related.</ide_selection>",
			IDEContext{Selected: true, Path: "/p/b.go", Lines: "200-240"}, true},
		{"<ide_selection>The user selected the lines 7 to 7 from /p/c.go:\nx</ide_selection>", IDEContext{Selected: true, Path: "/p/c.go", Lines: "7"}, true},
		{"<ide_selection>The user selected lines 1 to 2</ide_selection>", IDEContext{}, false},
		{"<system-reminder>x</system-reminder>", IDEContext{}, false},
		{"<ide_opened_file>The user opened the file  in the IDE.</ide_opened_file>", IDEContext{}, false},
	}
	for _, tc := range tests {
		got, ok := ideContext(tc.block)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ideContext(%.50q) = %+v, %v; want %+v, %v", tc.block, got, ok, tc.want, tc.ok)
		}
	}
}

// TestResultStart: an observed call's ResultStart(n) is the start of what
// result returns, at least n bytes of it or all of it, whether its
// result is one string (decoded only as far as asked) or blocks.
func TestResultStart(t *testing.T) {
	var files []string
	for _, name := range []string{"basic.jsonl", "fold.jsonl", "tool-result-text.jsonl", "working-state.jsonl", "working-state-hostile.jsonl"} {
		files = append(files, filepath.Join("..", "..", "..", "render", "testdata", name))
	}
	seen := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ReadFrom(bytes.NewReader(data), &ReadOptions{CaptureTools: func(string) bool { return true },
			Observe: func(i int, d *ToolDetail, result func() string) {
				var starts []string
				ns := []int{0, 1, 5, 64, 1 << 20}
				for _, n := range ns {
					starts = append(starts, d.ResultStart(n))
				}
				whole := result()
				for k, n := range ns {
					if s := starts[k]; !strings.HasPrefix(whole, s) || len(s) < min(n, len(whole)) {
						t.Errorf("%s call %d: ResultStart(%d) = %q, result %q", path, i, n, s, whole)
					}
				}
				if s := d.ResultStart(3); s != whole {
					t.Errorf("%s call %d: ResultStart after result = %q, want the whole %q", path, i, s, whole)
				}
				seen++
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen == 0 {
		t.Fatal("no call observed")
	}
}

// TestPersistedOutput: an output too large to be shown inline is digested
// from the line's toolUseResult, not from the preview the model was shown.
func TestPersistedOutput(t *testing.T) {
	lines := strings.Join([]string{
		`{"type":"user","uuid":"u1","cwd":"/x","message":{"content":"find them"}}`,
		`{"type":"assistant","uuid":"u2","message":{"id":"m1","content":[` +
			`{"type":"tool_use","id":"p1","name":"Grep","input":{"pattern":"x","output_mode":"content"}},` +
			`{"type":"tool_use","id":"p2","name":"Glob","input":{"pattern":"*.go"}},` +
			`{"type":"tool_use","id":"p3","name":"Grep","input":{"pattern":"y","output_mode":"content"}}]}}`,
		`{"type":"user","uuid":"u3","message":{"content":[{"type":"tool_result","tool_use_id":"p1","content":"<persisted-output>\nOutput too large (9KB). Full output saved to: /x/out.txt\n\nPreview (first 2KB):\n/x/a.go:1:x\n</persisted-output>"}]},` +
			`"toolUseResult":{"mode":"content","content":"/x/a.go:1:x\n/x/a.go:5:x\n/x/sub/b.go:2:x","numLines":3}}`,
		`{"type":"user","uuid":"u4","toolUseResult":{"filenames":["/x/a.go","/x/sub/b.go"],"numFiles":2},"message":{"content":[{"type":"tool_result","tool_use_id":"p2","content":"\u003cpersisted-output>\nOutput too large (60KB).\n</persisted-output>"}]}}`,
		// A line of two results: whose toolUseResult it is cannot be told.
		`{"type":"user","uuid":"u5","message":{"content":[{"type":"tool_result","tool_use_id":"p3","content":"<persisted-output>\n</persisted-output>"},{"type":"tool_result","tool_use_id":"p9","content":"x"}]},"toolUseResult":{"mode":"content","content":"/x/c.go:1:y","numLines":1}}`,
	}, "\n")
	tr, err := ReadFrom(strings.NewReader(lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range tr.Tools {
		got = append(got, tc.Line.Full())
	}
	want := []string{
		`Grep: "x" — 3 matching lines in 2 files: a.go, sub/b.go`,
		`Glob: *.go — 2 files: a.go, sub/b.go`,
		`Grep: "y" — large output`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("digests:\n got %q\nwant %q", got, want)
	}
}

// TestByteOrderMark reads transcripts that start with UTF-8's byte-order
// mark: the first line is an entry like any other, through every path (a
// stream, sequentially for the first prompt, a file read in chunks and a
// mapped one), as the reference reader reads it. A mark anywhere else
// leaves its line malformed.
func TestByteOrderMark(t *testing.T) {
	const mark = "\xef\xbb\xbf"
	first := userLine("00000000-0000-4000-8000-000000000001", "the opening prompt")
	small := mark + first + "\n" + userLine("00000000-0000-4000-8000-000000000002", "second") + "\n"
	// Over the map threshold, so that a file of it is mapped.
	large := small + strings.Repeat(userLine("00000000-0000-4000-8000-000000000003", strings.Repeat("z", 1000))+"\n", mapMin/1000+1)
	for name, data := range map[string]string{"small": small, "large": large, "only the first line, no newline": mark + first} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			reads := map[string]func() (*Transcript, error){
				"stream": func() (*Transcript, error) { return ReadFrom(strings.NewReader(data), nil) },
				"file":   func() (*Transcript, error) { return Read(context.Background(), path, nil) },
				"first prompt": func() (*Transcript, error) {
					return ReadFrom(strings.NewReader(data), &ReadOptions{UntilFirstPrompt: true})
				},
				"reference": func() (*Transcript, error) { return refRead(strings.NewReader(data), nil) },
			}
			for how, read := range reads {
				tr, err := read()
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				if tr.Diag.Malformed != 0 || len(tr.Events) == 0 || tr.Events[0].Text != "the opening prompt" || tr.SessionID != "s" {
					t.Errorf("%s: malformed %d, session %q, first event %+v; want the opening prompt", how, tr.Diag.Malformed, tr.SessionID, tr.Events)
				}
			}
			last, err := LastEntryTime(path)
			if err != nil || last.IsZero() {
				t.Errorf("LastEntryTime = %v, %v; want the entry's time", last, err)
			}
		})
	}
	tr, err := ReadFrom(strings.NewReader(first+"\n"+mark+first+"\n"), nil)
	if err != nil || tr.Diag.Malformed != 1 {
		t.Errorf("a mark on the second line: malformed %d (%v), want 1", tr.Diag.Malformed, err)
	}
}

// TestIsTranscript: a damaged transcript is one; no entry, or lines of junk
// outnumbering entries more than ten to one (a binary embedding a sample
// session), is not.
func TestIsTranscript(t *testing.T) {
	tests := []struct {
		name string
		d    Diagnostics
		want bool
	}{
		{"Empty", Diagnostics{}, false},
		{"NoEntry", Diagnostics{Lines: 2, Malformed: 2}, false},
		{"Clean", Diagnostics{Lines: 40, Entries: 40}, true},
		{"Damaged", Diagnostics{Lines: 7, Entries: 2, Malformed: 3}, true},
		{"TenToOne", Diagnostics{Lines: 11, Entries: 1, Malformed: 10}, true},
		{"Binary", Diagnostics{Lines: 55091, Entries: 28, Malformed: 54969}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.IsTranscript(); got != tt.want {
				t.Errorf("%+v.IsTranscript() = %v, want %v", tt.d, got, tt.want)
			}
		})
	}
}
