//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// pointerMark starts the pointer the SessionStart hook injects (docs/format.md, "The pointer").
const pointerMark = "# [bottle] Endless Mode"

// pointerRE matches a whole pointer: heading, path line and the lines down to
// the current task (labelled when it comes from claude-mem's summary).
var pointerRE = regexp.MustCompile(`# \[bottle\] Endless Mode — session continuation\n` +
	`Before doing anything else, Read this file and continue the session from where it ends:\n` +
	`(\S[^\n]*?)   \(session ([A-Za-z0-9._-]+)\)\n(?:[^\n]*\n)*?` +
	`Current task(?: \(from claude-mem's generated summary, not the user's words\))?: ([^\n]*)`)

// pointer is one pointer found in a request or a hook answer.
type pointer struct {
	text, path, session, task string
}

func findPointers(texts ...string) []pointer {
	var out []pointer
	for _, s := range texts {
		for _, m := range pointerRE.FindAllStringSubmatch(s, -1) {
			out = append(out, pointer{text: m[0], path: m[1], session: m[2], task: m[3]})
		}
	}
	return out
}

// requestPointers returns the pointers in a request to the model, and an
// error when the marker is there but no whole pointer is.
func requestPointers(r *request) ([]pointer, error) {
	texts := r.texts()
	ps := findPointers(texts...)
	if len(ps) == 0 && bytes.Contains(r.Raw, []byte(pointerMark)) {
		return nil, fmt.Errorf("request has %q but no whole pointer", pointerMark)
	}
	return ps, nil
}

