//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"bottle/host/codex"
	"bottle/internal/racemode"
	"bottle/locate"
)

// codexEnv names the Codex CLI binary; without it TestCodex skips.
const codexEnv = "BOTTLE_E2E_CODEX"

// codexStepKill is when one codex run is killed; runs take a few seconds.
const codexStepKill = 120 * time.Second

// The Codex session's prompts, in order; the rollout must hold them verbatim.
var codexPrompts = []string{
	"Run the check. [codex prompt 1]\nCALL_SHELL: printf 'CODEX-%s\\n' SHELL-OUT",
	"List bottle's sessions. [codex prompt 2]\nCALL_TOOL:mcp__bottle.list_sessions:{}",
	"BIG_USAGE fill the context. [codex prompt 3]",
	"Continue after the compaction. [codex prompt 4]",
	"BIG_USAGE compact mid-turn. [codex prompt 5]\nCALL_SHELL: printf 'MID-%s\\n' TURN",
}

// codexWorld is a scratch machine for the Codex CLI: a home with
// CODEX_HOME, a work folder, the mock and bottle's data folder.
type codexWorld struct {
	t                                 *testing.T
	codex                             string
	bin                               binaries
	root, home, codexHome, work, data string
	mock                              *responsesMock
	provider                          string // the mock provider's name
}

// TestCodex installs bottle into a scratch CODEX_HOME with "hookbin install
// --host codex --trust", drives the real Codex CLI through a shell call, a
// call of bottle's MCP server and an auto compaction before a resumed turn
// (local, and remote for a provider named "OpenAI"), and checks that Codex
// ran bottle's (trusted) hooks, offered and called bottle's MCP tools in the
// mcp__bottle namespace, and wrote a rollout that host/codex reads: the
// prompts and answers verbatim, the tool calls, the cwd and the compaction.
func TestCodex(t *testing.T) {
	bin := os.Getenv(codexEnv)
	if bin == "" {
		t.Skipf("set %s to a codex binary (scripts/install-codex.sh 0.171.0 prints one) to run the Codex end-to-end test", codexEnv)
	}
	t.Logf("isolation: %s", isolation)
	bins := buildBinaries(t)
	// A provider named "OpenAI" takes Codex's remote compaction, the path
	// OpenAI's own users get: the summary is an encrypted item, and the
	// rollout's history before it is the only readable record.
	for _, provider := range []string{"mock", "OpenAI"} {
		t.Run("provider "+provider, func(t *testing.T) {
			w := newCodexWorld(t, bin, bins, provider)
			out := w.hookbin("install", "--host", "codex", "--trust", "--codex", w.codex)
			if !strings.Contains(out, "trusted bottle's 3 hooks") {
				t.Fatalf("install --trust did not trust the hooks:\n%s", out)
			}
			if out := w.hookbin("doctor", "--host", "codex", "--codex", w.codex); !strings.Contains(out, "✓ trust:") {
				t.Errorf("doctor does not see the trusted hooks:\n%s", out)
			}
			thread := w.runScenario()
			w.checkCrossHost(thread)
			if provider == "mock" {
				// The provider plays no part in it: once is enough.
				w.checkContinueClaudeCode()
			}
			if out := w.hookbin("doctor", "--host", "codex", "--codex", w.codex); !strings.Contains(out, "✓ rollouts: 1") {
				t.Errorf("doctor does not count the rollout:\n%s", out)
			}
		})
	}
}

func newCodexWorld(t *testing.T, codexBin string, bin binaries, provider string) *codexWorld {
	root := t.TempDir()
	if keep := os.Getenv(keepEnv); keep != "" {
		root = filepath.Join(keep, "codex-"+provider+"-"+time.Now().UTC().Format("20060102T150405"))
	}
	w := &codexWorld{t: t, codex: codexBin, bin: bin, root: root, provider: provider,
		home: filepath.Join(root, "home"), work: filepath.Join(root, "work"), data: filepath.Join(root, "data")}
	w.codexHome = filepath.Join(w.home, ".codex")
	for _, d := range []string{w.codexHome, w.work, w.data, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.mock = startResponsesMock(t)
	// A user's config with comments: install must keep it byte for byte.
	config := fmt.Sprintf(`# e2e: Codex offline against a mock Responses API
model = "mock-model"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
model_auto_compact_token_limit = 10000   # BIG_USAGE reports 190000

[model_providers.mock]
name = %q   # "OpenAI": remote compaction
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false   # no plugin sync: nothing leaves the machine

[analytics]
enabled = false

[feedback]
enabled = false

[projects.%q]
trust_level = "trusted"
`, provider, w.mock.url, w.work)
	if err := os.WriteFile(filepath.Join(w.codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("scratch world: %s (set %s to keep it)", root, keepEnv)
		}
	})
	return w
}

