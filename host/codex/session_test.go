package codex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"bottle/render/digest"
	"bottle/session"
	"bottle/workstate"
)

// sessionDump is what a bottle takes of a rollout: the events in order,
// every tool line in each form, the working state and the counts.
func sessionDump(t *testing.T, path string) string {
	t.Helper()
	var w workstate.Builder
	o := w.ReadOptions("")
	o.Capture = map[int]*session.ToolDetail{0: nil}
	tr, err := ReadSession(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session %s cwd=%s started=%s last=%s prompts=%d compactions=%d text=%d tool=%d\n",
		tr.SessionID, tr.Cwd, tr.Started.Format("15:04:05"), tr.Last.Format("15:04:05"), tr.Prompts, tr.Compactions, tr.TextBytes, tr.ToolBytes)
	kinds := map[session.EventKind]string{session.EvPrompt: "prompt", session.EvAssistant: "assistant", session.EvTool: "tool",
		session.EvCompaction: "compaction", session.EvAnswer: "answer", session.EvCwd: "cwd"}
	for _, e := range tr.Events {
		k := kinds[e.Kind]
		if k == "" {
			k = fmt.Sprint(e.Kind)
		}
		switch e.Kind {
		case session.EvTool, session.EvAnswer:
			tc := &tr.Tools[e.Tool]
			fmt.Fprintf(&b, "%s %s [#t%d] %s result=%v error=%v", e.Time.Format("15:04:05"), k, e.Tool+1, tc.Name, tc.HasResult, tc.IsError)
			if e.Kind == session.EvAnswer {
				fmt.Fprintf(&b, " %q\n", e.Text)
				continue
			}
			l := &tc.Line
			fmt.Fprintf(&b, "\n    full:     %s%s\n    pending:  %s\n    short:    %s\n    shortest: %s\n",
				l.Full(), l.Detail(), l.Pending(), l.Short(digest.Short), l.Short(digest.Shortest))
		case session.EvAssistant:
			fmt.Fprintf(&b, "%s %s %q\n", e.Time.Format("15:04:05"), k, e.Blocks)
		default:
			fmt.Fprintf(&b, "%s %s %q\n", e.Time.Format("15:04:05"), k, e.Text)
		}
	}
	for _, l := range w.Lines(tr.WorkDir()) {
		fmt.Fprintf(&b, "state %s\n", l)
	}
	if d := tr.Captured[0]; d != nil {
		fmt.Fprintf(&b, "captured #t1: %s input=%s result=%q\n", d.Name, d.Input, d.Result)
	}
	fmt.Fprintf(&b, "diagnostics: %s\n", tr.Diag)
	return b.String()
}

