package codex

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"bottle/internal/racemode"
	"bottle/session"
)

// FuzzRolloutPoint: decodePoint takes any state without panicking, and
// the point of a state it takes, decoded and made again, is the same.
func FuzzRolloutPoint(f *testing.F) {
	m := &mark{off: 9000, prompts: 2, tools: 3, compactions: 1, first: "/w", cwd: "/w/a", shown: "/w",
		movedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), started: time.Date(2026, 1, 2, 3, 0, 0, 0, time.FixedZone("", 3600)),
		sessionID: "019a", itemMessages: true, toolBytes: 300, textBytes: 40, check: 77,
		waiting: []waitingCall{{i: 1, id: "call_1", at: time.Unix(7, 8).UTC(), cwd: "/w",
			call: Call{Name: "exec_command", Type: ItemFunctionCall, Arguments: `{"cmd":"ls"}`, Status: "completed"}}}}
	p := m.point()
	f.Add(p.State, p.Offset, p.Tools, p.Prompts)
	f.Add([]byte{pointVersion}, int64(0), 0, 0)
	f.Fuzz(func(t *testing.T, state []byte, off int64, tools, prompts int) {
		p := &session.ResumePoint{Offset: off, Tools: tools, Prompts: prompts, Turns: prompts, State: state}
		m, err := decodePoint(p)
		if err != nil {
			return
		}
		again := m.point()
		m2, err := decodePoint(again)
		if err != nil {
			t.Fatalf("%x decodes, and its point made again %x does not: %v", state, again.State, err)
		}
		if third := m2.point(); !bytes.Equal(third.State, again.State) || third.Offset != again.Offset || third.Tools != again.Tools ||
			third.Prompts != again.Prompts || third.Cwd != again.Cwd {
			t.Errorf("%x makes %x, then %x", state, again.State, third.State)
		}
	})
}