func (w *codexWorld) env() []string {
	vars := map[string]string{
		"PATH":                filepath.Dir(w.codex) + ":" + os.Getenv("PATH"),
		"HOME":                w.home,
		"CODEX_HOME":          w.codexHome,
		"CLAUDE_MEM_DATA_DIR": w.data,
		"MOCK_API_KEY":        "dummy",
		"TMPDIR":              filepath.Join(w.root, "tmp"),
		"LANG":                "C.UTF-8",
		"TZ":                  "UTC",
		"NO_PROXY":            "127.0.0.1,localhost",
	}
	if racemode.Enabled {
		vars["GORACE"] = "atexit_sleep_ms=0"
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

// hookbin runs the built hookbin and returns its stdout; it fails the test
// on a non-zero exit.
func (w *codexWorld) hookbin(args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.t.Context(), codexStepKill)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.bin.hookbin, args...)
	cmd.Dir, cmd.Env = w.work, w.env()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		w.t.Fatalf("hookbin %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, o.String(), e.String())
	}
	return o.String()
}

// exec runs "codex exec" (resumed: "codex exec resume --last") with prompt.
func (w *codexWorld) exec(resume bool, prompt string) {
	w.t.Helper()
	args := []string{"exec", "--skip-git-repo-check", "--json"}
	if resume {
		args = append(args, "resume", "--last")
	}
	args = append(args, prompt)
	ctx, cancel := context.WithTimeout(w.t.Context(), codexStepKill)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.codex, args...)
	cmd.Dir, cmd.Env = w.work, w.env()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	w.t.Logf("codex %s: %.1fs", strings.Join(args[:len(args)-1], " "), time.Since(start).Seconds())
	if err != nil {
		w.t.Fatalf("codex %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, tail(o.Bytes(), 3000), tail(e.Bytes(), 3000))
	}
}

// checkRequests: Codex offered bottle's MCP tools in the mcp__bottle
// namespace, called list_sessions and got its answer back (the sessions
// of the session's folder), and compacted.
func (w *codexWorld) checkRequests(reqs []codexRequest) {
	t := w.t
	var offered, called, compacted bool
	for _, r := range reqs {
		names := toolNames(r.body)
		if slices.Contains(names, "mcp__bottle.read_bottle") && slices.Contains(names, "mcp__bottle.list_sessions") {
			offered = true
		}
		if r.kind == "compaction" {
			compacted = true
		}
		items, _ := r.body["input"].([]any)
		for _, it := range items {
			im, _ := it.(map[string]any)
			if im["type"] == "function_call_output" && strings.Contains(r.reply, "AFTER-TOOL") {
				// The project is the session's folder, also for the
				// plugin's server, which Codex runs in the plugin's.
				if out := outputString(im["output"]); strings.Contains(out, "Sessions of the project "+w.work+",") {
					called = true
				} else if strings.Contains(out, "Sessions of the project") {
					t.Errorf("list_sessions listed another folder than the session's %s:\n%s", w.work, out)
				}
			}
		}
	}
	if !offered {
		t.Errorf("no request offered mcp__bottle.read_bottle and list_sessions (tools of the first: %v)", toolNames(reqs[0].body))
	}
	if !called {
		t.Error("the model's call of mcp__bottle.list_sessions got no answer back")
	}
	if !compacted {
		t.Error("Codex sent no compaction request")
	}
}

// checkHookLog: Codex ran bottle's hooks (trusted: no bypass flag), with
// source compact after the compaction, and each recognised the Codex
// thread. It returns the thread id.
func (w *codexWorld) checkHookLog() string {
	t := w.t
	lines := readHookLog(t, filepath.Join(w.data, "logs", "bottle.log"))
	if len(lines) == 0 {
		t.Fatal("bottle's hook log is empty: Codex ran none of bottle's hooks")
	}
	var thread string
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l.hook+" "+l.val] = true
		if strings.HasPrefix(l.outcome, "error") {
			t.Errorf("hook failed: %s", l.raw)
		}
		if l.session != "" {
			if thread != "" && l.session != thread {
				t.Errorf("hooks ran for two threads: %s and %s", thread, l.session)
			}
			thread = l.session
		}
	}
	for _, want := range []string{"session-start compact", "session-start resume", "stop ", "session-end other"} {
		if !seen[want] {
			t.Errorf("no %q hook run in the log:\n%s", want, joinRaw(lines))
		}
	}
	compacts := 0
	for _, l := range lines {
		if l.hook == "session-start" && l.val == "compact" {
			compacts++
			if l.outcome != "ok" {
				t.Errorf("session-start after the compaction did not answer with the pointer: %s", l.raw)
			}
		}
	}
	if compacts != 2 {
		t.Errorf("%d session-start compact runs, want 2 (pre-turn, mid-turn):\n%s", compacts, joinRaw(lines))
	}
	return thread
}

