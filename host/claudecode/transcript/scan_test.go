package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"bottle/internal/jsonscan"
	"bottle/internal/measure/corpustest"
	"bottle/internal/racemode"
	"bottle/render/digest"
)

// The scanner must make of every line the record encoding/json makes of it
// (scan_ref_test.go), for valid and invalid input alike; and the reader
// must read every transcript as the reference records, applied line by
// line, read it: same events, tools, digests and diagnostics.

// scanCases are lines that probe encoding/json's corners.
var scanCases = []string{
	`{"type":"user","uuid":"a","message":{"content":"plain"}}`,
	`{"TYPE":"user","UUID":"b","Message":{"Content":"upper-case keys"}}`,
	`{"\u0074ype":"user","uuid":"c","message":{"content":"escaped key"}}`,
	`{"type":"user","uuid":"d","ſessionId":"long-s","message":{"content":"folded key"}}`,
	`{"type":"user","uuid":"e","message":{"content":"dup"},"message":{"content":"second wins"}}`,
	`{"type":"user","type":null,"uuid":"f","message":{"content":"null keeps"}}`,
	`{"type":"user","uuid":"g","message":null}`,
	`{"type":"user","uuid":"h"}`,
	`{"type":"user","uuid":"i","message":"not an object"}`,
	`{"type":"user","uuid":"j","message":{"content":5}}`,
	`{"type":"user","uuid":"k","message":{"content":[{"type":"text","text":5}]}}`,
	`{"type":"user","uuid":"l","message":{"content":[null,{"type":"text","text":"after null"}]}}`,
	`{"type":"user","uuid":"m","message":{"content":["str"]}}`,
	`{"type":"user","uuid":"n","isMeta":"yes","message":{"content":"bad bool"}}`,
	`{"type":5}`,
	`null`,
	`[]`,
	`"str"`,
	`{}`,
	`{"type":"user"} trailing`,
	`{"type":"user","uuid":"o","message":{"content":"bad \q escape"}}`,
	"{\"type\":\"user\",\"uuid\":\"p\",\"message\":{\"content\":\"raw \t tab\"}}",
	`{"type":"user","uuid":"q","message":{"content":"\ud800 lone \udc00 \ud83d\ude00 pair \u00e9"}}`,
	"{\"type\":\"user\",\"uuid\":\"r\",\"message\":{\"content\":\"bad utf8 \xff\xfe ok\"}}",
	`{"type":"system","subtype":"compact_boundary","uuid":"s","compactMetadata":{"trigger":"auto","preTokens":1.5}}`,
	`{"type":"system","subtype":"compact_boundary","uuid":"t","compactMetadata":{"trigger":"manual"},"compactMetadata":{"preTokens":7}}`,
	`{"type":"system","subtype":"compact_boundary","uuid":"u","compactMetadata":{"trigger":"auto"},"compactMetadata":null}`,
	`{"type":"system","subtype":"compact_boundary","uuid":"v","compactMetadata":{"preTokens":99999999999999999999}}`,
	`{"type":"system","subtype":"compact_boundary","uuid":"w","compactMetadata":{"preTokens":-0,"x":[1,{"y":[]}]}}`,
	`{"type":"assistant","uuid":"x","message":{"id":"m1","model":"<synthetic>","content":5}}`,
	`{"type":"assistant","uuid":"y","message":{"id":"m2","content":"string content"}}`,
	`{"type":"assistant","uuid":"z","message":{"id":"m3","content":null}}`,
	`{"type":"assistant","uuid":"a1","message":{"id":"m4"}}`,
	`{"type":"assistant","uuid":"a2","message":{"content":[{"type":"text","text":"no id"}]}}`,
	`{"type":"assistant","uuid":"a3","message":{"id":"m5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]}}`,
	`{"type":"user","uuid":"a4","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Exit code 1\nFAIL","is_error":true}]}}`,
	`{"type":"assistant","uuid":"a5","message":{"id":"m6","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/x/a.go"}}]}}`,
	`{"type":"user","uuid":"a6","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"     1→a\n     2→b"},{"type":"image","source":{}},{"type":"x"},null]},{"type":"text","text":"typed mid-turn"}]}}`,
	`{"type":"assistant","uuid":"a7","message":{"id":"m7","content":[{"type":"tool_use","id":"t3","name":"Grep","input":null}]}}`,
	`{"type":"user","uuid":"a8","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":[{"type":"text","text":1}]}]}}`,
	`{"type":"user","uuid":"a9","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"second result"}]}}`,
	`{"type":"user","uuid":"b1","isCompactSummary":true,"message":{"content":5}}`,
	`{"type":"user","uuid":"b2","isSidechain":true,"message":{"content":"side"}}`,
	`{"type":"progress","data":{"deep":[[[[{"a":"\u0000"}]]]]}}`,
	`{"type":"user","uuid":"b3","message":{"content":[{"type":"text","text":"<ide_selection>x</ide_selection>"},{"type":"text","text":"real"}]}}`,
	`  {"type":"user","uuid":"b4","message":{"content":"spaces around"}}  ` + "\r",
	`{"type":"user","uuid":"b5","message":{"content":"numbers"},"n":[-0,1e5,1.5E-3,0.0,-12]}`,
	`{"type":"user","uuid":"b6","message":{"content":"bad number"},"n":01}`,
	`{"type":"user","uuid":"b7","message":{"content":"bad number"},"n":1.}`,
	`{"type":"user","uuid":"b8","message":{"content":"literal"},"n":tru}`,
	`{"type":"user","uuid":"b9","message":{"content":"a"},}`,
	`{"type":"user","uuid":"c1","message":{"content":"backslash end\\"}}`,
	`{"type":"user","uuid":"c2","message":{"content":"escaped quote \" and \\\" and \\\\"}}`,
	`{"type":"user","uuid":"c3","message":{"content":"\/\b\f\n\r\t"}}`,
	`{"type":"user","uuid":"c4","timestamp":"2026-01-05T10:00:00+02:00","sessionId":"s\u0031","cwd":"/tmp/\u00e9","message":{"content":"stamps"}}`,
	`{"type":"user","uuid":"c5","message":{"content":"x"}}` + "\\",
	`{"type":"assistant","uuid":"c6","message":{"id":"m8","content":[{"type":"text","text":"one"},{"type":"text","text":"one"},{"type":"thinking","thinking":"t","text":"hidden"}]}}`,
	`{"type":"user","uuid":"c7","message":{"content":[{"type":"tool_result","tool_use_id":"t9","content":{"obj":1}}]}}`,
	`{"type":"custom-title","customTitle":"x"}`,
	`{"type":"weird-new-type"}`,
	`{"type":"user","uuid":"c8","message":{"content":[{"type":"image"},{"type":"document"}]}}`,
	`{"type":"user","uuid":"c9","message":{"content":"<command-name>/clear</command-name>"}}`,
	`{"type":"user","uuid":"d1","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
	`{"type":"user","uuid":"d2","message":{"role":"user","content":[{"tool_use_id":"t5","type":"tool_result","content":"x","is_error":null}]}}`,
	`{"type":"user","uuid":"d3","message":{"content":"K\u212a"},"Iſmeta":true}`,
	// Persisted outputs: the line's toolUseResult holds the output.
	`{"type":"assistant","uuid":"d4","message":{"id":"m9","content":[{"type":"tool_use","id":"p1","name":"Grep","input":{"pattern":"x","output_mode":"content"}},{"type":"tool_use","id":"p2","name":"Glob","input":{"pattern":"*.go"}},{"type":"tool_use","id":"p3","name":"Bash","input":{"command":"gh pr diff 1"}},{"type":"tool_use","id":"p4","name":"Glob","input":{"pattern":"*.md"}},{"type":"tool_use","id":"p5","name":"Glob","input":{"pattern":"*.c"}}]}}`,
	`{"type":"user","uuid":"d5","message":{"content":[{"type":"tool_result","tool_use_id":"p1","content":"<persisted-output>\nOutput too large (9KB).\n</persisted-output>"}]},"toolUseResult":{"mode":"content","content":"/x/a.go:1:x\n/x/b.go:2:x","numLines":2}}`,
	`{"type":"user","uuid":"d6","TOOLUSERESULT":{"filenames":["/x/a.go"],"numFiles":1},"message":{"content":[{"type":"tool_result","tool_use_id":"p2","content":"\u003cpersisted-output>\nOutput too large\n"}]}}`,
	`{"type":"user","uuid":"d7","message":{"content":[{"type":"tool_result","tool_use_id":"p3","content":"<persisted-output>"}]},"toolUseResult":{"stdout":"diff --git a/x/c.go b/x/c.go"},"toolUseResult":null}`,
	`{"type":"user","uuid":"d9","message":{"content":[{"type":"tool_result","tool_use_id":"p5","content":"<persisted-output>"}]},"toolUſeResult":{"filenames":["/x/folded.c"]}}`,
	`{"type":"user","uuid":"d8","message":{"content":[{"type":"tool_result","tool_use_id":"p4","content":"<persisted-output>"},{"type":"tool_result","tool_use_id":"p5","content":"<persisted-output>"}]},"toolUseResult":{"filenames":["/x/a.md"]}}`,
	// Other parties' messages: inputs, several in one entry, meta or not,
	// mid-turn beside a tool result.
	`{"type":"user","uuid":"e1","message":{"content":"<teammate-message teammate_id=\"team-lead\" color=\"blue\" summary=\"x\">\n{\"type\":\"task_assignment\",\"taskId\":\"3\",\"subject\":\"s\",\"description\":\"d\\nline\"}\n</teammate-message>\n\n<teammate-message teammate_id=\"tester\">\nplain\n</teammate-message>"}}`,
	`{"type":"user","uuid":"e2","isMeta":true,"message":{"content":[{"type":"text","text":"<channel source=\"ci\" run=\"7\"> build red </channel>"}]}}`,
	`{"type":"user","uuid":"e3","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"},{"type":"text","text":"<agent-message from=\"rev\"> mid </agent-message>"}]}}`,
	`{"type":"user","uuid":"e4","message":{"content":"<coordinator-relay> <private>p</private> relay </coordinator-relay> tail"}}`,
	`{"type":"user","uuid":"e5","message":{"content":"<cross-session-message from=\"a\" from-name=\"B\">\nhi\n</cross-session-message>"}}`,
	`{"type":"user","uuid":"e6","message":{"content":"<slack-ping user=\"U1\">{\"type\":\"ping\"} </slack-ping><slack-tag-message>{not json}"}}`,
}

// scanInputs are the transcripts the scanner is checked on: small ones
// (the cases above and the golden inputs), and large ones (a synthetic
// transcript and the corpus; under the race detector only a few).
func scanInputs(tb testing.TB) (small, large map[string][]byte) {
	tb.Helper()
	small = map[string][]byte{
		"cases":                         []byte(strings.Join(scanCases, "\n") + "\n"),
		"cases-torn":                    []byte(strings.Join(scanCases, "\n")),
		"cases after a byte-order mark": []byte("\xef\xbb\xbf" + strings.Join(scanCases, "\n") + "\n"),
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "render", "testdata", "*.jsonl")) // render's golden inputs
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		small[f] = data
	}
	// 2 MB: eight of the reader's chunks; four under the race detector,
	// which slows the reference tenfold (CI reads all 2 MB without it).
	size := int64(2 << 20)
	if racemode.Enabled {
		size = 1 << 20
	}
	large = map[string][]byte{"generated": genTranscript(tb, size)}
	if dir, ok := corpustest.Find(tb); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "transcripts", "*", "*.jsonl"))
		for i, f := range more {
			if racemode.Enabled && i%8 != 0 {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			large[f] = data
		}
	}
	return small, large
}

// withScanSettings runs f with a reader of a chunk size, under a mask
// implementation.
func withScanSettings(size int, avx2 bool, f func(rd reader)) {
	oldAVX := jsonscan.SetAVX2(avx2)
	defer jsonscan.SetAVX2(oldAVX)
	f(reader{chunkSize: size})
}

// checkSame compares the scanner with the reference on data: each line's
// record, then the whole transcript read in chunks, scanned in parallel
// and digested ahead by the workers, with the reference records applied
// one line at a time (which catches what no single record shows: lines
// cut across chunks, the order chunks are applied in, the workers'
// digests, inputs kept past their chunk's buffer).
func checkSame(t *testing.T, rd reader, name string, data []byte) {
	t.Helper()
	compareRefs(t, rd, name, data, readRefs(t, name, data))
}

// refs are the reference's reads of a transcript, each as checkSame asks
// the reader for it.
type refs struct {
	whole       *Transcript
	wholeErr    error
	sessions    []string
	bySession   []*Transcript
	first       *Transcript
	capture     *Transcript
	captured    map[int]*ToolDetail
	observed    [][]string
	observedTrs []*Transcript
	// fewSeen and fewTrs are the observed reads of a search that asks for
	// few results: without digests, with FewResults.
	fewSeen [][]string
	fewTrs  []*Transcript
}

// observeKeeps are the tool-name filters of the observed reads, all of
// whose results are read for the first two.
var observeKeeps = []func(string) bool{
	func(string) bool { return true },
	func(name string) bool {
		return name == "Bash" || name == "TodoWrite" || name == "Task" || name == "ExitPlanMode"
	},
	func(name string) bool { return name != "Read" },
}

// observe reads data with read, observing the calls keep picks (their
// results when all is set, else those of errors and Bash), and returns what
// it saw.
func observe(read func(io.Reader, *ReadOptions) (*Transcript, error), data []byte, keep func(string) bool, all, few bool) ([]string, *Transcript, error) {
	var seen []string
	tr, err := read(bytes.NewReader(data), &ReadOptions{
		NoDigests: few, FewResults: few,
		CaptureTools: keep,
		Observe: func(i int, d *ToolDetail, result func() string) {
			r := ""
			if all || d.IsError || d.Name == "Bash" {
				r = result()
			}
			seen = append(seen, fmt.Sprintf("%d %s %s %v %v %v %q", i, d.Name, d.Input, d.Time, d.HasResult, d.IsError, r))
		},
	})
	return seen, tr, err
}

// readRefs checks each line's record against encoding/json's, and reads
// data with the reference as checkSame compares it: once for any number of
// readers (the reference reads no reader setting).
func readRefs(t *testing.T, name string, data []byte) *refs {
	t.Helper()
	checkRecords(t, name, data)
	r := &refs{}
	r.whole, r.wholeErr = refRead(bytes.NewReader(data), nil)
	if r.whole != nil {
		r.sessions = []string{r.whole.SessionID, "s1", "no-such-session"}
	}
	for _, session := range r.sessions {
		tr, err := refRead(bytes.NewReader(data), &ReadOptions{Session: session})
		if err != nil {
			t.Fatalf("%s: session %q: reference error %v", name, session, err)
		}
		r.bySession = append(r.bySession, tr)
	}
	var err error
	if r.first, err = refRead(bytes.NewReader(data), &ReadOptions{UntilFirstPrompt: true, NoDigests: true}); err != nil {
		t.Fatalf("%s: first prompt: reference error %v", name, err)
	}
	r.captured = map[int]*ToolDetail{0: nil, 1: nil, 2: nil, 7: nil}
	if r.capture, err = refRead(bytes.NewReader(data), &ReadOptions{Capture: r.captured}); err != nil {
		t.Fatalf("%s: capture: reference error %v", name, err)
	}
	for k, keep := range observeKeeps {
		seen, tr, err := observe(refRead, data, keep, k < 2, false)
		if err != nil {
			t.Fatalf("%s: observe: reference error %v", name, err)
		}
		r.observed, r.observedTrs = append(r.observed, seen), append(r.observedTrs, tr)
		if seen, tr, err = observe(refRead, data, keep, false, true); err != nil {
			t.Fatalf("%s: observe few: reference error %v", name, err)
		}
		r.fewSeen, r.fewTrs = append(r.fewSeen, seen), append(r.fewTrs, tr)
	}
	return r
}

// compareRefs reads data with rd as readRefs read it with the reference,
// and compares.
func compareRefs(t *testing.T, rd reader, name string, data []byte, want *refs) {
	t.Helper()
	got, gerr := rd.readFrom(bytes.NewReader(data), nil)
	if (want.wholeErr == nil) != (gerr == nil) {
		t.Fatalf("%s: error %v, want %v", name, gerr, want.wholeErr)
	}
	if !reflect.DeepEqual(got, want.whole) {
		t.Fatalf("%s: transcripts differ (-want +got):\n%s", name, cmp.Diff(want.whole, got, lineCmp))
	}
	// A session looked for: the first id, one spelt with an escape in
	// the cases, one that is absent.
	for i, session := range want.sessions {
		got, gerr := rd.readFrom(bytes.NewReader(data), &ReadOptions{Session: session})
		if gerr != nil {
			t.Fatalf("%s: session %q: error %v", name, session, gerr)
		}
		if !reflect.DeepEqual(got, want.bySession[i]) {
			t.Fatalf("%s: session %q differs (-want +got):\n%s", name, session, cmp.Diff(want.bySession[i], got, lineCmp))
		}
	}
	// First prompt only (list), and with tool calls captured (expand).
	got, gerr = rd.readFrom(bytes.NewReader(data), &ReadOptions{UntilFirstPrompt: true, NoDigests: true})
	if gerr != nil {
		t.Fatalf("%s: first prompt: error %v", name, gerr)
	}
	if !reflect.DeepEqual(got, want.first) {
		t.Fatalf("%s: first prompt differs (-want +got):\n%s", name, cmp.Diff(want.first, got, lineCmp))
	}
	gotCap := map[int]*ToolDetail{0: nil, 1: nil, 2: nil, 7: nil}
	got, gerr = rd.readFrom(bytes.NewReader(data), &ReadOptions{Capture: gotCap})
	if gerr != nil {
		t.Fatalf("%s: capture: error %v", name, gerr)
	}
	if !reflect.DeepEqual(got, want.capture) || !reflect.DeepEqual(gotCap, want.captured) {
		t.Fatalf("%s: capture differs (-want +got):\n%s\n%s", name, cmp.Diff(want.capture, got, lineCmp), cmp.Diff(want.captured, gotCap, lineCmp))
	}
	// The calls of some tools observed (search, working state): the same
	// calls, in the same order, with the same inputs and results (all of
	// them, or some read on demand).
	for k, keep := range observeKeeps {
		gotSeen, got, gerr := observe(rd.readFrom, data, keep, k < 2, false)
		if gerr != nil {
			t.Fatalf("%s: observe: error %v", name, gerr)
		}
		fewSeen, fewTr, ferr := observe(rd.readFrom, data, keep, false, true)
		if ferr != nil {
			t.Fatalf("%s: observe few: error %v", name, ferr)
		}
		if !reflect.DeepEqual(fewTr, want.fewTrs[k]) || !slices.Equal(fewSeen, want.fewSeen[k]) {
			t.Fatalf("%s: observed calls of a read for few results differ (-want +got):\n%s\n%s", name, cmp.Diff(want.fewTrs[k], fewTr, lineCmp), cmp.Diff(want.fewSeen[k], fewSeen, lineCmp))
		}
		if !reflect.DeepEqual(got, want.observedTrs[k]) || !slices.Equal(gotSeen, want.observed[k]) {
			t.Fatalf("%s: observed calls differ (-want +got):\n%s\n%s", name, cmp.Diff(want.observedTrs[k], got, lineCmp), cmp.Diff(want.observed[k], gotSeen, lineCmp))
		}
	}
}

func TestScanMatchesReference(t *testing.T) {
	small, large := scanInputs(t)
	// The reference reads once per input and mask implementation, for
	// every chunk size.
	for _, avx2 := range []bool{true, false} {
		for name, data := range small {
			var want *refs
			withScanSettings(0, avx2, func(reader) { want = readRefs(t, fmt.Sprintf("%s (avx2 %v)", name, avx2), data) })
			for _, size := range []int{defaultChunkSize, 4 << 10, 97} {
				withScanSettings(size, avx2, func(rd reader) {
					compareRefs(t, rd, fmt.Sprintf("%s (chunk %d, avx2 %v)", name, size, avx2), data, want)
				})
			}
		}
	}
	for name, data := range large {
		checkSame(t, reader{}, name, data)
	}
	// From a file, the reader sizes the transcript's slices up front.
	for name, data := range map[string][]byte{"empty": nil, "blank": []byte("\n\n"), "cases": small["cases"], "generated": large["generated"],
		"generated after a byte-order mark": append([]byte("\xef\xbb\xbf"), large["generated"]...)} {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		want, _ := refRead(bytes.NewReader(data), nil)
		got, err := Read(t.Context(), path, nil)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s from a file: %v (-want +got):\n%s", name, err, cmp.Diff(want, got, lineCmp))
		}
	}
	withScanSettings(8<<10, false, func(rd reader) { checkSame(t, rd, "generated, small chunks, portable masks", large["generated"]) })
}

func TestScanSequential(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	small, large := scanInputs(t)
	for name, data := range small {
		withScanSettings(4<<10, true, func(rd reader) { checkSame(t, rd, name, data) })
	}
	checkSame(t, reader{}, "generated", large["generated"])
}

// FuzzScan compares the scanner with the reference on any input, line by
// line and as a whole, under both mask implementations.
func FuzzScan(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c + "\n"))
	}
	f.Add([]byte(strings.Join(scanCases, "\n")))
	f.Add([]byte("\xef\xbb\xbf" + strings.Join(scanCases, "\n")))                               // a byte-order mark
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "render", "testdata", "*.jsonl")) // render's golden inputs
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		withScanSettings(64, true, func(rd reader) { checkSame(t, rd, "avx2", data) })
		withScanSettings(4<<10, false, func(rd reader) { checkSame(t, rd, "generic", data) })
	})
}

// TestDecodeString compares string decoding with encoding/json's.
func TestDecodeString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{`a`, `é`, `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00x`, `\ud800\u0041`,
		"\xff", "\xe2\x82", `\t`, `\b\f\r`, "ok text ", "日本", `\u0000`, `\uFFFF`, "\xed\xa0\x80"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.IntN(12); n >= 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(3) == 0 {
				b.WriteString(strings.Repeat("x", r.IntN(20)))
			}
		}
		raw := b.String()
		var want string
		if err := json.Unmarshal([]byte(`"`+raw+`"`), &want); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if got := jsonscan.Decode([]byte(raw)); got != want {
			t.Fatalf("jsonscan.Decode(%q) = %q, want %q", raw, got, want)
		}
		if got := string(jsonscan.Append([]byte("pre"), []byte(raw))); got != "pre"+want {
			t.Fatalf("jsonscan.Append(%q) = %q, want %q", raw, got, "pre"+want)
		}
		if !utf8.ValidString(jsonscan.Decode([]byte(raw))) {
			t.Fatalf("jsonscan.Decode(%q) is not valid UTF-8", raw)
		}
	}
}

// TestIndexValidity compares the scanner's verdict on single JSON values
// with json.Valid, on random mutations of valid lines.
func TestIndexValidity(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("{}[]:,\"\\ntu0123456789-+.eE \t\x01\x1fabfr/\xff")
	var s lineScanner
	for _, avx2 := range []bool{true, false} {
		withScanSettings(defaultChunkSize, avx2, func(reader) {
			for i := 0; i < 50000; i++ {
				base := []byte(scanCases[r.IntN(len(scanCases))])
				for n := r.IntN(4); n > 0; n-- {
					base[r.IntN(len(base))] = alphabet[r.IntN(len(alphabet))]
				}
				// Long values cross 64-byte blocks.
				if r.IntN(4) == 0 {
					k := r.IntN(len(base))
					base = append(base[:k:k], append(bytes.Repeat([]byte{alphabet[r.IntN(len(alphabet))]}, r.IntN(200)), base[k:]...)...)
				}
				want := json.Valid(base)
				got := s.Index(base)
				if got {
					p := s.WS(0)
					if p < len(base) {
						e := s.Skip(p, 0)
						got = e >= 0 && s.WS(e) == len(base)
					} else {
						got = false
					}
				}
				if got != want {
					t.Fatalf("valid(%q) = %v, json.Valid says %v (avx2 %v)", base, got, want, avx2)
				}
			}
		})
	}
}

// TestDepthLimit checks encoding/json's nesting limit of 10,000.
func TestDepthLimit(t *testing.T) {
	for _, depth := range []int{9998, 9999, 10000, 10001} {
		line := `{"type":"progress","d":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		checkSame(t, reader{}, fmt.Sprintf("depth %d", depth), []byte(line+"\n"+scanCases[0]+"\n"))
	}
}

// lineCmp lets cmp.Diff show digest lines, whose forms are cached in
// unexported fields (of the line and of its pieces).
var lineCmp = cmp.Exporter(func(t reflect.Type) bool { return t.PkgPath() == reflect.TypeFor[digest.Line]().PkgPath() })
