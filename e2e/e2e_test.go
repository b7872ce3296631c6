//go:build unix

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/template"
	"time"

	"bottle/claudemem/memtest"
	"bottle/internal/measure/corpustest"
)

func TestMain(m *testing.M) {
	// Run as an observer hook by Claude Code (see world.writeObserverSettings).
	if path := os.Getenv(observerEnv); path != "" {
		os.Exit(observe(path))
	}
	// With a claude to drive, re-run this binary in a network namespace with
	// only loopback, where available: then nothing can leave the machine
	// whatever Claude Code tries (the proxy trap only catches what honours
	// HTTPS_PROXY).
	if code, done := isolate(); done {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// The session's genuine prompts and the scripted model's final answers,
// turn by turn; both must reach the bottle verbatim.
const (
	prompt1 = "Read `plan.md` and tell me the first step. [e2e prompt 1]"
	prompt2 = "Run the checks with Bash, please. [e2e prompt 2]"
	prompt3 = "Summarise what we know so far. [e2e prompt 3]"
	prompt4 = "Run the long check; it fills the context. [e2e prompt 4]"
	prompt5 = "Continue where we left off. [e2e prompt 5]"
	prompt6 = "Something new after the clear. [e2e prompt 6]"

	answer1 = "The first step in plan.md is to write the parser. [e2e answer 1]"
	answer2 = "The checks passed. [e2e answer 2]"
	answer3 = "So far: the parser comes first and the checks pass. [e2e answer 3]"
	answer4 = "The long check passed and the bottle is readable. [e2e answer 4]"
	answer5 = "Back on track from the bottle. [e2e answer 5]"
	answer6 = "A fresh start. [e2e answer 6]"

	// Tool output and compaction summaries: they reach the model, never
	// the bottle.
	planContent   = "PLAN-CONTENT-7"
	bashOut2      = "BASH-OUT-2"
	bashOut4      = "BASH-OUT-4"
	autoSummary   = "AUTO-SUMMARY-4141"
	manualSummary = "MANUAL-SUMMARY-5151"
	// compactFocus is the user's own /compact instruction: it must reach the
	// summariser beside bottle's.
	compactFocus = "keep the flag plan"

	// observationID is the claude-mem observation of testdata/claudemem.sql.
	observationID = "880001"

	// outsideContent is the text of a file outside both the project and the
	// bottles folder: the PreToolUse hook decides nothing about a Read of it.
	outsideContent = "OUTSIDE-CONTENT-9191"
)

// bashPrintf is a Bash command whose output (BASH-<tag>) is not in its text.
func bashPrintf(tag string) map[string]any {
	return map[string]any{"command": "printf 'BASH-%s\\n' " + tag, "description": "run the check " + tag}
}

// summary is the compaction turn; check runs on its request.
func summary(marker string, check func(*request) error) turn {
	return turn{name: "summary " + marker, when: classCompact, check: check,
		reply: []block{text("<analysis>The user works through plan.md.</analysis>\n<summary>" + marker +
			": the user read plan.md (the parser comes first) and ran the checks.</summary>")}}
}

func TestClaudeCode(t *testing.T) {
	claude := os.Getenv(claudeEnv)
	if claude == "" {
		corpustest.NoteSkip("e2e", "set "+claudeEnv+" to the Claude Code CLI that scripts/install-claude.sh 2.1.332 prints")
		t.Skipf("skipping the end-to-end test with the real Claude Code CLI: $%s is not set "+
			"(install one with scripts/install-claude.sh 2.1.332, then run %s=<printed path> go test ./e2e)", claudeEnv, claudeEnv)
	}
	version := claudeVersion(t, claude)
	t.Logf("Claude Code %s (%s); network: %s", version, claude, isolation)
	bin := buildBinaries(t)
	// Each install mode once, with and without claude-mem, and steering
	// the compaction summary off in one world of each kind of install: by
	// $BOTTLE_STEER_COMPACT and by the plugin's userConfig. The standalone
	// worlds of both kinds and the release world (installed from a git URL,
	// as a user without Go does) grant no permission for Read or bottle's
	// tools: bottle's PreToolUse hook alone lets the model read its bottle.
	for _, mode := range []struct {
		name string
		mem  bool
		via  installMode
	}{
		{"standalone", false, viaSettings.withoutRules()},
		{"claude-mem", true, viaSettings.steeringOff()},
		{"plugin-standalone", false, viaPlugin.withoutRules()},
		{"release-claude-mem", true, viaRelease.steeringOff().withoutRules()},
	} {
		t.Run(mode.name, func(t *testing.T) {
			start := time.Now()
			w := newWorld(t, claude, bin, mode.via)
			if mode.via.steerOff && !mode.via.plugin() {
				w.extraEnv = map[string]string{"BOTTLE_STEER_COMPACT": "0"}
			}
			scenario(t, w, mode.mem)
			t.Logf("Claude Code %s, %s: scenario took %.1fs", version, mode.name, time.Since(start).Seconds())
		})
	}
}

// scenario drives one session through tool calls, auto-compaction,
// /compact, resume and /clear. With mem, a claude-mem database holds
// records of the session from the first turn on.
func scenario(t *testing.T, w *world, mem bool) {
	w.install()
	plan := filepath.Join(w.project, "plan.md")
	bottleOf := func(sid string) string { return filepath.Join(w.bottles, sid+".md") }
	outside := w.outsideFile()

	// 1. A new session reads a file. bottle's SessionStart hook does not
	// fire on startup; its Stop hook writes the first bottle.
	r := w.claudeRun("first", prompt1, runOpts{},
		turn{name: "read plan", when: classMain, check: func(r *request) error {
			for _, tool := range []string{w.mode.tool("read_bottle"), w.mode.tool("expand_observation"), w.mode.tool("render_bottle"),
				w.mode.tool("search_history"), w.mode.tool("list_sessions")} {
				if !r.hasTool(tool) {
					return fmt.Errorf("bottle's MCP tool %s is not offered to the model", tool)
				}
			}
			// The server's instructions name the tools as this install shows them.
			return firstErr(noPointer(r), bodyHas(r, "In this install Claude Code names the tools "+w.mode.tool("<tool>")))
		}, reply: []block{text("I'll read the plan."), toolUse("Read", map[string]any{"file_path": plan})}},
		turn{name: "answer 1", when: classMain, check: func(r *request) error {
			return resultHas(r, "Read", planContent)
		}, reply: []block{text(answer1)}},
	)
	sid := r.session
	if sid == "" {
		t.Fatal("step first: no session id in claude's output")
	}
	if init := r.event("system", "init"); init == nil || !w.serverConnected(init) {
		t.Errorf("step first: MCP server %s is not connected: %+v", w.mode.server, init)
	}
	w.checkHooks(r, nil)
	w.checkHookLog(r)
	if !r.hookLogged("stop", sid, "", "ok") {
		t.Errorf("step first: no successful Stop render logged: %v", r.hookLines)
	}
	if _, err := os.Stat(bottleOf(sid)); err != nil {
		t.Errorf("step first: the Stop hook wrote no bottle: %v", err)
	}
	if mem {
		w.createMemDB(sid, r.start)
	}

	// 1b. A fresh session picks the first one up with bottle's MCP prompt
	// (Claude Code offers it as a slash command, /mcp__bottle__… or
	// /mcp__plugin_bottle_bottle__… by install): the model gets the
	// fresh-session pointer to the first session's bottle as the user
	// message.
	r = w.claudeRun("continue", "/"+w.mode.tool("continue_session")+" "+sid, runOpts{},
		turn{name: "continue", when: classMain, check: func(r *request) error {
			return bodyHas(r, "# [bottle] Endless Mode — session continuation", bottleOf(sid)+"   (session "+sid+")",
				"This conversation starts without it", "Current task")
		}, reply: []block{text("Picked up the session.")}})
	if r.session == sid {
		t.Errorf("step continue: ran in session %s, want a fresh one", sid)
	}

	// 2. Resume before any compaction: the hook injects nothing (Claude Code
	// reloads the whole conversation). A Bash call.
	r = w.claudeRun("resume-bash", prompt2, runOpts{resume: sid},
		turn{name: "bash", when: classMain, check: noPointer, reply: []block{toolUse("Bash", bashPrintf("OUT-2"))}},
		turn{name: "answer 2", when: classMain, check: func(r *request) error {
			return firstErr(noPointer(r), resultHas(r, "Bash", bashOut2))
		}, reply: []block{text(answer2)}},
	)
	w.sameSession(r, sid)
	w.checkHooks(r, nil)
	w.checkHookLog(r)
	if !r.hookLogged("session-start", sid, "resume", "skipped") {
		t.Errorf("step resume-bash: bottle's SessionStart(resume) hook did not run and skip: %v", r.hookLines)
	}

	// 3. One more exchange: Claude Code 2.1.197 auto-compacts only a
	// session with a few.
	r = w.claudeRun("resume-text", prompt3, runOpts{resume: sid},
		turn{name: "answer 3", when: classMain, check: noPointer, reply: []block{text(answer3)}})
	w.sameSession(r, sid)
	w.checkHooks(r, nil)
	w.checkHookLog(r)

	// 4. Auto-compaction in the middle of a turn: a reply reports a nearly
	// full context, Claude Code compacts, SessionStart(compact) injects the
	// pointer, and the very next request carries it, once. The model then
	// reads the bottle as the pointer says (Read), pages it with read_bottle
	// (no session_id: the server's current session), searches, and reads a
	// file outside the project and the bottles folder: without a permission
	// rule all but that last one pass.
	var autoPointer pointer
	r = w.claudeRun("auto-compact", prompt4, runOpts{resume: sid, env: map[string]string{"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000"}},
		turn{name: "bash, context full", when: classMain, check: noPointer, inputTokens: 190000,
			reply: []block{text("Running the long check."), toolUse("Bash", bashPrintf("OUT-4"))}},
		summary(autoSummary, w.steered(sid)),
		turn{name: "after auto-compaction", when: classMain, check: func(r *request) error {
			p, err := w.onePointer(r, sid)
			autoPointer = p
			return firstErr(err, onePointerHeading(r), bodyHas(r, autoSummary), resultHas(r, "Bash", bashOut4))
		}, reply: []block{
			toolUse("Read", map[string]any{"file_path": bottleOf(sid)}),
			toolUse(w.mode.tool("read_bottle"), nil),
			toolUse(w.mode.tool("search_history"), map[string]any{"query": "plan.md", "session_id": sid}),
			toolUse("Read", map[string]any{"file_path": outside}),
		}},
		turn{name: "answer 4", when: classMain, check: func(r *request) error {
			return firstErr(
				readHas(r, bottleOf(sid), "# Session bottle — "+sid, prompt1, answer1, prompt4),
				resultHas(r, w.mode.tool("read_bottle"), "# Session bottle — "+sid, "mode: full", prompt1, answer1, prompt4),
				resultHas(r, w.mode.tool("search_history"), `Search "plan.md"`, "· hits 1–"),
				w.outsideRead(r, outside))
		}, reply: []block{text(answer4)}},
	)
	w.sameSession(r, sid)
	if b := r.event("system", "compact_boundary"); b == nil || b.CompactMetadata.Trigger != "auto" {
		t.Errorf("step auto-compact: no auto compact_boundary in the stream: %+v", b)
	}
	w.checkHooks(r, map[string]int{"SessionStart:compact": 1})
	w.checkHookLog(r)
	if autoPointer.task != prompt4 {
		t.Errorf("step auto-compact: pointer's current task is %q, want the last prompt %q", autoPointer.task, prompt4)
	}

	// 5. /compact with the user's own instructions: no model turn; the
	// pointer is the hook's answer. The summariser gets the user's text and,
	// unless steering is off, bottle's.
	r = w.claudeRun("compact", "/compact "+compactFocus, runOpts{resume: sid}, summary(manualSummary, w.steered(sid, compactFocus)))
	w.sameSession(r, sid)
	if b := r.event("system", "compact_boundary"); b == nil || b.CompactMetadata.Trigger != "manual" {
		t.Errorf("step compact: no manual compact_boundary in the stream: %+v", b)
	}
	// It resumes a session compacted in step 4 whose restored context holds
	// that compaction's pointer: SessionStart(resume) refreshes the bottle
	// and adds no second pointer.
	w.checkHooks(r, map[string]int{"SessionStart:compact": 1})
	if !r.hookLogged("session-start", sid, "resume", "ok: refreshed; the restored context already holds its pointer") {
		t.Errorf("step compact: bottle's SessionStart(resume) hook did not refresh without a pointer: %v", r.hookLines)
	}
	w.checkHookLog(r)

	// 6. Resume after /compact: the hook renders again but injects nothing,
	// as the restored context holds the pointer /compact's SessionStart
	// injected (one full pointer per context); the model reads the bottle
	// and expands ids from it, in one reply, and gets both results back.
	expandIDs := []string{"t1"}
	expandWant := []string{plan} // t1 is the Read call
	if mem {
		expandIDs = []string{observationID, "t2"}
		expandWant = []string{"OBS-NARRATIVE-880001", "OBS-FACT-880001", "printf"}
	}
	stepStart := time.Now()
	r = w.claudeRun("resume-compacted", prompt5, runOpts{resume: sid},
		turn{name: "read and expand", when: classMain, check: func(r *request) error {
			p, err := w.onePointer(r, sid)
			if ps, _ := requestPointers(r); len(ps) != 1 {
				err = firstErr(err, fmt.Errorf("the request carries %d full pointers, want exactly one", len(ps)))
			}
			err = firstErr(err, onePointerHeading(r))
			if err == nil && p.task != prompt4 {
				err = fmt.Errorf("pointer's current task is %q, want %q", p.task, prompt4)
			}
			if fi, serr := os.Stat(bottleOf(sid)); serr == nil && fi.ModTime().Before(stepStart) {
				err = firstErr(err, fmt.Errorf("bottle last written %v, before this run started (%v): not re-rendered at resume",
					fi.ModTime().Format(time.StampMilli), stepStart.Format(time.StampMilli)))
			}
			b, _ := os.ReadFile(bottleOf(sid))
			for _, id := range expandIDs {
				if !strings.Contains(string(b), "[#"+id+"]") {
					err = firstErr(err, fmt.Errorf("the bottle has no [#%s] to expand:\n%s", id, b))
				}
			}
			return firstErr(err, bodyHas(r, manualSummary))
		}, reply: []block{
			text("Reading the bottle first."),
			toolUse("Read", map[string]any{"file_path": bottleOf(sid)}),
			toolUse(w.mode.tool("read_bottle"), map[string]any{"session_id": sid}),
			toolUse(w.mode.tool("expand_observation"), map[string]any{"ids": expandIDs, "session_id": sid}),
			toolUse(w.mode.tool("search_history"), map[string]any{"query": "first step", "session_id": sid}),
			toolUse("Read", map[string]any{"file_path": outside}),
		}},
		turn{name: "answer 5", when: classMain, check: func(r *request) error {
			return firstErr(
				readHas(r, bottleOf(sid), "# Session bottle — "+sid, prompt1, answer1, prompt4, answer4),
				resultHas(r, w.mode.tool("read_bottle"), "# Session bottle — "+sid, prompt1, answer1, prompt4, answer4),
				resultHas(r, w.mode.tool("expand_observation"), expandWant...),
				resultHas(r, w.mode.tool("search_history"), `Search "first step"`, "· hits 1–"),
				w.outsideRead(r, outside))
		}, reply: []block{text(answer5)}},
	)
	w.sameSession(r, sid)
	w.checkHooks(r, map[string]int{})
	w.checkHookLog(r)
	if !r.hookLogged("session-start", sid, "resume", "ok: refreshed; the restored context already holds its pointer") {
		t.Errorf("step resume-compacted: bottle's SessionStart(resume) hook did not refresh without a pointer: %v", r.hookLines)
	}

	// The bottle now: the whole conversation, verbatim, and no tool output
	// or summary.
	want := bottleWant{
		session: sid,
		prompts: []string{prompt1, prompt2, prompt3, prompt4, prompt5},
		answers: []string{answer1, answer2, answer3, answer4, answer5},
		absent:  []string{planContent, bashOut2, bashOut4, autoSummary, manualSummary, pointerMark, outsideContent},
	}
	if mem {
		want.has = []string{"- [#" + observationID + "] Plan read: parser comes first — The plan in plan.md says the parser is written first",
			"⏳ [#t2]"}
		want.absent = append(want.absent, "[#t1]") // the observation stands for it
	} else {
		want.has = []string{"[#t1] Read", "[#t2] Bash", "[#t3] Bash"}
	}
	w.checkBottle(bottleOf(sid), want)

	// 7. /clear: SessionEnd(clear) archives the bottle; the new session
	// starts with nothing injected.
	r = w.claudeRun("clear", "/clear", runOpts{resume: sid})
	newSID := r.session
	if newSID == "" || newSID == sid {
		t.Fatalf("step clear: session %q after /clear, want a new one (was %s)", newSID, sid)
	}
	if ev := r.event("conversation_reset", ""); ev != nil && ev.NewConversationID == "" {
		t.Errorf("step clear: conversation_reset without a new id")
	}
	w.checkHooks(r, map[string]int{}) // the old session resumed first, its context already pointed
	for _, ev := range r.hookResponses("SessionStart:clear") {
		if ev.Stdout != "" {
			t.Errorf("step clear: a SessionStart(clear) hook answered %q", ev.Stdout)
		}
	}
	w.checkHookLog(r)
	if !r.hookLogged("session-end", sid, "clear", "ok: archived") {
		t.Errorf("step clear: bottle's SessionEnd(clear) hook did not archive: %v", r.hookLines)
	}
	if _, err := os.Stat(bottleOf(sid)); err == nil {
		t.Errorf("step clear: %s is still there after /clear", bottleOf(sid))
	}
	archived, _ := filepath.Glob(filepath.Join(w.bottles, "archive", "*-"+sid+".md"))
	if len(archived) != 1 {
		t.Errorf("step clear: archive holds %v, want one <time>-%s.md", archived, sid)
	} else {
		if name := filepath.Base(archived[0]); !archiveNameRE.MatchString(name) {
			t.Errorf("step clear: archived as %s, want <UTC yyyymmddThhmmssZ>-%s.md", name, sid)
		}
		w.checkBottle(archived[0], want)
	}

	// 8. The new session: nothing injected, none of the old conversation.
	r = w.claudeRun("after-clear", prompt6, runOpts{resume: newSID},
		turn{name: "answer 6", when: classMain, check: func(r *request) error {
			return firstErr(noPointer(r), bodyLacks(r, prompt1, answer1))
		}, reply: []block{text(answer6)}})
	w.sameSession(r, newSID)
	w.checkHooks(r, nil)
	w.checkHookLog(r)
	w.checkBottle(bottleOf(newSID), bottleWant{session: newSID, prompts: []string{prompt6}, answers: []string{answer6},
		absent: []string{prompt1, answer1}, has: []string{"/clear"}})

	if !w.mode.steerOff {
		w.compactFailingRender(newSID)
	}
	if w.mode.plugin() {
		w.pluginCommands(newSID)
	}

	// Everything else that is observable.
	w.checkTraffic()
	w.replayHooks()
	w.checkMCPStdio(sid)
}

// archiveNameRE is the name of an archived bottle (docs/format.md, "Where
// things live").
var archiveNameRE = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[A-Za-z0-9._-]+\.md$`)

// createMemDB builds the claude-mem database from testdata/claudemem.sql
// for session sid, as claude-mem would have recorded its first turn.
func (w *world) createMemDB(sid string, promptAt time.Time) {
	t := w.t
	t.Helper()
	tmpl, err := template.ParseFiles(filepath.Join("testdata", "claudemem.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var rows bytes.Buffer
	err = tmpl.Execute(&rows, map[string]any{
		"Session":  sid,
		"Project":  filepath.Base(w.project),
		"Prompt":   "'" + strings.ReplaceAll(prompt1, "'", "''") + "'",
		"PromptAt": promptAt.UnixMilli(),
		"Now":      time.Now().UnixMilli(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(w.data, 0o700); err != nil {
		t.Fatal(err)
	}
	memtest.Create(t, filepath.Join(w.data, "claude-mem.db"), memtest.SchemaCurrent, rows.String(), "wal")
}

// onePointer checks a request carries the pointer to session sid's bottle,
// and that the bottle exists as the request arrives.
func (w *world) onePointer(r *request, sid string) (pointer, error) {
	ps, err := requestPointers(r)
	if err != nil {
		return pointer{}, err
	}
	if len(ps) == 0 {
		return pointer{}, fmt.Errorf("no pointer (%q) in the request", pointerMark)
	}
	for _, p := range ps {
		if err := w.checkPointer(p, sid); err != nil {
			return p, err
		}
	}
	return ps[0], nil
}

func (w *world) sameSession(r *run, sid string) {
	w.t.Helper()
	if r.session != sid {
		w.t.Fatalf("step %s: session %s, want %s (resumed)", r.name, r.session, sid)
	}
}

// checkTraffic checks the mock saw nothing but Messages API calls: no
// CONNECT through the proxy trap, no other endpoint.
func (w *world) checkTraffic() {
	t := w.t
	t.Helper()
	n := 0
	for _, r := range w.mock.all() {
		if r.Method == "CONNECT" {
			t.Errorf("step %s: Claude Code tried to reach %s (refused by the proxy trap)", r.Step, r.Path)
			continue
		}
		if r.Method != "POST" || r.Path != "/v1/messages" {
			t.Errorf("step %s: unexpected request %s %s", r.Step, r.Method, r.Path)
			continue
		}
		n++
	}
	if n == 0 {
		t.Error("the mock served no Messages API request")
	}
}

func (w *world) serverConnected(init *streamEvent) bool {
	for _, s := range init.MCPServers {
		if s.Name == w.mode.server && s.Status == "connected" {
			return true
		}
	}
	return false
}

// resultHas checks the request carries a result of a tool call of tool
// that is no error and holds every fragment.
func resultHas(r *request, tool string, fragments ...string) error {
	var found []toolResult
	for _, res := range r.toolResults() {
		if res.Tool == tool {
			found = append(found, res)
		}
	}
	if len(found) == 0 {
		return fmt.Errorf("no result of a %s call in the request", tool)
	}
	return resultHolds(found[len(found)-1], tool, fragments...) // the newest call's
}

// resultHolds checks a tool result (of what names the call) is no error
// and holds every fragment.
func resultHolds(res toolResult, what string, fragments ...string) error {
	if res.IsError {
		return fmt.Errorf("%s failed: %.1000s", what, res.Text)
	}
	for _, f := range fragments {
		if !strings.Contains(res.Text, f) {
			return fmt.Errorf("%s result lacks %q:\n%.3000s", what, f, res.Text)
		}
	}
	return nil
}

func bodyHas(r *request, fragments ...string) error {
	for _, f := range fragments {
		if !strings.Contains(strings.Join(r.texts(), "\n"), f) {
			return fmt.Errorf("request lacks %q", f)
		}
	}
	return nil
}

func bodyLacks(r *request, fragments ...string) error {
	for _, f := range fragments {
		if strings.Contains(strings.Join(r.texts(), "\n"), f) {
			return fmt.Errorf("request contains %q", f)
		}
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