func joinRaw(lines []hookLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.raw + "\n")
	}
	return b.String()
}

// checkRollout: host/codex finds the thread's rollout by id and reads the
// prompts and answers verbatim, the tool calls, the cwd and the compaction.
func (w *codexWorld) checkRollout(thread string) {
	t := w.t
	path, err := codex.Find(w.codexHome, thread)
	if err != nil {
		t.Fatal(err)
	}
	r, err := codex.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Diag.Malformed+r.Diag.UnknownTypes+r.Diag.Oversized > 0 || r.Diag.TornTail {
		t.Errorf("rollout %s: %s", path, r.Diag)
	}
	var users, answers []string
	var shell, mcp, reads, compactions int
	cwds := map[string]bool{}
	for _, rec := range r.Records {
		switch {
		case rec.Item != nil && rec.Item.Type == codex.ItemMessage && rec.Item.Injected == "":
			if rec.Item.Role == "user" {
				users = append(users, rec.Item.Text)
			} else {
				answers = append(answers, rec.Item.Text)
			}
		case rec.Item != nil && rec.Item.Type == codex.ItemFunctionCall && rec.Item.Name == "exec_command" &&
			(strings.Contains(rec.Item.Arguments, "SHELL-OUT") || strings.Contains(rec.Item.Arguments, "MID-")):
			shell++
		case rec.Item != nil && rec.Item.Type == codex.ItemFunctionCall && rec.Item.Namespace == "mcp__bottle" && rec.Item.Name == "read_bottle":
			reads++
		case rec.Item != nil && rec.Item.Type == codex.ItemFunctionCall && rec.Item.Namespace == "mcp__bottle" && rec.Item.Name == "list_sessions":
			mcp++
		case rec.Compacted != nil:
			compactions++
		case rec.Turn != nil:
			cwds[rec.Turn.Cwd] = true
		}
	}
	if !slices.Equal(users, codexPrompts) {
		t.Errorf("user messages in the rollout:\n%q\nwant the prompts:\n%q", users, codexPrompts)
	}
	// After each compaction the model follows the pointer: read_bottle, then
	// its answer.
	wantAnswers := []string{"AFTER-TOOL", "AFTER-TOOL", "REPLY: BIG_USAGE fill the context. [codex prompt 3]", "AFTER-TOOL", "AFTER-TOOL"}
	if len(answers) != len(wantAnswers) {
		t.Errorf("assistant messages in the rollout: %q, want %d", answers, len(wantAnswers))
	} else {
		for i, a := range answers {
			if !strings.HasPrefix(a, wantAnswers[i]) {
				t.Errorf("answer %d = %.80q, want it to start %q", i+1, a, wantAnswers[i])
			}
		}
	}
	for _, rec := range r.Records {
		c := rec.Compacted
		if c == nil {
			continue
		}
		var last codex.Item
		if n := len(c.Replacement); n > 0 {
			last = c.Replacement[n-1]
		}
		switch {
		case w.provider == "OpenAI" && (c.Summary != "" || last.Type != codex.ItemCompaction || !last.Encrypted):
			t.Errorf("remote compaction: summary %q, last replacement item %+v; want no summary and an encrypted compaction item", c.Summary, last)
		case w.provider != "OpenAI" && !strings.Contains(c.Summary, codexSummary):
			t.Errorf("local compaction: summary %q, want it to hold %q", c.Summary, codexSummary)
		}
	}
	if shell != 2 || mcp != 1 || reads != 2 || compactions != 2 {
		t.Errorf("rollout: %d exec_command calls, %d mcp__bottle.list_sessions calls, %d mcp__bottle.read_bottle calls, %d compactions; want 2, 1, 2, 2",
			shell, mcp, reads, compactions)
	}
	if !cwds[w.work] || len(cwds) != 1 {
		t.Errorf("turn_context cwds %v, want only %s", cwds, w.work)
	}
	if t.Failed() {
		data, _ := os.ReadFile(path)
		t.Logf("rollout %s (%d bytes):\n%s", path, len(data), tail(data, 4000))
	}
}