// checkPointer checks a pointer names the session's bottle in the bottles
// folder, that the file exists now (or was archived by a /clear since), and
// that it says how to expand ids.
func (w *world) checkPointer(p pointer, sid string) error {
	want := filepath.Join(w.bottles, sid+".md")
	var errs []string
	if p.session != sid {
		errs = append(errs, fmt.Sprintf("names session %s, want %s", p.session, sid))
	}
	if p.path != want {
		errs = append(errs, fmt.Sprintf("names bottle %s, want %s", p.path, want))
	}
	archived, _ := filepath.Glob(filepath.Join(w.bottles, "archive", "*-"+sid+".md"))
	if fi, err := os.Stat(p.path); err != nil && len(archived) == 0 {
		errs = append(errs, fmt.Sprintf("bottle path does not exist (nor was it archived since): %v", err))
	} else if err == nil && !fi.Mode().IsRegular() {
		errs = append(errs, fmt.Sprintf("bottle path %s is not a file", p.path))
	}
	for _, s := range []string{w.mode.tool("expand_observation"), w.mode.tool("read_bottle"), "session_id " + sid} {
		if !strings.Contains(p.text, s) {
			errs = append(errs, fmt.Sprintf("does not mention %q", s))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("pointer %s:\n%s", strings.Join(errs, "; "), p.text)
	}
	return nil
}

// noPointer is a turn check: the request carries no pointer.
func noPointer(r *request) error {
	if bytes.Contains(r.Raw, []byte(pointerMark)) {
		return fmt.Errorf("request carries the pointer (%q), but no compaction happened", pointerMark)
	}
	return nil
}

// hookAnswer checks one hook's stdout as Claude Code captured it: nothing,
// or exactly one JSON object, a SessionStart answer whose additionalContext
// is a pointer. It returns the additionalContext.
func hookAnswer(stdout string) (string, error) {
	if stdout == "" {
		return "", nil
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	var ans struct {
		HookSpecificOutput *struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return "", fmt.Errorf("stdout is not JSON: %v: %.300q", err, stdout)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("stdout holds more than one JSON value: %.300q", stdout)
	}
	if err := json.Unmarshal(raw, &ans); err != nil || raw[0] != '{' {
		return "", fmt.Errorf("stdout is not one JSON object: %.300q", stdout)
	}
	h := ans.HookSpecificOutput
	if h == nil || h.HookEventName != "SessionStart" || !strings.HasPrefix(h.AdditionalContext, pointerMark) {
		return "", fmt.Errorf("stdout is not a SessionStart answer with the pointer: %.300q", stdout)
	}
	return h.AdditionalContext, nil
}

// checkHooks checks every hook answer of a run: exit 0, nothing on stderr,
// nothing or one JSON object on stdout. want maps a hook name
// ("SessionStart:compact") to how many pointers its hooks must answer with
// (absent: none). It returns the pointers, by hook name.
func (w *world) checkHooks(r *run, want map[string]int) map[string][]pointer {
	t := w.t
	t.Helper()
	got := map[string][]pointer{}
	for _, ev := range r.events {
		if ev.Type != "system" || ev.Subtype != "hook_response" {
			continue
		}
		if ev.ExitCode == nil || *ev.ExitCode != 0 || ev.Stderr != "" {
			t.Errorf("step %s: hook %s: exit %v, outcome %q, stderr %q", r.name, ev.HookName, deref(ev.ExitCode), ev.Outcome, ev.Stderr)
		}
		if strings.HasPrefix(ev.HookName, "PreToolUse") {
			if err := preToolUseAnswer(ev.Stdout); err != nil {
				t.Errorf("step %s: hook %s: %v", r.name, ev.HookName, err)
			}
			continue
		}
		if strings.HasPrefix(ev.HookName, "PreCompact") {
			if err := w.checkSteerAnswer(ev.Stdout, r.sessionBefore()); err != nil {
				t.Errorf("step %s: hook %s: %v", r.name, ev.HookName, err)
			}
			continue
		}
		ctx, err := hookAnswer(ev.Stdout)
		if err != nil {
			t.Errorf("step %s: hook %s: %v", r.name, ev.HookName, err)
			continue
		}
		if ctx == "" {
			continue
		}
		ps := findPointers(ctx)
		if len(ps) != 1 {
			t.Errorf("step %s: hook %s answered additionalContext without one whole pointer:\n%s", r.name, ev.HookName, ctx)
			continue
		}
		if err := w.checkPointer(ps[0], r.sessionBefore()); err != nil {
			t.Errorf("step %s: hook %s: %v", r.name, ev.HookName, err)
		}
		got[ev.HookName] = append(got[ev.HookName], ps[0])
	}
	names := map[string]bool{}
	for n := range got {
		names[n] = true
	}
	for n := range want {
		names[n] = true
	}
	for n := range names {
		if len(got[n]) != want[n] {
			t.Errorf("step %s: hooks %s answered with %d pointer(s), want %d", r.name, n, len(got[n]), want[n])
		}
	}
	return got
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// sessionBefore is the session the run resumed (the one hooks answer for
// before a /clear).
func (r *run) sessionBefore() string {
	for i, a := range r.args {
		if a == "--resume" && i+1 < len(r.args) {
			return r.args[i+1]
		}
	}
	return r.session
}

// checkHookLog checks the product's own log of a run's hooks: every run
// logged one line that is ok or skipped, within the hook's deadline.
func (w *world) checkHookLog(r *run) {
	t := w.t
	t.Helper()
	// Nothing ran twice: a plugin and a settings install side by side would
	// run every hook twice (Claude Code dedupes neither).
	seen := map[string]int{}
	for _, l := range r.hookLines {
		if l.hook == "mcpserver" {
			continue
		}
		k := l.hook + " " + l.session + " " + l.val
		if seen[k]++; seen[k] == 2 {
			t.Errorf("step %s: hook %s ran more than once for session %s %s=%s: %v", r.name, l.hook, l.session, l.key, l.val, r.hookLines)
		}
	}
	for _, l := range r.hookLines {
		switch {
		case l.outcome == "unparsed":
			t.Errorf("step %s: unparsable line in %s: %q", r.name, w.hookLog, l.raw)
		case l.hook == "mcpserver":
			t.Errorf("step %s: the MCP server logged a problem: %q", r.name, l.raw)
		case !strings.HasPrefix(l.outcome, "ok") && !strings.HasPrefix(l.outcome, "skipped"):
			t.Errorf("step %s: hook failed: %q", r.name, l.raw)
		case l.hook == "stop" && l.outcome == "skipped: empty session: no prompt and no tool call" && r.slashCommandOnly():
			// A session of a plugin command alone (/bottle:doctor) is
			// nothing to continue: no bottle for it.
		case l.hook == "stop" && l.outcome != "ok":
			// Claude Code writes the transcript up to 100 ms after it runs
			// the Stop hook; the hook waits for the turn's last message.
			t.Errorf("step %s: the Stop hook rendered without the turn: %q", r.name, l.raw)
		case hookDeadline[l.hook] == 0:
			t.Errorf("step %s: unexpected log line %q", r.name, l.raw)
		case l.dur > hookDeadline[l.hook]:
			t.Errorf("step %s: hook %s took %v, over its deadline %v: %q", r.name, l.hook, l.dur, hookDeadline[l.hook], l.raw)
		}
	}
}

// slashCommandOnly reports whether the run's prompt is a slash command:
// its session may hold no genuine prompt.
func (r *run) slashCommandOnly() bool {
	i := slices.Index(r.args, "-p")
	return i >= 0 && i+1 < len(r.args) && strings.HasPrefix(r.args[i+1], "/")
}

// hookLogged reports whether the run logged a line for hook with the given
// key value (source or reason) and outcome prefix.
func (r *run) hookLogged(hook, session, val, outcome string) bool {
	for _, l := range r.hookLines {
		if l.hook == hook && l.session == session && (val == "" || l.val == val) && strings.HasPrefix(l.outcome, outcome) {
			return true
		}
	}
	return false
}

// bottleWant is what a bottle on disk must hold.
type bottleWant struct {
	session string
	prompts []string // genuine prompts, in order; the first is the Original request
	answers []string // assistant texts, verbatim
	has     []string // further lines or fragments
	absent  []string // text that must not be in it (tool output, summaries)
}

// checkBottle checks a bottle file: mode 0600 in a 0700 folder, full mode,
// the prompts and answers verbatim, one **User** heading per prompt, and
// that every [#id] in it expands with "hookbin expand". It returns the
// bottle.
func (w *world) checkBottle(path string, want bottleWant) string {
	t := w.t
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Errorf("bottle: %v", err)
		return ""
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("bottle %s has mode %v, want 0600", path, perm)
	}
	if di, err := os.Stat(filepath.Dir(path)); err == nil && di.Mode().Perm() != 0o700 {
		t.Errorf("bottle folder %s has mode %v, want 0700", filepath.Dir(path), di.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := string(data)
	var errs []string
	if !strings.HasPrefix(b, "# Session bottle — "+want.session+"\n") {
		errs = append(errs, "does not start with the header of session "+want.session)
	}
	if !strings.Contains(b, "\nmode: full\n") {
		errs = append(errs, `has no line "mode: full"`)
	}
	if len(want.prompts) > 0 && !strings.Contains(b, "## Original request\n\n"+want.prompts[0]+"\n") {
		errs = append(errs, fmt.Sprintf("has no Original request %q", want.prompts[0]))
	}
	for _, p := range want.prompts {
		if n := strings.Count(b, "\n"+p+"\n"); n < 1 {
			errs = append(errs, fmt.Sprintf("lacks the prompt %q verbatim on its own line", p))
		}
	}
	if n := countLinePrefix(b, "**User** ("); n != len(want.prompts) {
		errs = append(errs, fmt.Sprintf("has %d **User** headings, want %d (one per prompt)", n, len(want.prompts)))
	}
	for _, a := range want.answers {
		if !strings.Contains(b, "\n"+a+"\n") {
			errs = append(errs, fmt.Sprintf("lacks the answer %q verbatim", a))
		}
	}
	for _, s := range want.has {
		if !strings.Contains(b, s) {
			errs = append(errs, fmt.Sprintf("lacks %q", s))
		}
	}
	for _, s := range want.absent {
		if strings.Contains(b, s) {
			errs = append(errs, fmt.Sprintf("contains %q", s))
		}
	}
	if len(errs) > 0 {
		t.Errorf("bottle %s:\n- %s\n--- bottle:\n%s", path, strings.Join(errs, "\n- "), b)
	}
	w.checkExpand(want.session, bottleIDs(b))
	return b
}

var idRE = regexp.MustCompile(`\[#([0-9]+|[tua][0-9]+)\]`)

// bottleIDs are the ids of a bottle's [#id] tags, in order, once each.
func bottleIDs(b string) []string {
	var ids []string
	for _, m := range idRE.FindAllStringSubmatch(b, -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// checkExpand runs "hookbin expand ids --session sid": every id must expand.
func (w *world) checkExpand(sid string, ids []string) {
	t := w.t
	t.Helper()
	if len(ids) == 0 {
		return
	}
	args := append([]string{"expand"}, ids...)
	args = append(args, "--session", sid)
	stdout, stderr, code := w.exec(w.bin.hookbin, nil, args...)
	if code != 0 || stderr != "" {
		t.Errorf("hookbin %s: exit %d, stderr %q\n%s", strings.Join(args, " "), code, stderr, stdout)
		return
	}
	for _, id := range ids {
		if !strings.Contains(stdout, "## [#"+id+"]\n") {
			t.Errorf("hookbin %s did not expand %s:\n%s", strings.Join(args, " "), id, stdout)
		}
	}
	if strings.Contains(stdout, "not expanded") {
		t.Errorf("hookbin %s left ids unexpanded:\n%s", strings.Join(args, " "), stdout)
	}
}

func countLinePrefix(s, prefix string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, prefix) {
			n++
		}
	}
	return n
}

// replayHooks runs the Stop and SessionEnd hooks again with every payload
// Claude Code sent them (Claude Code does not report those hooks' stdout
// for SessionEnd): each must exit 0 within its deadline and print nothing.
func (w *world) replayHooks() {
	t := w.t
	t.Helper()
	subs := map[string]string{"Stop": "stop", "SessionEnd": "session-end"}
	n := 0
	for _, o := range readObserved(t, w.observerLog) {
		sub, ok := subs[o.Event]
		if !ok {
			continue
		}
		n++
		start := time.Now()
		stdout, stderr, code := w.exec(w.bin.hookbin, o.Payload, sub)
		d := time.Since(start)
		if code != 0 || stdout != "" || stderr != "" {
			t.Errorf("hookbin %s with payload %s: exit %d, stdout %q, stderr %q", sub, o.Payload, code, stdout, stderr)
		}
		if d > hookDeadline[sub]+time.Second { // process start-up on a loaded CI machine
			t.Errorf("hookbin %s took %v", sub, d)
		}
	}
	if n == 0 {
		t.Error("the observer saw no Stop or SessionEnd hook")
	}
}

// checkMCPStdio starts the built mcpserver as Claude Code does (same
// environment, the project as working directory), sends the messages
// Claude Code 2.1.332 sends (a server/discover probe with a string id,
// initialize with 2025-11-25, tools/list, a tools/call) and checks that
// every line on its stdout is a JSON-RPC message, that each request is
// answered promptly and that stderr stays empty.
func (w *world) checkMCPStdio(sid string) {
	t := w.t
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.bin.mcpserver)
	cmd.Dir = w.project
	cmd.Env = w.env(nil)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- bytes.Clone(sc.Bytes())
		}
	}()
	type response struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	// await reads stdout until the response with id arrives.
	await := func(id string, within time.Duration) (response, bool) {
		timer := time.NewTimer(within)
		defer timer.Stop()
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Errorf("mcpserver closed stdout before answering %s (stderr %q)", id, stderr.String())
					return response{}, false
				}
				var r response
				if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
					t.Errorf("mcpserver stdout line is not JSON-RPC 2.0: %.300q", line)
					continue
				}
				if string(r.ID) == id {
					return r, true
				}
			case <-timer.C:
				t.Errorf("mcpserver did not answer %s within %v", id, within)
				return response{}, false
			}
		}
	}
	send := func(msg string) {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Errorf("write to mcpserver: %v", err)
		}
	}
	send(`{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"e2e"}}}}`)
	// Claude Code waits 3 s for this answer before it falls back to
	// initialize; a prompt one keeps start-up fast.
	await(`"server-discover-probe-1"`, time.Second)
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"claude-code","title":"Claude Code","version":"e2e"}}}`)
	if r, ok := await(`0`, 5*time.Second); ok {
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct{ Name string }
		}
		json.Unmarshal(r.Result, &res)
		if res.ProtocolVersion != "2025-11-25" || res.ServerInfo.Name != "bottle" {
			t.Errorf("initialize answered protocol %q, server %q; want 2025-11-25, bottle: %s", res.ProtocolVersion, res.ServerInfo.Name, r.Result)
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r, ok := await(`1`, 5*time.Second); ok {
		for _, name := range []string{`"render_bottle"`, `"read_bottle"`, `"expand_observation"`} {
			if !bytes.Contains(r.Result, []byte(name)) {
				t.Errorf("tools/list lacks %s: %.500s", name, r.Result)
			}
		}
	}
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "read_bottle", "arguments": map[string]any{"session_id": sid}}})
	send(string(call))
	if r, ok := await(`2`, 10*time.Second); ok && !bytes.Contains(r.Result, []byte("# Session bottle")) {
		t.Errorf("tools/call read_bottle: %.500s", r.Result)
	}
	stdin.Close()
	for line := range lines {
		var r response
		if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
			t.Errorf("mcpserver stdout line is not JSON-RPC 2.0: %.300q", line)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("mcpserver exited with %v after stdin closed", err)
	}
	if stderr.Len() > 0 {
		t.Errorf("mcpserver wrote to stderr: %q", stderr.String())
	}
}

// readResult is the result of the newest Read of path in the request.
func readResult(r *request, path string) (toolResult, bool) {
	var found toolResult
	ok := false
	for _, res := range r.toolResults() {
		var in struct {
			FilePath string `json:"file_path"`
		}
		if res.Tool == "Read" && json.Unmarshal(res.Input, &in) == nil && in.FilePath == path {
			found, ok = res, true
		}
	}
	return found, ok
}

// readHas checks the request carries a Read of path that is no error and
// holds every fragment.
func readHas(r *request, path string, fragments ...string) error {
	res, ok := readResult(r, path)
	if !ok {
		return fmt.Errorf("no result of a Read of %s in the request", path)
	}
	return resultHolds(res, "Read of "+path, fragments...)
}

// outsideFile writes a file outside both the project and the bottles
// folder and returns its path.
func (w *world) outsideFile() string {
	path := filepath.Join(w.root, "outside", "notes.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(outsideContent+"\n"), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return path
}

// outsideRead checks the Read of the file outside the project and the
// bottles folder went as the permission rules alone say, bottle's
// PreToolUse hook deciding nothing: refused without a rule for Read, read
// with one.
func (w *world) outsideRead(r *request, path string) error {
	if !w.mode.noRules {
		return readHas(r, path, outsideContent)
	}
	res, ok := readResult(r, path)
	switch {
	case !ok:
		return fmt.Errorf("no result of the Read of %s in the request", path)
	case !res.IsError || strings.Contains(res.Text, outsideContent) || !strings.Contains(strings.ToLower(res.Text), "permission"):
		return fmt.Errorf("the Read of %s (outside the project and the bottles folder, no rule for Read) was not refused for want of permission: is_error %v, %.500q",
			path, res.IsError, res.Text)
	}
	return nil
}

// onePointerHeading checks the request holds the pointer's heading exactly
// once: the model never gets two pointers, whole or not, in one request.
func onePointerHeading(r *request) error {
	n := 0
	for _, s := range r.texts() {
		n += strings.Count(s, pointerMark)
	}
	if n != 1 {
		return fmt.Errorf("the request holds the pointer heading %q %d times, want once", pointerMark, n)
	}
	return nil
}

// preToolUseAnswer checks a PreToolUse hook's stdout: nothing, or one JSON
// object allowing the call with a reason naming bottle.
func preToolUseAnswer(stdout string) error {
	if stdout == "" {
		return nil
	}
	var ans struct {
		HookSpecificOutput struct {
			HookEventName, PermissionDecision, PermissionDecisionReason string
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &ans); err != nil {
		return fmt.Errorf("stdout is not one JSON object: %v: %.300q", err, stdout)
	}
	h := ans.HookSpecificOutput
	if h.HookEventName != "PreToolUse" || h.PermissionDecision != "allow" || !strings.HasPrefix(h.PermissionDecisionReason, "bottle: ") {
		return fmt.Errorf("stdout is not a PreToolUse answer allowing the call for bottle: %.300q", stdout)
	}
	return nil
}
