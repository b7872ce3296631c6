package transcript

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"bottle/internal/measure/gentranscript"
	"bottle/session"
)

// readObserved reads the transcript at path as a search does (every call
// observed, as it completes), from pt when set; it returns the calls
// observed by index.
func readObserved(t *testing.T, path string, pt *session.ResumePoint) (*Transcript, map[int]string, error) {
	t.Helper()
	obs := map[int]string{}
	tr, err := Read(context.Background(), path, &ReadOptions{NoDigests: true, Resume: true, From: pt,
		CaptureTools: func(string) bool { return true },
		Observe: func(i int, d *ToolDetail, result func() string) {
			obs[i] = fmt.Sprintf("%s %s %s %v %v %q", d.Name, d.Time, d.Input, d.HasResult, d.IsError, result())
		}})
	return tr, obs, err
}

// promptAt is the index in events of the EvPrompt that opens turn n+1
// (len(events) when there is none).
func promptAt(events []Event, n int) int {
	for i, e := range events {
		if e.Kind == EvPrompt {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return len(events)
}

// resumeDiff cuts the transcript data at cut, reads the cut file for its
// point (changed by plant), appends the rest and reads on from the point;
// it returns how the result, the events and calls before the point taken
// from the first read, differs from a whole read ("" when it does not, or
// when the reader refuses to go on). refused reports a refusal.
func resumeDiff(t *testing.T, data []byte, cut int, plant func(*pointState)) (diff string, refused bool) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	first, firstObs, err := readObserved(t, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	pt := first.Resume
	if pt == nil {
		return "", false
	}
	if plant != nil {
		st, err := decodePoint(pt)
		if err != nil {
			t.Fatal(err)
		}
		plant(st)
		st.State = append(pointHeader(int64(st.headLen), st.head), st.body()...)
		pt = &st.ResumePoint
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(data[cut:])
	f.Close()
	res, resObs, err := readObserved(t, path, pt)
	if errors.Is(err, session.ErrResume) {
		return "", true
	}
	if err != nil {
		t.Fatal(err)
	}
	whole, wholeObs, err := readObserved(t, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed {
		return "a read from a point says it was not", false
	}
	// The events: before the point the first read's, from it the resumed
	// read's.
	k, fk := promptAt(whole.Events, pt.Turns), promptAt(first.Events, pt.Turns)
	events := append(slices.Clone(first.Events[:fk]), res.Events...)
	if !reflect.DeepEqual(events, whole.Events) {
		for i := range min(len(events), len(whole.Events)) {
			if !reflect.DeepEqual(events[i], whole.Events[i]) {
				return fmt.Sprintf("cut at %d, point %d (turn %d): event %d is %+v, a whole read's %+v", cut, pt.Offset, pt.Turns+1, i, events[i], whole.Events[i]), false
			}
		}
		return fmt.Sprintf("cut at %d: %d events (%d from the point), a whole read %d (%d from it)", cut, len(events), len(res.Events), len(whole.Events), len(whole.Events)-k), false
	}
	// The calls: the first read's before the point, unless the resumed
	// read observed them (they were waiting there).
	for i, o := range firstObs {
		if _, ok := resObs[i]; !ok && i < pt.Tools {
			resObs[i] = o
		}
	}
	if !reflect.DeepEqual(resObs, wholeObs) {
		for i := range len(whole.Tools) {
			if resObs[i] != wholeObs[i] {
				return fmt.Sprintf("cut at %d, point %d: call %d observed %q, by a whole read %q", cut, pt.Offset, i, resObs[i], wholeObs[i]), false
			}
		}
		return fmt.Sprintf("cut at %d: %d calls observed, by a whole read %d", cut, len(resObs), len(wholeObs)), false
	}
	if res.Prompts != whole.Prompts || res.Cwd != whole.Cwd || len(res.Tools) != len(whole.Tools) {
		return fmt.Sprintf("cut at %d: prompts %d, cwd %q, %d calls; a whole read %d, %q, %d", cut, res.Prompts, res.Cwd, len(res.Tools), whole.Prompts, whole.Cwd, len(whole.Tools)), false
	}
	return "", false
}

func assistantLine(uuid, msg, ts string, blocks ...string) string {
	return `{"type":"assistant","uuid":"` + uuid + `","sessionId":"s","cwd":"/w","timestamp":"` + ts + `","message":{"role":"assistant","id":"` + msg + `","content":[` + strings.Join(blocks, ",") + `]}}`
}

func resultLine(uuid, ts, id, text string) string {
	return `{"type":"user","uuid":"` + uuid + `","sessionId":"s","timestamp":"` + ts + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"` + text + `"}]}}`
}

// Lines that reach across a turn's start: a call whose result comes after
// the next prompt, a line repeated after it, a message whose blocks go on
// after it.
var (
	acrossPending = strings.Join([]string{
		userLine("00000000-0000-4000-8000-000000000001", "first"),
		assistantLine("00000000-0000-4000-8000-000000000002", "m1", "2026-01-05T10:00:01+02:00", `{"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"sleep 9"}}`),
		userLine("00000000-0000-4000-8000-000000000003", "second, while it runs"),
		resultLine("00000000-0000-4000-8000-000000000004", "2026-01-05T10:00:03Z", "tu1", "slept"),
		assistantLine("00000000-0000-4000-8000-000000000005", "m2", "2026-01-05T10:00:04Z", `{"type":"text","text":"done"}`),
	}, "\n") + "\n"
	acrossDuplicate = strings.Join([]string{
		userLine("00000000-0000-4000-8000-000000000001", "first"),
		assistantLine("00000000-0000-4000-8000-000000000002", "m1", "2026-01-05T10:00:01Z", `{"type":"text","text":"one"}`),
		userLine("00000000-0000-4000-8000-000000000003", "second"),
		userLine("00000000-0000-4000-8000-000000000001", "first"),
	}, "\n") + "\n"
	acrossMessage = strings.Join([]string{
		userLine("00000000-0000-4000-8000-000000000001", "first"),
		assistantLine("00000000-0000-4000-8000-000000000002", "m1", "2026-01-05T10:00:01Z", `{"type":"text","text":"one"}`),
		userLine("00000000-0000-4000-8000-000000000003", "second"),
		assistantLine("00000000-0000-4000-8000-000000000004", "m1", "2026-01-05T10:00:02Z", `{"type":"text","text":"more of one"}`),
	}, "\n") + "\n"
)