// checkPointer: after each compaction (pre-turn on resume, mid-turn after a
// tool call; local or remote), the next request carries bottle's pointer
// as one developer message, and no request carries it twice; the model's
// call of read_bottle in the mcp__bottle namespace gets the bottle back,
// with the session's prompts and answers verbatim and the exec_command
// digest; the bottle file exists.
func (w *codexWorld) checkPointer(reqs []codexRequest, thread string) {
	t := w.t
	pointers := func(r codexRequest) int {
		n := 0
		items, _ := r.body["input"].([]any)
		for _, it := range items {
			im, _ := it.(map[string]any)
			if im["role"] == "developer" && strings.Contains(contentText(im["content"]), pointerHead) {
				n++
				if !strings.Contains(contentText(im["content"]), "(session "+thread+")") {
					t.Errorf("the pointer names another session: %.300q", contentText(im["content"]))
				}
			}
		}
		return n
	}
	compactions := 0
	for i, r := range reqs {
		if n := pointers(r); n > 1 {
			t.Errorf("request %d carries bottle's pointer %d times", i+1, n)
		}
		if !isCompaction(r) {
			continue
		}
		compactions++
		if i+1 >= len(reqs) {
			t.Errorf("no request after compaction %d", compactions)
			continue
		}
		if n := pointers(reqs[i+1]); n != 1 {
			t.Errorf("the request after compaction %d carries bottle's pointer %d times, want once", compactions, n)
		}
	}
	if compactions != 2 {
		t.Errorf("%d compaction requests, want 2", compactions)
	}
	var bottles []string
	for _, r := range reqs {
		items, _ := r.body["input"].([]any)
		if len(items) == 0 {
			continue
		}
		last, _ := items[len(items)-1].(map[string]any)
		if last["type"] != "function_call_output" {
			continue
		}
		if out := outputString(last["output"]); strings.Contains(out, "# Session bottle — "+thread) {
			bottles = append(bottles, out)
		}
	}
	if len(bottles) != 2 {
		t.Fatalf("%d read_bottle answers holding the bottle, want 2 (one per compaction)", len(bottles))
	}
	for i, b := range bottles {
		for _, want := range []string{"Run the check. [codex prompt 1]", "List bottle's sessions. [codex prompt 2]",
			"BIG_USAGE fill the context. [codex prompt 3]", "REPLY: BIG_USAGE fill the context. [codex prompt 3]",
			"exec_command: printf 'CODEX-%s", "SHELL-OUT — ok", "bottle/list_sessions", "recorded by Codex CLI"} {
			if !strings.Contains(b, want) {
				t.Errorf("read_bottle answer %d lacks %q:\n%s", i+1, want, tail([]byte(b), 4000))
			}
		}
	}
	if !strings.Contains(bottles[1], "Continue after the compaction. [codex prompt 4]") ||
		!strings.Contains(bottles[1], "exec_command: printf 'MID-%s") {
		t.Errorf("the bottle after the mid-turn compaction lacks prompt 4 or the mid-turn command:\n%s", tail([]byte(bottles[1]), 4000))
	}
	if _, err := os.Stat(filepath.Join(w.data, "bottles", thread+".md")); err != nil {
		t.Errorf("bottle file: %v", err)
	}
}

// isCompaction reports whether r asked for a compaction, local or remote.
func isCompaction(r codexRequest) bool {
	if r.kind == "compaction" {
		return true
	}
	items, _ := r.body["input"].([]any)
	if len(items) == 0 {
		return false
	}
	last, _ := items[len(items)-1].(map[string]any)
	return last["type"] == "compaction_trigger"
}

// runScenario drives Codex through codexPrompts and checks what every
// install must give: the requests, the hooks run, the rollout, the pointer
// and read_bottle. It returns the thread id.
func (w *codexWorld) runScenario() string {
	for i, p := range codexPrompts {
		w.exec(i > 0, p)
	}
	w.checkRequests(w.mock.requests())
	thread := w.checkHookLog()
	w.checkRollout(thread)
	w.checkPointer(w.mock.requests(), thread)
	return thread
}

// checkCrossHost: the thread the real Codex recorded is picked up from
// Claude Code: "hookbin render ID --pointer" (what continue_session returns
// under Claude Code) renders its bottle and words the fresh-session pointer
// for Claude Code, saying Codex recorded it; the bottle holds the prompts.
func (w *codexWorld) checkCrossHost(thread string) {
	t := w.t
	ptr := w.hookbin("render", thread, "--pointer")
	for _, want := range []string{"Before doing anything else, Read this file", "It was recorded by Codex CLI", thread + ".md", "mcp__bottle__read_bottle"} {
		if !strings.Contains(ptr, want) {
			t.Errorf("the Claude Code pointer to the Codex thread lacks %q:\n%s", want, ptr)
		}
	}
	bottle, err := os.ReadFile(filepath.Join(w.data, "bottles", thread+".md"))
	if err != nil {
		t.Fatalf("the cross-host render wrote no bottle: %v", err)
	}
	if !strings.Contains(string(bottle), "[codex prompt 4]") {
		t.Errorf("the cross-host bottle lacks the last prompt:\n%.2000s", bottle)
	}
}