// rolloutsInOne are the plain rollouts under testdata in one, the one of
// event messages only first (waiting_across.jsonl is a call that waits
// across a prompt, then a turn in another folder: what a point must carry
// beside its counters).
func rolloutsInOne(t *testing.T) []byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	slices.SortFunc(paths, func(a, b string) int {
		first := func(p string) int {
			if filepath.Base(p) == "events_only.jsonl" {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(first(a), first(b)), strings.Compare(a, b))
	})
	var all []byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

// observedRead reads the rollout at path with o, every call observed: the
// transcript, and each call observed as a line by its index.
func observedRead(path string, o session.ReadOptions) (*session.Transcript, map[int]string, error) {
	calls := map[int]string{}
	o.CaptureTools = func(string) bool { return true }
	o.Observe = func(i int, d *session.ToolDetail, result func() string) {
		calls[i] = fmt.Sprintf("%s %s %v %v %v %q %v", d.Name, d.Input, d.Time, d.HasResult, d.IsError, result(), d.Action)
	}
	tr, err := ReadSession(context.Background(), path, &o)
	return tr, calls, err
}

// resumeDiff compares a read of the rollout at path from p (changed by
// plant, when set) with a whole read: the events from the point's turn on,
// the calls from the point's on, the calls observed (those from the
// point's on, and those waiting there), the counters. It returns the first
// difference, "" when none, and whether the read refused the point.
func resumeDiff(t *testing.T, path string, p *session.ResumePoint, plant func(*mark)) (string, bool) {
	t.Helper()
	m, err := decodePoint(p)
	if err != nil {
		t.Fatal(err)
	}
	// Observed after the point by a whole read: the calls from the
	// point's on, and those waiting there.
	after := map[int]bool{}
	for _, w := range m.waiting {
		after[w.i] = true
	}
	if plant != nil {
		plant(m)
		p = m.point()
	}
	whole, wholeCalls, err := observedRead(path, session.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, gotCalls, err := observedRead(path, session.ReadOptions{From: p})
	if errors.Is(err, session.ErrResume) {
		return "", true
	}
	if err != nil || !got.Resumed {
		t.Fatalf("resumed read: %v (resumed %v)", err, got != nil && got.Resumed)
	}
	k, n := len(whole.Events), 0
	for i, e := range whole.Events {
		if e.Kind == session.EvPrompt {
			if n == p.Turns {
				k = i
				break
			}
			n++
		}
	}
	switch {
	case !reflect.DeepEqual(got.Events, whole.Events[k:]):
		return fmt.Sprintf("events from turn %d:\n%s", p.Turns+1, gocmp.Diff(whole.Events[k:], got.Events)), false
	case len(got.Tools) != len(whole.Tools) || !reflect.DeepEqual(got.Tools[p.Tools:], whole.Tools[p.Tools:]):
		return fmt.Sprintf("calls from %d: %d, a whole read %d", p.Tools, len(got.Tools), len(whole.Tools)), false
	case got.Prompts != whole.Prompts || got.Cwd != whole.Cwd || got.Compactions != whole.Compactions || got.WorkDir() != whole.WorkDir():
		return fmt.Sprintf("counters: prompts %d, cwd %q, compactions %d, work dir %q; a whole read %d, %q, %d, %q", got.Prompts, got.Cwd,
			got.Compactions, got.WorkDir(), whole.Prompts, whole.Cwd, whole.Compactions, whole.WorkDir()), false
	}
	for i, c := range wholeCalls {
		if (i >= p.Tools || after[i]) && gotCalls[i] != c {
			return fmt.Sprintf("call %d observed as %q, by a whole read as %q", i, gotCalls[i], c), false
		}
	}
	for i, c := range gotCalls {
		if wholeCalls[i] != c {
			return fmt.Sprintf("call %d observed as %q, by a whole read as %q", i, c, wholeCalls[i]), false
		}
	}
	return "", false
}

// TestResumeRollout: the rollouts under testdata in one, cut after each
// line (every eighth under the race detector) and read with a point, then
// read whole from that point, hold what a whole read holds from there on.
// Catches: a point that forgets its waiting calls or its folders is found.
func TestResumeRollout(t *testing.T) {
	data := rolloutsInOne(t)
	var cuts []int
	for i, n := 0, 0; i < len(data); i++ {
		if data[i] == '\n' {
			if n++; !racemode.Enabled || n%8 == 0 {
				cuts = append(cuts, i+1)
			}
		}
	}
	dir := t.TempDir()
	prefix, path := filepath.Join(dir, "prefix.jsonl"), filepath.Join(dir, "rollout.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// The points of the prefixes, each read as a later read finds it.
	var points []*session.ResumePoint
	for _, c := range cuts {
		if err := os.WriteFile(prefix, data[:c], 0o600); err != nil {
			t.Fatal(err)
		}
		tr, _, err := observedRead(prefix, session.ReadOptions{Resume: true})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Resume != nil && (len(points) == 0 || points[len(points)-1].Offset != tr.Resume.Offset) {
			points = append(points, tr.Resume)
		}
	}
	resumed, refused := 0, 0
	for _, p := range points {
		d, ref := resumeDiff(t, path, p, nil)
		if d != "" {
			t.Fatalf("from the point at %d: %s", p.Offset, d)
		}
		if ref {
			refused++
		} else {
			resumed++
		}
	}
	t.Logf("%d points: %d reads went on from them, %d refused", len(points), resumed, refused)
	if resumed < 10 || refused == 0 {
		t.Errorf("%d reads from a point, %d refused: want many, and a refusal (a point made before the items came)", resumed, refused)
	}
	t.Run("Catches", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			plant func(*mark)
		}{
			{"waiting calls forgotten", func(m *mark) { m.waiting = nil }},
			{"the events' folder", func(m *mark) { m.shown = "/elsewhere" }},
			{"the turn's folder", func(m *mark) { m.cwd = "/elsewhere" }},
		} {
			found := false
			for _, p := range points {
				if d, _ := resumeDiff(t, path, p, c.plant); d != "" {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("a planted bug (%s) went unnoticed over %d points", c.name, len(points))
			}
		}
	})
}
