package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"bottle/claudemem/memtest"
	"bottle/internal/hookio"
	"bottle/internal/hooklog"
	"bottle/locate"
	"bottle/pointer"
	"bottle/render"
)

// hookWorld is a scratch machine for hook runs. run() reads the process
// environment (locate.OSEnv), so the world sets HOME, CLAUDE_CONFIG_DIR and
// CLAUDE_MEM_DATA_DIR with t.Setenv, and its tests cannot run in parallel.
type hookWorld struct {
	home, config, data string
	deps               deps // what run takes from the process; tests change it
}

func newHookWorld(t *testing.T) *hookWorld {
	t.Helper()
	home := t.TempDir()
	w := &hookWorld{home: home, config: filepath.Join(home, ".claude"), data: filepath.Join(home, "mem"), deps: defaultDeps()}
	for k, v := range map[string]string{
		"HOME": home, "USERPROFILE": home,
		"CLAUDE_CONFIG_DIR": w.config, "CLAUDE_MEM_DATA_DIR": w.data,
		"BOTTLE_DIR": "", deadlineEnv: "",
	} {
		t.Setenv(k, v)
	}
	// Work abandoned at a deadline must end before the test's folders go.
	t.Cleanup(hookio.Abandoned.Wait)
	return w
}

// transcript copies render/testdata/<fixture>.jsonl to the transcript of
// session id in project folder -home-dev-proj and returns its path.
func (w *hookWorld) transcript(t *testing.T, id, fixture string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "render", "testdata", fixture+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(w.config, "projects", "-home-dev-proj", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *hookWorld) bottlesDir() string { return filepath.Join(w.data, "bottles") }

func (w *hookWorld) logPath() string { return filepath.Join(w.data, "logs", "bottle.log") }

// hook runs "hookbin <cmd> args…" with payload on stdin. It fails the test
// unless run returns nil and writes nothing to stderr, and returns stdout and
// how long the run took.
func (w *hookWorld) hook(t *testing.T, cmd, payload string, args ...string) (string, time.Duration) {
	t.Helper()
	var out, errb bytes.Buffer
	start := time.Now()
	err := w.deps.run(t.Context(), append([]string{cmd}, args...), strings.NewReader(payload), &out, &errb)
	elapsed := time.Since(start)
	if err != nil {
		t.Errorf("hookbin %s returned %v, want nil", cmd, err)
	}
	if errb.Len() > 0 {
		t.Errorf("hookbin %s wrote to stderr: %q", cmd, errb.String())
	}
	return out.String(), elapsed
}

// logLines returns the hook log's lines.
func (w *hookWorld) logLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(w.logPath())
	if err != nil {
		t.Fatalf("hook log: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// lastOutcome is the outcome of the last logged hook run.
func (w *hookWorld) lastOutcome(t *testing.T) string {
	t.Helper()
	lines := w.logLines(t)
	e, ok := hooklog.Parse(lines[len(lines)-1])
	if !ok {
		t.Fatalf("unparsable log line %q", lines[len(lines)-1])
	}
	return e.Outcome
}

// answer is the shape of session-start's stdout.
type answer struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parseAnswer checks that stdout is empty or exactly one JSON object of the
// SessionStart answer's shape, and returns the pointer ("" for no answer).
func parseAnswer(t *testing.T, stdout string) string {
	t.Helper()
	if stdout == "" {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var a answer
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("stdout is not a SessionStart answer: %v\n%s", err, stdout)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON value: %q", stdout)
	}
	if !strings.HasPrefix(stdout, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"`) {
		t.Errorf("stdout = %.120q, want the exact SessionStart answer shape", stdout)
	}
	if a.HookSpecificOutput.HookEventName != "SessionStart" || a.HookSpecificOutput.AdditionalContext == "" {
		t.Errorf("answer = %+v", a)
	}
	return a.HookSpecificOutput.AdditionalContext
}

// slowRender gives w a render that blocks until its context ends.
func slowRender(w *hookWorld) {
	w.deps.render = func(ctx context.Context, _ render.Options) (*render.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

func payloadJSON(t *testing.T, fields map[string]any) string {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSessionStartMatrix runs session-start for every source against every
// state of the session's sources: the answer is one pointer exactly where
// the hooks' contract (docs/format.md, "The hooks") wants one, else nothing, and the hook always returns nil in time.
func TestSessionStartMatrix(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	type state struct {
		name    string
		fixture string // "" = no transcript
		setup   func(t *testing.T, w *hookWorld) []string
	}
	states := []state{
		{name: "Compacted", fixture: "compaction"},
		{name: "NotCompacted", fixture: "basic"},
		{name: "Absent"},
		{name: "NotWritable", fixture: "compaction", setup: func(t *testing.T, w *hookWorld) []string {
			// Below a regular file no folder can be made, even as root.
			file := filepath.Join(w.home, "file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("BOTTLE_DIR", filepath.Join(file, "bottles"))
			return nil
		}},
		{name: "DeadlineExceeded", fixture: "compaction", setup: func(t *testing.T, w *hookWorld) []string {
			slowRender(w)
			return []string{"--deadline", "1ms"}
		}},
	}
	sources := []string{"compact", "resume", "fork", "startup", "clear", "vscode"}
	// wantPointer[state][source]
	wantPointer := map[string]map[string]bool{
		"Compacted":    {"compact": true, "resume": true, "fork": true},
		"NotCompacted": {"compact": true},
	}
	for _, st := range states {
		for _, src := range sources {
			t.Run(st.name+"/"+src, func(t *testing.T) {
				w := newHookWorld(t)
				tp := filepath.Join(w.config, "projects", "-home-dev-proj", id+".jsonl")
				if st.fixture != "" {
					tp = w.transcript(t, id, st.fixture)
				}
				var args []string
				if st.setup != nil {
					args = st.setup(t, w)
				}
				payload := payloadJSON(t, map[string]any{
					"session_id": id, "transcript_path": tp, "cwd": "/home/dev/proj",
					"hook_event_name": "SessionStart", "source": src,
				})
				out, elapsed := w.hook(t, "session-start", payload, args...)
				limit := sessionStartDeadline + 2*time.Second
				if args != nil {
					limit = time.Second
				}
				if elapsed > limit {
					t.Errorf("session-start took %v, want < %v", elapsed, limit)
				}
				ptr := parseAnswer(t, out)
				want := wantPointer[st.name][src]
				if (ptr != "") != want {
					t.Fatalf("pointer printed = %v, want %v; stdout %q; log %q", ptr != "", want, out, w.logLines(t))
				}
				outcome := w.lastOutcome(t)
				if want {
					bottle := filepath.Join(w.bottlesDir(), id+".md")
					if !strings.Contains(ptr, "\n"+bottle+"   (session "+id+")\n") {
						t.Errorf("pointer does not name %s:\n%s", bottle, ptr)
					}
					if !strings.Contains(ptr, "\nCurrent task: Now test it.\n") && !strings.Contains(ptr, "\nCurrent task: List the Go files in this project.\n") {
						t.Errorf("pointer lacks the last prompt as current task:\n%s", ptr)
					}
					md, err := os.ReadFile(bottle)
					if err != nil || !bytes.HasPrefix(md, []byte("# Session bottle — "+id)) {
						t.Errorf("bottle not written: %v", err)
					}
					if outcome != "ok" {
						t.Errorf("logged outcome %q, want ok", outcome)
					}
					return
				}
				switch {
				case st.name == "DeadlineExceeded" && (src == "compact" || src == "resume" || src == "fork"):
					if !strings.HasPrefix(outcome, "error: deadline exceeded") {
						t.Errorf("logged outcome %q, want a deadline error", outcome)
					}
				case src == "startup" || src == "clear" || src == "vscode":
					if !strings.HasPrefix(outcome, "skipped: ") && !strings.HasPrefix(outcome, "error: deadline exceeded") {
						t.Errorf("logged outcome %q, want skipped", outcome)
					}
				case st.name == "NotWritable" || src == "compact":
					if !strings.HasPrefix(outcome, "error: ") {
						t.Errorf("logged outcome %q, want an error", outcome)
					}
				default: // resume/fork without a compaction
					if !strings.HasPrefix(outcome, "skipped: no ") || !strings.Contains(outcome, "compaction") {
						t.Errorf("logged outcome %q, want skipped for lack of a compaction", outcome)
					}
				}
				if _, err := os.Stat(filepath.Join(w.bottlesDir(), id+".md")); err == nil {
					t.Errorf("a bottle was written although the hook gave up")
				}
			})
		}
	}
}

// e2ePayloads are the hook payloads Claude Code 2.1.332 sent in the end-to-end
// run (the e2e test's hook log), in order, plus the shapes 2.1.197 sends
// differently. $TP stands for the transcript path.
var e2ePayloads = []struct {
	name    string
	payload string
	cmd     string // "" = not a hook of ours
}{
	{"332/SessionStart-startup", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "hook_event_name": "SessionStart", "source": "startup"}`, "session-start"},
	{"332/UserPromptSubmit", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "f9476813-7bb9-4370-b85f-c5070fd1edd2", "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": "hello"}`, ""},
	{"332/Stop", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "f9476813-7bb9-4370-b85f-c5070fd1edd2", "permission_mode": "default", "effort": {"level": "medium"}, "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Hello from the mock.", "background_tasks": [], "session_crons": []}`, "stop"},
	{"332/SessionEnd-other", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "f9476813-7bb9-4370-b85f-c5070fd1edd2", "hook_event_name": "SessionEnd", "reason": "other"}`, "session-end"},
	{"332/SessionStart-resume", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "hook_event_name": "SessionStart", "source": "resume", "seconds_since_last_response": 0, "context_tokens": 120, "prompt_cache_likely_expired": false, "estimated_cache_write_usd": 0.0006}`, "session-start"},
	{"332/PreCompact-auto", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "226b0c62-9bac-4743-9fe8-7fd74f37706c", "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": null}`, ""},
	{"332/SessionStart-compact-auto", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "226b0c62-9bac-4743-9fe8-7fd74f37706c", "hook_event_name": "SessionStart", "source": "compact", "model": "claude-opus-5-5"}`, "session-start"},
	{"332/PreCompact-manual", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "8ca63248-3c84-4e46-9116-44ce50963eea", "hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": null}`, ""},
	{"332/SessionStart-compact-manual", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "8ca63248-3c84-4e46-9116-44ce50963eea", "hook_event_name": "SessionStart", "source": "compact", "model": "claude-opus-5-5"}`, "session-start"},
	{"197/SessionStart-resume", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "hook_event_name": "SessionStart", "source": "resume"}`, "session-start"},
	{"197/Stop", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "f9476813-7bb9-4370-b85f-c5070fd1edd2", "permission_mode": "default", "effort": {"level": "high"}, "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Hello from the mock.", "background_tasks": [], "session_crons": []}`, "stop"},
	{"197/SessionStart-compact", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "226b0c62-9bac-4743-9fe8-7fd74f37706c", "hook_event_name": "SessionStart", "source": "compact", "model": "claude-opus-4-8"}`, "session-start"},
	{"332/SessionEnd-clear", `{"session_id": "e179046d-7049-4ccf-9e8a-2fb2bb450298", "transcript_path": "$TP", "cwd": "/home/user/project", "prompt_id": "4cb85a79-2f05-4814-a6c8-822fe1fa5cdf", "hook_event_name": "SessionEnd", "reason": "clear"}`, "session-end"},
	{"332/SessionStart-clear", `{"session_id": "71d071af-c60d-4172-b2ac-bb2fa2d94350", "transcript_path": "$TP2", "cwd": "/home/user/project", "hook_event_name": "SessionStart", "source": "clear"}`, "session-start"},
	{"197/SessionStart-clear", `{"session_id": "71d071af-c60d-4172-b2ac-bb2fa2d94350", "transcript_path": "$TP2", "cwd": "/home/user/project", "prompt_id": "4cb85a79-2f05-4814-a6c8-822fe1fa5cdf", "hook_event_name": "SessionStart", "source": "clear"}`, "session-start"},
}

// hookFor maps a payload's hook_event_name to our command, as the
// registration install writes does.
var hookFor = map[string]string{"SessionStart": "session-start", "Stop": "stop", "SessionEnd": "session-end"}

// TestHookE2EPayloads replays the real payloads of both Claude Code versions
// in order against a compacted session: each parses and does its job.
func TestHookE2EPayloads(t *testing.T) {
	const id = "e179046d-7049-4ccf-9e8a-2fb2bb450298"
	w := newHookWorld(t)
	tp := w.transcript(t, id, "compaction")
	tp2 := w.transcript(t, "71d071af-c60d-4172-b2ac-bb2fa2d94350", "basic")
	bottle := filepath.Join(w.bottlesDir(), id+".md")
	jsonPath := func(p string) string { b, _ := json.Marshal(p); return string(b[1 : len(b)-1]) }
	for _, tt := range e2ePayloads {
		payload := strings.ReplaceAll(strings.ReplaceAll(tt.payload, "$TP2", jsonPath(tp2)), "$TP", jsonPath(tp))
		var p struct {
			Event  string `json:"hook_event_name"`
			Source string `json:"source"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(payload), &p); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if hookFor[p.Event] != tt.cmd {
			t.Fatalf("%s: event %s dispatches to %q, table says %q", tt.name, p.Event, hookFor[p.Event], tt.cmd)
		}
		if tt.cmd == "" {
			continue
		}
		before := len(readLines(w.logPath()))
		out, _ := w.hook(t, tt.cmd, payload)
		ptr := parseAnswer(t, out)
		wantPointer := tt.cmd == "session-start" && (p.Source == "compact" || p.Source == "resume")
		if (ptr != "") != wantPointer {
			t.Errorf("%s: pointer printed = %v, want %v (log: %q)", tt.name, ptr != "", wantPointer, w.logLines(t))
		}
		if lines := readLines(w.logPath()); len(lines) != before+1 {
			t.Errorf("%s: %d log lines written, want 1", tt.name, len(lines)-before)
		}
		outcome := w.lastOutcome(t)
		if strings.HasPrefix(outcome, "error") {
			t.Errorf("%s: logged %q", tt.name, outcome)
		}
		switch {
		case wantPointer:
			if !strings.Contains(ptr, bottle) || !strings.Contains(ptr, "session_id "+id+".") {
				t.Errorf("%s: pointer lacks the bottle or session id:\n%s", tt.name, ptr)
			}
		case tt.cmd == "stop" || tt.cmd == "session-end" && p.Reason != "clear":
			if _, err := os.Stat(bottle); err != nil {
				t.Errorf("%s: bottle not written: %v", tt.name, err)
			}
		case p.Reason == "clear":
			if _, err := os.Stat(bottle); err == nil {
				t.Errorf("%s: bottle still in place after SessionEnd clear", tt.name)
			}
			archived, _ := filepath.Glob(filepath.Join(w.bottlesDir(), "archive", "*-"+id+".md"))
			if len(archived) != 1 || outcome != "ok: archived" {
				t.Errorf("%s: archive holds %v, logged %q", tt.name, archived, outcome)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(w.bottlesDir(), "71d071af-c60d-4172-b2ac-bb2fa2d94350.md")); err == nil {
		t.Error("SessionStart clear rendered a bottle")
	}
}

func readLines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestHookBadPayloads: malformed, empty, oversized or hostile input on stdin
// prints nothing, returns nil and logs one error line, for every hook.
func TestHookBadPayloads(t *testing.T) {
	payloads := []struct{ name, in string }{
		{"Empty", ""},
		{"Blank", " \n\t"},
		{"Garbage", "garbage"},
		{"Truncated", `{"session_id": "abc", "source": "comp`},
		{"Array", `[1, 2]`},
		{"Null", `null`},
		{"WrongType", `{"session_id": 5, "source": "compact"}`},
		{"NoSession", `{"source": "compact", "reason": "other"}`},
		{"TraversalID", `{"session_id": "../../etc/passwd", "source": "compact", "reason": "clear"}`},
		{"NewlineID", `{"session_id": "abc\nerror: forged", "source": "compact"}`},
		{"Oversized", `{"session_id": "abc", "source": "compact", "x": "` + strings.Repeat("a", hookio.MaxPayload) + `"}`},
		{"InvalidUTF8", "{\"session_id\": \"a\xffb\", \"source\": \"compact\"}"},
	}
	for _, cmd := range []string{"session-start", "stop", "session-end"} {
		for _, tt := range payloads {
			t.Run(cmd+"/"+tt.name, func(t *testing.T) {
				w := newHookWorld(t)
				w.transcript(t, "abc", "compaction")
				out, _ := w.hook(t, cmd, tt.in)
				if out != "" {
					t.Errorf("stdout = %q, want nothing", out)
				}
				lines := w.logLines(t)
				if len(lines) != 1 {
					t.Fatalf("log has %d lines, want 1: %q", len(lines), lines)
				}
				if o := w.lastOutcome(t); !strings.HasPrefix(o, "error: ") {
					t.Errorf("logged outcome %q, want an error", o)
				}
				if _, err := os.Stat(filepath.Join(w.bottlesDir(), "abc.md")); err == nil {
					t.Error("a bottle was written from a bad payload")
				}
			})
		}
	}
}

// TestHookBlockedStdin: a payload that never arrives costs the deadline,
// not a hang.
func TestHookBlockedStdin(t *testing.T) {
	w := newHookWorld(t)
	r, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	var out, errb bytes.Buffer
	start := time.Now()
	err := run(t.Context(), []string{"session-start", "--deadline", "50ms"}, r, &out, &errb)
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("took %v with a 50ms deadline", elapsed)
	}
	if err != nil || out.Len() > 0 || errb.Len() > 0 {
		t.Errorf("err %v, stdout %q, stderr %q; want nil and nothing", err, out.String(), errb.String())
	}
	if o := w.lastOutcome(t); o != "error: deadline exceeded (50ms)" {
		t.Errorf("logged outcome %q", o)
	}
	pw.Close()
}

func TestHookDeadlineConfig(t *testing.T) {
	env := func(v string) locate.Env {
		return locate.Env{Getenv: func(k string) string {
			if k == deadlineEnv {
				return v
			}
			return ""
		}}
	}
	tests := []struct {
		flag     time.Duration
		env      string
		want     time.Duration
		wantWarn bool
	}{
		{0, "", 8 * time.Second, false},
		{0, "250ms", 250 * time.Millisecond, false},
		{0, "3", 3 * time.Second, false},
		{0, "1.5", 1500 * time.Millisecond, false},
		{time.Second, "250ms", time.Second, false},
		{0, "soon", 8 * time.Second, true},
		{0, "-1s", 8 * time.Second, true},
		{0, "0", 8 * time.Second, true},
	}
	for _, tt := range tests {
		got, warn := hookDeadline(tt.flag, env(tt.env), 8*time.Second)
		if got != tt.want || (warn != "") != tt.wantWarn {
			t.Errorf("hookDeadline(%v, %q) = %v, %q; want %v, warning %v", tt.flag, tt.env, got, warn, tt.want, tt.wantWarn)
		}
	}

	// The environment variable reaches the hooks.
	w := newHookWorld(t)
	w.transcript(t, "abc", "compaction")
	slowRender(w)
	t.Setenv(deadlineEnv, "20ms")
	out, elapsed := w.hook(t, "stop", `{"session_id":"abc"}`)
	if out != "" || elapsed > time.Second {
		t.Errorf("stop with %s=20ms: stdout %q after %v", deadlineEnv, out, elapsed)
	}
	if o := w.lastOutcome(t); o != "error: deadline exceeded (20ms)" {
		t.Errorf("logged outcome %q", o)
	}
}

func TestHookHelpAndArgs(t *testing.T) {
	w := newHookWorld(t)
	for _, cmd := range []string{"session-start", "stop", "session-end"} {
		out, _ := w.hook(t, cmd, "", "--help")
		if !strings.HasPrefix(out, "usage: hookbin "+cmd) || !strings.Contains(out, "-deadline") {
			t.Errorf("%s --help printed %q", cmd, out)
		}
	}
	if _, err := os.Stat(w.logPath()); err == nil {
		t.Error("--help wrote a log line")
	}
	for _, args := range [][]string{{"extra"}, {"--nope"}, {"--deadline", "soon"}} {
		out, _ := w.hook(t, "session-start", `{"session_id":"abc","source":"compact"}`, args...)
		if out != "" {
			t.Errorf("session-start %q printed %q", args, out)
		}
		if o := w.lastOutcome(t); !strings.HasPrefix(o, "error: ") {
			t.Errorf("session-start %q logged %q", args, o)
		}
	}
}

func TestStopAndSessionEnd(t *testing.T) {
	const id = "abc"
	w := newHookWorld(t)
	w.transcript(t, id, "basic")
	bottle := filepath.Join(w.bottlesDir(), id+".md")

	// No transcript_path: found by session id.
	out, elapsed := w.hook(t, "stop", `{"session_id":"abc","hook_event_name":"Stop","stop_hook_active":true}`)
	if out != "" || elapsed > stopDeadline+2*time.Second {
		t.Errorf("stop printed %q after %v", out, elapsed)
	}
	if _, err := os.Stat(bottle); err != nil {
		t.Fatalf("stop did not write the bottle: %v", err)
	}
	if o := w.lastOutcome(t); o != "ok" {
		t.Errorf("stop logged %q", o)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(bottle); fi.Mode().Perm() != 0o600 {
			t.Errorf("bottle mode %v, want 0600", fi.Mode().Perm())
		}
	}

	// A directory as transcript_path is refused, not read.
	dir := t.TempDir()
	out, _ = w.hook(t, "stop", payloadJSON(t, map[string]any{"session_id": id, "transcript_path": dir}))
	if o := w.lastOutcome(t); out != "" || !strings.Contains(o, "not a regular file") {
		t.Errorf("stop with a directory transcript: stdout %q, logged %q", out, o)
	}

	// A session without transcript or stored data ("claude mcp list" ends
	// one) has nothing to render: skipped, not an error.
	out, _ = w.hook(t, "session-end", `{"session_id":"nosuch","reason":"other"}`)
	if o := w.lastOutcome(t); out != "" || o != "skipped: nothing recorded for this session" {
		t.Errorf("session-end without sources: stdout %q, logged %q", out, o)
	}
	// A Stop comes after a turn, so a missing transcript is an error there.
	out, _ = w.hook(t, "stop", `{"session_id":"nosuch"}`)
	if o := w.lastOutcome(t); out != "" || !strings.HasPrefix(o, "error: ") {
		t.Errorf("stop without sources: stdout %q, logged %q", out, o)
	}

	out, elapsed = w.hook(t, "session-end", `{"session_id":"abc","reason":"prompt_input_exit"}`)
	if o := w.lastOutcome(t); out != "" || o != "ok" || elapsed > sessionEndDeadline+2*time.Second {
		t.Errorf("session-end: stdout %q, logged %q after %v", out, o, elapsed)
	}

	out, _ = w.hook(t, "session-end", `{"session_id":"abc","reason":"clear"}`)
	if o := w.lastOutcome(t); out != "" || o != "ok: archived" {
		t.Errorf("session-end clear: stdout %q, logged %q", out, o)
	}
	if _, err := os.Stat(bottle); err == nil {
		t.Error("bottle still in place after clear")
	}
	out, _ = w.hook(t, "session-end", `{"session_id":"abc","reason":"clear"}`)
	if o := w.lastOutcome(t); out != "" || o != "ok: no bottle to archive" {
		t.Errorf("second session-end clear: stdout %q, logged %q", out, o)
	}

	// Archives older than 30 days are pruned on clear.
	old := filepath.Join(w.bottlesDir(), "archive", "20000101T000000Z-old.md")
	if err := os.WriteFile(old, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.hook(t, "session-end", `{"session_id":"abc","reason":"clear"}`)
	if _, err := os.Stat(old); err == nil {
		t.Error("old archive not pruned")
	}
}

// TestSessionStartCurrentTask: the pointer's task is the latest claude-mem
// summary when it is newer than the last prompt, else the prompt.
func TestSessionStartCurrentTask(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	const lastPromptMS = 1767607560000 // "Now test it." in compaction.jsonl
	tests := []struct {
		name      string
		summaryAt int64
		want      string
	}{
		{"SummaryNewer", lastPromptMS + 60000, "Current task (from claude-mem's generated summary, not the user's words): Test the parser — next steps: add fuzz tests\n"},
		{"SummaryOlder", lastPromptMS - 60000, "Current task: Now test it.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newHookWorld(t)
			w.transcript(t, id, "compaction")
			if err := os.MkdirAll(w.data, 0o700); err != nil {
				t.Fatal(err)
			}
			rows := `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
  VALUES (1, '` + id + `', 'mem-1', 'proj', 'Build the parser.', 'x', 1767607260000, 'active');
INSERT INTO session_summaries (memory_session_id, project, request, next_steps, prompt_number, created_at, created_at_epoch)
  VALUES ('mem-1', 'proj', 'Test the parser <private>key</private>', 'add fuzz tests', 2, 'x', ` + strconv.FormatInt(tt.summaryAt, 10) + `);`
			memtest.Create(t, filepath.Join(w.data, "claude-mem.db"), memtest.SchemaCurrent, rows, "wal")
			out, _ := w.hook(t, "session-start", `{"session_id":"`+id+`","source":"compact"}`)
			ptr := parseAnswer(t, out)
			if !strings.HasSuffix(ptr, tt.want) {
				t.Errorf("pointer ends %q, want %q", ptr[max(0, len(ptr)-100):], tt.want)
			}
			if strings.Contains(ptr, "key") {
				t.Error("pointer leaks private text")
			}
		})
	}
}

// TestSessionStartPanics: a panic in the work is logged, not a crash.
func TestSessionStartPanics(t *testing.T) {
	w := newHookWorld(t)
	w.transcript(t, "abc", "compaction")
	w.deps.render = func(context.Context, render.Options) (*render.Result, error) { panic("boom") }
	out, _ := w.hook(t, "session-start", `{"session_id":"abc","source":"compact"}`)
	if o := w.lastOutcome(t); out != "" || o != "error: panic: boom" {
		t.Errorf("stdout %q, logged %q", out, o)
	}
}

// TestSessionStartAnswerEscaping: the answer is one line of JSON that
// decodes back to the pointer byte for byte.
func TestSessionStartAnswerEscaping(t *testing.T) {
	ptr := "a <b> & \"c\"\n\t\\ ⏳ \u2028 end"
	got, err := sessionStartAnswer(ptr)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(got, []byte("\n")) != 1 || !bytes.HasSuffix(got, []byte("}}\n")) {
		t.Errorf("answer is not one line: %q", got)
	}
	if !bytes.Contains(got, []byte("<b> &")) {
		t.Errorf("answer HTML-escapes: %s", got)
	}
	var a answer
	if err := json.Unmarshal(got, &a); err != nil || a.HookSpecificOutput.AdditionalContext != ptr {
		t.Errorf("round trip: %v, %q", err, a.HookSpecificOutput.AdditionalContext)
	}
}

// TestSessionStartReconstructed: with the transcript gone, a compact source
// still gets a pointer, worded for a reconstructed bottle, when claude-mem
// stored the session; resume gets none (no transcript, no compaction).
func TestSessionStartReconstructed(t *testing.T) {
	const id = "22222222-2222-4333-8444-555555555555"
	w := newHookWorld(t)
	if err := os.MkdirAll(w.data, 0o700); err != nil {
		t.Fatal(err)
	}
	memtest.Create(t, filepath.Join(w.data, "claude-mem.db"), memtest.SchemaCurrent, `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
  VALUES (1, '`+id+`', 'mem-1', 'proj', 'Port the parser', 'x', 1767607260000, 'completed');
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
  VALUES (1, '`+id+`', 1, 'Port the parser', 'x', 1767607260000);
INSERT INTO session_summaries (memory_session_id, project, request, next_steps, prompt_number, created_at, created_at_epoch)
  VALUES ('mem-1', 'proj', 'Port the parser', 'wire the CLI', 1, 'x', 1767607300000);`, "wal")

	out, _ := w.hook(t, "session-start", `{"session_id":"`+id+`","source":"resume"}`)
	if out != "" {
		t.Errorf("resume without a transcript printed %q", out)
	}
	out, _ = w.hook(t, "session-start", `{"session_id":"`+id+`","source":"compact","transcript_path":"/nonexistent/x.jsonl"}`)
	ptr := parseAnswer(t, out)
	for _, s := range []string{"partial reconstruction", "\nCurrent task (from claude-mem's generated summary, not the user's words): Port the parser — next steps: wire the CLI\n",
		filepath.Join(w.bottlesDir(), id+".md")} {
		if !strings.Contains(ptr, s) {
			t.Errorf("pointer lacks %q:\n%s", s, ptr)
		}
	}
	if !strings.Contains(strings.Join(w.logLines(t), "\n"), "source=compact mode=reconstructed ") {
		t.Errorf("log: %q", w.logLines(t))
	}
}

// persistLine is the attachment Claude Code appends to the transcript for a
// SessionStart answer's additionalContext: "332" and "197" are the shapes
// of those versions (captured by the e2e test; 2.1.332 adds the rendered
// reminder). session is the line's sessionId; sidechain marks a subagent's.
func persistLine(t *testing.T, version, session, additionalContext string, sidechain bool) string {
	t.Helper()
	att := map[string]any{"type": "hook_additional_context", "content": []string{additionalContext},
		"hookName": "SessionStart", "toolUseID": "SessionStart", "hookEvent": "SessionStart"}
	e := map[string]any{"parentUuid": "aaaaaaaa-0000-4000-8000-000000000004", "isSidechain": sidechain, "attachment": att,
		"type": "attachment", "uuid": "aaaaaaaa-0000-4000-8000-0000000000f1", "timestamp": "2026-03-01T10:20:00.000Z",
		"userType": "external", "cwd": "/home/dev/proj", "sessionId": session, "version": "2.1.197"}
	if version == "332" {
		e["version"] = "2.1.332"
		e["rendered"] = []map[string]any{{"content": "<system-reminder>\nSessionStart hook additional context: " + additionalContext + "\n</system-reminder>"}}
		e["renderedRole"] = "system"
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// hookSuccessLine is the hook_success attachment both versions write next
// to it: the answer as stdout, which the model does not see.
func hookSuccessLine(t *testing.T, session, stdout string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"parentUuid": "aaaaaaaa-0000-4000-8000-000000000004", "isSidechain": false,
		"attachment": map[string]any{"type": "hook_success", "hookName": "SessionStart:resume", "toolUseID": "x", "hookEvent": "SessionStart",
			"content": "", "stdout": stdout, "stderr": "", "exitCode": 0},
		"type": "attachment", "uuid": "aaaaaaaa-0000-4000-8000-0000000000f0", "sessionId": session})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// compactLines are a compaction's boundary and summary.
const compactLines = `{"parentUuid":null,"logicalParentUuid":"aaaaaaaa-0000-4000-8000-000000000004","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2026-03-01T10:30:00.000Z","uuid":"aaaaaaaa-0000-4000-8000-0000000000b2","level":"info","compactMetadata":{"trigger":"manual","preTokens":120}}
{"parentUuid":"aaaaaaaa-0000-4000-8000-0000000000b2","isSidechain":false,"type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation."},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"aaaaaaaa-0000-4000-8000-0000000000b3","timestamp":"2026-03-01T10:30:01.000Z"}
`

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestSessionStartOnePointerPerContext: a resume (or fork) whose restored
// context already holds bottle's pointer to this session's bottle (persisted
// after the last compaction) gets no second pointer, while the bottle is
// still refreshed; every other case gets the full pointer.
func TestSessionStartOnePointerPerContext(t *testing.T) {
	const (
		id    = "11111111-2222-4333-8444-555555555555"
		other = "99999999-2222-4333-8444-555555555555"
	)
	tests := []struct {
		name   string
		source string
		// after builds what Claude Code appended to the transcript after
		// the compact hook answered ptr (the pointer of this session) and
		// otherPtr (a pointer of another session).
		after       func(t *testing.T, ptr, otherPtr string) string
		wantPointer bool
	}{
		{"332: compact pointer persisted", "resume", func(t *testing.T, ptr, _ string) string {
			return hookSuccessLine(t, id, "{}") + persistLine(t, "332", id, ptr, false)
		}, false},
		{"197: compact pointer persisted", "resume", func(t *testing.T, ptr, _ string) string {
			return persistLine(t, "197", id, ptr, false)
		}, false},
		{"fork with this session's pointer", "fork", func(t *testing.T, ptr, _ string) string {
			return persistLine(t, "332", id, ptr, false)
		}, false},
		{"pointer joined with another hook's context", "resume", func(t *testing.T, ptr, _ string) string {
			return persistLine(t, "332", id, "another plugin's context\n"+ptr, false)
		}, false},
		{"nothing persisted (the answer was lost)", "resume", func(*testing.T, string, string) string { return "" }, true},
		{"only the hook_success stdout", "resume", func(t *testing.T, ptr, _ string) string {
			b, _ := sessionStartAnswer(ptr)
			return hookSuccessLine(t, id, string(b))
		}, true},
		{"pointer before the last compaction", "resume", func(t *testing.T, ptr, _ string) string {
			return persistLine(t, "332", id, ptr, false) + compactLines
		}, true},
		{"another session's pointer", "resume", func(t *testing.T, _, otherPtr string) string {
			return persistLine(t, "332", id, otherPtr, false)
		}, true},
		{"pointer in a subagent's line", "resume", func(t *testing.T, ptr, _ string) string {
			return persistLine(t, "332", id, ptr, true)
		}, true},
		{"pointer to another bottle path", "resume", func(t *testing.T, ptr, _ string) string {
			return persistLine(t, "332", id, strings.Replace(ptr, "/bottles/", "/old-bottles/", 1), false)
		}, true},
		{"pointer quoted in a prompt", "resume", func(t *testing.T, ptr, _ string) string {
			b, _ := json.Marshal(map[string]any{"parentUuid": nil, "isSidechain": false, "type": "user", "uuid": "aaaaaaaa-0000-4000-8000-0000000000c1",
				"sessionId": id, "timestamp": "2026-03-01T10:40:00.000Z", "message": map[string]any{"role": "user", "content": "look: " + ptr}})
			return string(b) + "\n"
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newHookWorld(t)
			tp := w.transcript(t, id, "compaction")
			otp := w.transcript(t, other, "compaction")
			pay := func(sid, path, source string) string {
				return payloadJSON(t, map[string]any{"session_id": sid, "transcript_path": path, "hook_event_name": "SessionStart", "source": source})
			}
			ptr := parseAnswer(t, first(w.hook(t, "session-start", pay(id, tp, "compact"))))
			otherPtr := parseAnswer(t, first(w.hook(t, "session-start", pay(other, otp, "compact"))))
			if ptr == "" || otherPtr == "" {
				t.Fatalf("the compact hook printed no pointer: %q", w.logLines(t))
			}
			appendTo(t, tp, tt.after(t, ptr, otherPtr))
			bottle := filepath.Join(w.bottlesDir(), id+".md")
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(bottle, old, old); err != nil {
				t.Fatal(err)
			}

			out, _ := w.hook(t, "session-start", pay(id, tp, tt.source))
			got := parseAnswer(t, out)
			if (got != "") != tt.wantPointer {
				t.Fatalf("pointer printed = %v, want %v; stdout %q; log %q", got != "", tt.wantPointer, out, w.logLines(t))
			}
			if tt.wantPointer && !pointer.Holds([]string{got}, bottle, id) {
				t.Errorf("answer is not the full pointer to %s:\n%s", bottle, got)
			}
			if fi, err := os.Stat(bottle); err != nil || !fi.ModTime().After(old) {
				t.Errorf("bottle not refreshed at %s: %v", tt.source, err)
			}
			outcome := w.lastOutcome(t)
			if want := "ok"; !tt.wantPointer {
				if want = "ok: refreshed; the restored context already holds its pointer"; outcome != want {
					t.Errorf("logged %q, want %q", outcome, want)
				}
			} else if outcome != want {
				t.Errorf("logged %q, want %q", outcome, want)
			}
		})
	}
}

func first[A, B any](a A, _ B) A { return a }

// TestSessionStartStalePointer: when the render or the write fails at a
// compaction but the session has a bottle from before, the pointer still
// names it and says it could not be refreshed and when it was last
// rendered; with no bottle (or a folder in its place) there is no answer.
// The failure's text (which may hold anything) never reaches the pointer.
func TestSessionStartStalePointer(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	written := time.Date(2026, 3, 1, 10, 20, 0, 0, time.UTC)
	const fullHead = "# Session bottle — " + id + "\nproject: /home/dev/proj · rendered: 2026-03-01T10:20:00Z\nmode: full\n\n## Original request\n\nmode: reconstructed — assistant messages not preserved\n"
	const reconHead = "# Session bottle — " + id + "\nproject: /home/dev/proj · rendered: 2026-03-01T10:20:00Z\nmode: reconstructed — assistant messages not preserved\n\n## Original request\n"
	failing := func(w *hookWorld) {
		w.deps.render = func(context.Context, render.Options) (*render.Result, error) {
			return nil, errors.New("render <private>SECRET-CAUSE</private> failed")
		}
	}
	// failingRender: a compacted session whose render fails.
	failingRender := func(t *testing.T, w *hookWorld) string {
		failing(w)
		return w.transcript(t, id, "compaction")
	}
	tests := []struct {
		name   string
		source string
		// setup makes the render or the write fail and returns the
		// transcript path for the payload.
		setup    func(t *testing.T, w *hookWorld) string
		bottle   string // the bottle written before; "" none, "dir" a folder
		want     string // "" no answer; else the mode the pointer is worded for
		wantNote string
	}{
		{"compact: transcript_path is a folder", "compact", func(t *testing.T, w *hookWorld) string {
			w.transcript(t, id, "compaction")
			dir := filepath.Join(w.home, "<private>SECRET-PATH</private>")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			return dir
		}, fullHead, "full", "not refreshed (transcript_path "},
		{"compact: reconstructed bottle", "compact", failingRender, reconHead, "reconstructed", "not refreshed (render "},
		{"compact: no bottle", "compact", failingRender, "", "", ""},
		{"compact: a folder for the bottle", "compact", failingRender, "dir", "", ""},
		{"resume of a compacted session", "resume", failingRender, fullHead, "full", "not refreshed (render "},
		{"resume, pointer already in the context", "resume", func(t *testing.T, w *hookWorld) string {
			failing(w)
			tp := w.transcript(t, id, "compaction")
			appendTo(t, tp, persistLine(t, "332", id, pointer.Text(pointer.Input{
				BottlePath: filepath.Join(w.bottlesDir(), id+".md"), SessionID: id}), false))
			return tp
		}, fullHead, "", "not refreshed (render "},
		{"resume without a compaction", "resume", func(t *testing.T, w *hookWorld) string {
			failing(w)
			return w.transcript(t, id, "basic")
		}, fullHead, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newHookWorld(t)
			tp := tt.setup(t, w)
			bottle := filepath.Join(w.bottlesDir(), id+".md")
			switch tt.bottle {
			case "":
			case "dir":
				if err := os.MkdirAll(bottle, 0o700); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.MkdirAll(w.bottlesDir(), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(bottle, []byte(tt.bottle), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(bottle, written, written); err != nil {
					t.Fatal(err)
				}
			}
			out, _ := w.hook(t, "session-start", payloadJSON(t, map[string]any{"session_id": id, "transcript_path": tp, "source": tt.source}))
			ptr := parseAnswer(t, out)
			outcome := w.lastOutcome(t)
			if tt.wantNote != "" && !strings.HasPrefix(outcome, "ok: "+tt.wantNote) {
				t.Errorf("logged %q, want ok: %s…", outcome, tt.wantNote)
			}
			if tt.want == "" {
				if ptr != "" {
					t.Errorf("answered %q, want nothing (logged %q)", ptr, outcome)
				}
				if tt.wantNote == "" && !strings.HasPrefix(outcome, "error: ") && !strings.HasPrefix(outcome, "skipped: ") {
					t.Errorf("logged %q, want the failure", outcome)
				}
				return
			}
			for _, s := range []string{bottle + "   (session " + id + ")",
				"- It could not be refreshed now; it was last rendered at 2026-03-01T10:20:00Z, so what\n  happened after that is missing from it. Call mcp__bottle__render_bottle to try again.\n"} {
				if !strings.Contains(ptr, s) {
					t.Errorf("pointer lacks %q:\n%s", s, ptr)
				}
			}
			if recon := strings.Contains(ptr, "partial reconstruction"); recon != (tt.want == "reconstructed") {
				t.Errorf("pointer worded for mode %s, want %s:\n%s", map[bool]string{true: "reconstructed", false: "full"}[recon], tt.want, ptr)
			}
			if strings.Contains(ptr, "SECRET") || strings.Contains(ptr, "private>") {
				t.Errorf("the pointer shows the failure's text:\n%s", ptr)
			}
			if strings.Contains(outcome, "SECRET") {
				t.Errorf("the log quotes private text: %q", outcome)
			}
			if !strings.Contains(outcome, "pointed at the bottle rendered 2026-03-01T10:20:00Z") {
				t.Errorf("logged %q", outcome)
			}
		})
	}
}