// TestResumeRead: a transcript cut at a line's end or inside a line, read
// for its point, then grown and read on from the point, yields with the
// first read's events and calls before the point exactly a whole read's —
// or the reader refuses (a line after the point refers to one before it).
// Catches: a point that forgets its waiting calls, or the fingerprints of
// what came before it, is found.
func TestResumeRead(t *testing.T) {
	for _, c := range []struct {
		name string
		data string
		cut  int
	}{
		{"waiting call", acrossPending, strings.Index(acrossPending, "tool_result")},
		{"duplicate", acrossDuplicate, len(acrossDuplicate) - 10},
		{"message", acrossMessage, len(acrossMessage) - 10},
	} {
		d, refused := resumeDiff(t, []byte(c.data), c.cut, nil)
		if d != "" {
			t.Errorf("%s: %s", c.name, d)
		}
		if c.name != "waiting call" && !refused {
			t.Errorf("%s: the reader went on from a point a later line refers before", c.name)
		}
		if c.name == "waiting call" && refused {
			t.Errorf("%s: the reader refused to go on", c.name)
		}
	}

	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	resumed, refused := 0, 0
	for seed := range uint64(seeds) {
		var b strings.Builder
		if _, err := gentranscript.Write(&b, gentranscript.Config{Bytes: 300 << 10, Seed: 90 + seed, SessionID: "s"}); err != nil {
			t.Fatal(err)
		}
		data := []byte(b.String())
		r := rand.New(rand.NewPCG(seed, 3))
		for k := range 10 {
			cut := r.IntN(len(data))
			if k%2 == 0 {
				if i := strings.IndexByte(string(data[cut:]), '\n'); i >= 0 {
					cut += i + 1
				}
			}
			d, ref := resumeDiff(t, data, cut, nil)
			if d != "" {
				t.Errorf("generated %d: %s", seed, d)
			}
			if ref {
				refused++
			} else {
				resumed++
			}
		}
	}
	t.Logf("generated: %d reads went on from their point, %d refused", resumed, refused)
	if resumed < refused {
		t.Errorf("%d reads went on from their point, %d refused; want most to", resumed, refused)
	}

	t.Run("Catches", func(t *testing.T) {
		for _, c := range []struct {
			name, data string
			cut        int
			plant      func(*pointState)
		}{
			{"forgotten waiting call", acrossPending, strings.Index(acrossPending, "tool_result"), func(st *pointState) { st.pend = nil }},
			{"forgotten uuids", acrossDuplicate, len(acrossDuplicate) - 10, func(st *pointState) { st.set = nil }},
			{"forgotten message ids", acrossMessage, len(acrossMessage) - 10, func(st *pointState) { st.set = nil }},
		} {
			if d, _ := resumeDiff(t, []byte(c.data), c.cut, c.plant); d == "" {
				t.Errorf("a planted bug (%s) went unnoticed", c.name)
			}
		}
	})
}

// FuzzResumePoint: decodePoint takes any state without panicking, and a
// state it takes, encoded again, decodes to the same state.
func FuzzResumePoint(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	cut := strings.Index(acrossPending, "tool_result")
	if err := os.WriteFile(path, []byte(acrossPending[:cut]), 0o600); err != nil {
		f.Fatal(err)
	}
	first, err := Read(context.Background(), path, &ReadOptions{Resume: true})
	if err != nil || first.Resume == nil {
		f.Fatalf("no point: %v", err)
	}
	f.Add(first.Resume.State, first.Resume.Tools)
	f.Add([]byte{pointVersion, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0)
	f.Fuzz(func(t *testing.T, state []byte, tools int) {
		pt := &session.ResumePoint{Offset: 1 << 20, Tools: tools, State: state}
		st, err := decodePoint(pt)
		if err != nil {
			return
		}
		// Encoded again, it decodes to the same state (the bytes may
		// differ: a varint has more than one encoding).
		enc := append(pointHeader(int64(st.headLen), st.head), st.body()...)
		pt.State = enc
		again, err := decodePoint(pt)
		if err != nil {
			t.Fatalf("state %x decodes, and its encoding %x does not: %v", state, enc, err)
		}
		if got := append(pointHeader(int64(again.headLen), again.head), again.body()...); string(got) != string(enc) {
			t.Errorf("state %x encodes as %x, then as %x", state, enc, got)
		}
	})
}