// TestSessionGoldens: every rollout under testdata, real (the e2e's) and
// hand-written (tools.jsonl: each Codex tool; events_only.jsonl: a version
// that wrote messages as events alone; legacy_hostile.jsonl), reads into
// the session its golden describes, and its .zst reads the same.
func TestSessionGoldens(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	rolloutGoldens(t, ".session", func(t *testing.T, in string) string {
		got := sessionDump(t, in)
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		zst := filepath.Join(t.TempDir(), "rollout.jsonl.zst")
		if err := os.WriteFile(zst, enc.EncodeAll(data, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, sessionDump(t, zst)); diff != "" {
			t.Errorf("zst differs from plain (-plain +zst):\n%s", diff)
		}
		return got
	})
}

// TestSessionNeverInjected: no injected text of any real rollout (hook
// context, bottle's pointer among it, instructions, the environment,
// compaction summaries, reasoning) becomes a prompt or a reply.
func TestSessionNeverInjected(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, in := range inputs {
		r, err := Read(in)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Session(context.Background(), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		var said []string
		for _, e := range tr.Events {
			said = append(said, e.Text)
			said = append(said, e.Blocks...)
		}
		for _, rec := range r.Records {
			if rec.Item == nil || rec.Item.Injected == "" || strings.TrimSpace(rec.Item.Text) == "" {
				continue
			}
			for _, s := range said {
				if strings.Contains(s, rec.Item.Text) {
					t.Errorf("%s: injected %s text became a message: %.80q", in, rec.Item.Injected, rec.Item.Text)
				}
			}
		}
	}
}

// TestSessionUntilFirstPrompt stops at the first prompt.
func TestSessionUntilFirstPrompt(t *testing.T) {
	tr, err := ReadSession(context.Background(), filepath.Join("testdata", "tools.jsonl"), &session.ReadOptions{UntilFirstPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tr.Events), 1; got != want || tr.Events[0].Kind != session.EvPrompt {
		t.Fatalf("got %d events %+v, want %d prompt", got, tr.Events, want)
	}
}

// TestSessionCwdChanges: a turn in another working folder than the turn
// before is an EvCwd in that turn, after its prompt; the session's first
// folder, a folder left before anything happened in it and a compaction's
// turn_context in the same folder are none; the last one is the session's
// WorkDir.
func TestSessionCwdChanges(t *testing.T) {
	const (
		meta = `{"timestamp":"2026-11-21T08:00:00Z","type":"session_meta","payload":{"id":"019a8d00-2222-7333-8444-555566667777","cwd":"/a"}}`
		bare = `{"timestamp":"2026-11-21T08:00:00Z","type":"session_meta","payload":{"id":"019a8d00-2222-7333-8444-555566667777"}}`
		ask  = `{"timestamp":"2026-11-21T08:01:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go on"}]}}`
		say  = `{"timestamp":"2026-11-21T08:02:00Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}`
	)
	turn := func(cwd string) string {
		return `{"timestamp":"2026-11-21T08:00:30Z","type":"turn_context","payload":{"cwd":"` + cwd + `"}}`
	}
	tests := []struct {
		name    string
		lines   []string
		path    string // a rollout under testdata instead of lines
		want    map[int][]string
		workDir string
	}{
		{name: "twice", path: "cwd_changes.jsonl",
			want: map[int][]string{2: {"/home/dev/app/api"}, 4: {"/home/dev/app/web"}}, workDir: "/home/dev/app/web"},
		{name: "same folder", lines: []string{meta, turn("/a"), ask, say, turn("/a"), ask, say}, want: map[int][]string{}, workDir: "/a"},
		{name: "first from turn_context", lines: []string{bare, turn("/a"), ask, say, turn("/b"), ask, say},
			want: map[int][]string{2: {"/b"}}, workDir: "/b"},
		{name: "meta then another folder", lines: []string{meta, turn("/b"), ask, say}, want: map[int][]string{1: {"/b"}}, workDir: "/b"},
		{name: "there and back", lines: []string{meta, turn("/a"), ask, say, turn("/b"), turn("/a"), ask, say},
			want: map[int][]string{}, workDir: "/a"},
		{name: "mid-turn", lines: []string{meta, ask, turn("/b"), say}, want: map[int][]string{1: {"/b"}}, workDir: "/b"},
		{name: "nothing after", lines: []string{meta, ask, say, turn("/b")}, want: map[int][]string{1: {"/b"}}, workDir: "/b"},
		{name: "not a folder", lines: []string{meta, ask, turn("[trimmed]"), turn("b/c"), say}, want: map[int][]string{}, workDir: "/a"},
		{name: "windows folders", lines: []string{meta, ask, turn(`C:\\work`), say, ask, turn(`\\\\srv\\share`), say},
			want: map[int][]string{1: {`C:\work`}, 2: {`\\srv\share`}}, workDir: `\\srv\share`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("testdata", tt.path)
			if tt.path == "" {
				path = filepath.Join(t.TempDir(), "rollout.jsonl")
				if err := os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			tr, err := ReadSession(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int][]string{}
			for _, span := range session.Turns(tr.Events) {
				for k, e := range tr.Events[span.Start:span.End] {
					if e.Kind != session.EvCwd {
						continue
					}
					if span.N > 0 && k == 0 {
						t.Errorf("turn %d: the change of folder comes before its prompt", span.N)
					}
					got[span.N] = append(got[span.N], e.Text)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("changes of folder by turn (-want +got):\n%s", diff)
			}
			if got := tr.WorkDir(); got != tt.workDir {
				t.Errorf("WorkDir() = %q, want %q", got, tt.workDir)
			}
		})
	}
}

// TestSessionCancelled: a done context fails the read.
func TestSessionCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadSession(ctx, filepath.Join("testdata", "tools.jsonl"), nil); err == nil {
		t.Fatal("a cancelled read returned no error")
	}
}

// TestParsePatch reads every operation of a patch.
func TestParsePatch(t *testing.T) {
	got := ParsePatch("*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@\n-x\n+y\n*** Add File: c.go\n+z\n*** Delete File: d.go\n*** Update File: e.go\r\n*** End Patch")
	want := PatchFiles{Added: []string{"c.go"}, Updated: []string{"b.go", "e.go"}, Deleted: []string{"d.go"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