// claudeCodePrompts are the prompts of the Claude Code session handed to
// Codex; its bottle must hold them verbatim.
var claudeCodePrompts = []string{
	"Rename the config loader to LoadSettings. [claude prompt 1]",
	"Now update the callers, and keep the old name as a deprecated alias:\n  - cmd/serve\n  - cmd/check [claude prompt 2]",
}

// writeClaudeCodeSession writes a Claude Code transcript of the work
// folder, where Claude Code keeps it under HOME, and returns its session id.
func (w *codexWorld) writeClaudeCodeSession() string {
	const id = "c1a0de00-1111-4222-8333-444455556666"
	var b bytes.Buffer
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	parent := any(nil)
	for i, p := range claudeCodePrompts {
		for k, msg := range []map[string]any{
			{"role": "user", "content": p},
			{"role": "assistant", "model": "claude-test", "id": fmt.Sprintf("msg_%d", i), "type": "message",
				"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Done with step %d. [claude answer %d]", i+1, i+1)}}},
		} {
			uuid := fmt.Sprintf("c1a0de00-0000-4000-8000-%012d", 2*i+k+1)
			line, _ := json.Marshal(map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": w.work,
				"sessionId": id, "version": "2.1.39", "type": msg["role"], "uuid": uuid,
				"timestamp": at.Add(time.Duration(2*i+k) * time.Minute).Format(time.RFC3339Nano), "message": msg})
			b.Write(append(line, '\n'))
			parent = uuid
		}
	}
	dir := filepath.Join(w.home, ".claude", "projects", locate.ProjectDirName(w.work))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), b.Bytes(), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return id
}

// checkContinueClaudeCode: a Claude Code session is handed to Codex. The
// model calls mcp__bottle.continue_session with its id; the result Codex
// sends back is the pointer worded for Codex (bottle's tools in the
// mcp__bottle namespace, no Read tool), saying Claude Code recorded it,
// and the bottle it names holds the session's prompts verbatim.
func (w *codexWorld) checkContinueClaudeCode() {
	t := w.t
	id := w.writeClaudeCodeSession()
	before := len(w.mock.requests())
	w.exec(true, "Pick up the Claude Code session. [codex prompt 6]\nCALL_TOOL:mcp__bottle.continue_session:{\"session_id\":\""+id+"\"}")
	var ptr string
	for _, r := range w.mock.requests()[before:] {
		items, _ := r.body["input"].([]any)
		for _, it := range items {
			im, _ := it.(map[string]any)
			if im["type"] == "function_call_output" {
				if out := outputString(im["output"]); strings.Contains(out, "(session "+id+")") {
					ptr = out
				}
			}
		}
	}
	if ptr == "" {
		t.Fatalf("no request after the call of mcp__bottle.continue_session carries its result (replies: %v)", replies(w.mock.requests()[before:]))
	}
	for _, want := range []string{pointerHead, "Before doing anything else, read this file",
		"- It was recorded by Claude Code. Read it with read_bottle (in the mcp__bottle namespace", "exec_command"} {
		if !strings.Contains(ptr, want) {
			t.Errorf("continue_session's result lacks %q:\n%s", want, ptr)
		}
	}
	for _, never := range []string{"Read tool", "Read this file", "mcp__bottle__"} {
		if strings.Contains(ptr, never) {
			t.Errorf("continue_session's result, worded for Codex, says %q:\n%s", never, ptr)
		}
	}
	var path string
	for _, l := range strings.Split(ptr, "\n") {
		if p, ok := strings.CutSuffix(l, "   (session "+id+")"); ok {
			path = p
		}
	}
	bottle, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the bottle continue_session names: %v\n%s", err, ptr)
	}
	for _, want := range append(slices.Clone(claudeCodePrompts), "[claude answer 2]") {
		if !strings.Contains(string(bottle), want) {
			t.Errorf("the bottle of the Claude Code session lacks %q:\n%s", want, tail(bottle, 3000))
		}
	}
}

// replies are what the mock answered to reqs.
func replies(reqs []codexRequest) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.reply)
	}
	return out
}
