//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"bottle/internal/racemode"
	"bottle/internal/testbin"
)

// Environment variables of the test.
const (
	// claudeEnv names the Claude Code binary; without it the test skips.
	claudeEnv = "BOTTLE_E2E_CLAUDE"
	// keepEnv names a folder in which each run keeps its scratch home,
	// project and logs (default: a test temp dir, removed afterwards).
	keepEnv = "BOTTLE_E2E_KEEP"
	// observerEnv is set for the claude runs: the hooks it starts include
	// this test binary, which then only appends its payload to the file the
	// variable names (see TestMain).
	observerEnv = "BOTTLE_E2E_OBSERVER_LOG"
)

const (
	// stepBound is how long one claude run may take; runs take about a
	// second. stepKill is when it is killed.
	stepBound = 20 * time.Second
	stepKill  = 120 * time.Second
	// mcpConnectBound is how long Claude Code may take to connect to the
	// MCP server: one that ignores the server/discover probe costs 3 s.
	mcpConnectBound = 2 * time.Second
	mockAPIKey      = "sk-ant-e2e-mock-key"
)

// Deadlines of the hooks (docs/format.md, "The hooks"): the product's log records each run's
// duration, which must stay within them.
var hookDeadline = map[string]time.Duration{
	"session-start": 8 * time.Second,
	"stop":          2 * time.Second,
	"session-end":   1500 * time.Millisecond,
	"pre-compact":   2 * time.Second,
	"pre-tool-use":  time.Second,
}

// binaries are the freshly built product binaries.
type binaries struct{ hookbin, mcpserver, pretooluse string }

// buildBinaries returns hookbin, mcpserver and pretooluse built from this
// module once per test run (internal/testbin), with the race detector when
// the test itself has it.
func buildBinaries(t *testing.T) binaries {
	t.Helper()
	b := testbin.For(t, racemode.Enabled)
	return binaries{hookbin: b.Hookbin, mcpserver: b.MCPServer, pretooluse: b.PreToolUse}
}

// claudeVersion is "2.1.332" for "2.1.332 (Claude Code)".
func claudeVersion(t *testing.T, claude string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, claude, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", claude, err)
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return v
}

// world is one scratch machine: a home, a project registered by hookbin
// install, the mock API, and the session being driven.
type world struct {
	t      *testing.T
	claude string
	bin    binaries
	mode   installMode
	// extraEnv is added to the environment of every claude run.
	extraEnv map[string]string
	// pluginRoot is the plugin folder Claude Code runs bottle from (plugin
	// modes).
	pluginRoot string

	root, home, project, data, bottles string
	hookLog                            string // the product's log, <data>/logs/bottle.log
	observerLog                        string // every hook payload, by the observer
	settings                           string // --settings file with the observer hooks
	mock                               *mock
	steps                              []*run
}

func newWorld(t *testing.T, claude string, bin binaries, mode installMode) *world {
	t.Helper()
	root := t.TempDir()
	if keep := os.Getenv(keepEnv); keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			t.Fatal(err)
		}
		d, err := os.MkdirTemp(keep, strings.NewReplacer("/", "-").Replace(t.Name())+"-")
		if err != nil {
			t.Fatal(err)
		}
		root = d
		t.Logf("keeping the scratch world in %s", root)
	}
	// Claude Code names a project by its physical path (a TMPDIR such as
	// macOS's /var/folders is a symlink).
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	w := &world{t: t, claude: claude, bin: bin, mode: mode, root: root,
		home: filepath.Join(root, "home"), project: filepath.Join(root, "project")}
	w.data = filepath.Join(w.home, ".claude-mem")
	w.bottles = filepath.Join(w.data, "bottles")
	w.hookLog = filepath.Join(w.data, "logs", "bottle.log")
	w.observerLog = filepath.Join(root, "observer.jsonl")
	w.settings = filepath.Join(root, "observer-settings.json")
	for _, d := range []string{w.home, w.project, filepath.Join(root, "steps")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyDir(t, filepath.Join("testdata", "project"), w.project)
	// Onboarding done, so that nothing waits for a first-run screen.
	writeJSON(t, filepath.Join(w.home, ".claude.json"), map[string]any{"hasCompletedOnboarding": true})
	w.writeObserverSettings()

	m, err := startMock()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.close)
	w.mock = m
	return w
}

// install registers bottle exactly as a user would: the real hookbin binary,
// "install --scope project" for the scratch project, or the plugin
// (installPlugin).
func (w *world) install() {
	t := w.t
	t.Helper()
	if w.mode.plugin() {
		w.installPlugin()
		return
	}
	stdout, stderr, code := w.exec(w.bin.hookbin, nil, "install", "--scope", "project", "--project", w.project,
		"--hookbin", w.bin.hookbin, "--mcpserver", w.bin.mcpserver)
	if code != 0 {
		t.Fatalf("hookbin install: exit %d\n%s%s", code, stdout, stderr)
	}
	var mcp struct {
		MCPServers map[string]struct {
			Type, Command string
			Args          []string
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(w.project, ".mcp.json"), &mcp)
	if s := mcp.MCPServers["bottle"]; s.Command != w.bin.mcpserver {
		t.Fatalf(".mcp.json after install: server bottle = %+v, want command %s", s, w.bin.mcpserver)
	}
	settings, err := os.ReadFile(filepath.Join(w.project, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	// PreToolUse runs the pretooluse binary, which lies beside hookbin.
	for _, cmd := range []string{w.bin.hookbin + " session-start", w.bin.hookbin + " stop", w.bin.hookbin + " session-end",
		w.bin.hookbin + " pre-compact", `"command": "` + w.bin.pretooluse + `"`} {
		if !bytes.Contains(settings, []byte(cmd)) {
			t.Fatalf(".claude/settings.json after install does not run %q:\n%s", cmd, settings)
		}
	}
}

// writeObserverSettings writes the --settings layer that adds the observer
// hooks: this test binary, logging every payload. Claude Code runs them next
// to the project's hooks; bottle's registration is left as install wrote it.
func (w *world) writeObserverSettings() {
	exe, err := os.Executable()
	if err != nil {
		w.t.Fatal(err)
	}
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"} {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": shellQuote(exe), "timeout": 30}}}}
	}
	writeJSON(w.t, w.settings, map[string]any{"hooks": hooks})
}

// env is the environment of every claude run, and so of the hooks and the
// MCP server it starts: a clean one, with the scratch home, the mock as API
// and as proxy (anything aimed elsewhere is trapped and recorded), and no
// non-essential traffic.
func (w *world) env(extra map[string]string) []string {
	mockURL := w.mock.URL()
	vars := map[string]string{
		"PATH":                    w.mode.path(),
		"LANG":                    "C.UTF-8",
		"TZ":                      "UTC",
		"TERM":                    "dumb",
		"HOME":                    w.home,
		"CLAUDE_MEM_DATA_DIR":     w.data,
		"ANTHROPIC_BASE_URL":      mockURL,
		"ANTHROPIC_API_KEY":       mockAPIKey,
		"HTTPS_PROXY":             mockURL,
		"HTTP_PROXY":              mockURL,
		"https_proxy":             mockURL,
		"http_proxy":              mockURL,
		"NO_PROXY":                "127.0.0.1,localhost",
		"no_proxy":                "127.0.0.1,localhost",
		"ENABLE_TOOL_SEARCH":      "false", // MCP tools inline in "tools" (2.1.332 defers them otherwise)
		"DISABLE_TELEMETRY":       "1",
		"DISABLE_AUTOUPDATER":     "1",
		"DISABLE_ERROR_REPORTING": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		observerEnv: w.observerLog,
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		vars["TMPDIR"] = tmp
	}
	if racemode.Enabled {
		// A race-enabled binary sleeps 1 s at exit by default; Claude Code
		// waits for every hook and for the MCP server, so runs would take
		// seconds longer. Races are still reported (stderr, exit 66).
		vars["GORACE"] = "atexit_sleep_ms=0"
	}
	for _, m := range []map[string]string{w.extraEnv, extra} {
		for k, v := range m {
			vars[k] = v
		}
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

// exec runs a product binary with the scratch environment in the project.
func (w *world) exec(bin string, stdin []byte, args ...string) (stdout, stderr string, code int) {
	ctx, cancel := context.WithTimeout(w.t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = w.project
	cmd.Env = w.env(nil)
	cmd.Stdin = bytes.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		w.t.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	return o.String(), e.String(), code
}

// streamEvent is one line of claude's stream-json output (the fields used).
type streamEvent struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	// init
	MCPServers []struct{ Name, Status string } `json:"mcp_servers"`
	// hook_response (--include-hook-events)
	HookName  string `json:"hook_name"`
	HookEvent string `json:"hook_event"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	ExitCode  *int   `json:"exit_code"`
	Outcome   string `json:"outcome"`
	// compact_boundary
	CompactMetadata struct {
		Trigger string `json:"trigger"`
	} `json:"compact_metadata"`
	// conversation_reset
	NewConversationID string `json:"new_conversation_id"`
	// result
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
}

// observed is one hook run seen by the observer.
type observed struct {
	At      time.Time       `json:"at"`
	Payload json.RawMessage `json:"payload"`
	Event   string          `json:"-"`
	Source  string          `json:"-"`
	Reason  string          `json:"-"`
	Session string          `json:"-"`
}

// run is one claude invocation and everything seen during it.
type run struct {
	name      string
	args      []string
	start     time.Time
	dur       time.Duration
	exit      int
	stdout    []byte
	stderr    []byte
	events    []streamEvent
	session   string // the session the run ended in
	result    *streamEvent
	requests  []*request
	observed  []observed
	hookLines []hookLine // lines the product logged during the run
	debugLog  string     // Claude Code's debug log of the run
}

type runOpts struct {
	resume string            // --resume this session
	env    map[string]string // extra environment
}

// claudeRun runs "claude -p prompt" for step name with the turns scripted,
// and returns what happened. It fails the test when claude cannot run, and
// reports (t.Errorf) a failed turn check, an unserved turn, an unscripted
// request, a non-zero exit or a run over stepBound.
func (w *world) claudeRun(name, prompt string, o runOpts, turns ...turn) *run {
	t := w.t
	t.Helper()
	w.mock.load(name, turns)
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--settings", w.settings, "--allowedTools=" + w.mode.allowedTools()}
	if o.resume != "" {
		args = append(args, "--resume", o.resume)
	}
	r := &run{name: name, debugLog: w.artifact(name, ".debug.txt")}
	args = append(args, "--debug-file", r.debugLog)
	r.args = args
	obsBefore := len(readObserved(t, w.observerLog))
	logBefore := len(readHookLog(t, w.hookLog))

	ctx, cancel := context.WithTimeout(t.Context(), stepKill)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.claude, args...)
	cmd.Dir = w.project
	cmd.Env = w.env(o.env)
	cmd.Stdin = nil // /dev/null
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Own process group, so that a timeout also ends the hooks and MCP
	// server claude started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	r.start = time.Now()
	err := cmd.Run()
	r.dur = time.Since(r.start)
	r.stdout, r.stderr = stdout.Bytes(), stderr.Bytes()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("step %s: claude %s killed after %v\nstderr:\n%s\nstdout tail:\n%s", name, shellArgs(args), stepKill, r.stderr, tail(r.stdout, 3000))
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("step %s: run claude: %v", name, err)
	}

	sc := bufio.NewScanner(bytes.NewReader(r.stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ev streamEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Errorf("step %s: claude printed a non-JSON line on stdout: %.200q", name, line)
			continue
		}
		r.events = append(r.events, ev)
		switch {
		case ev.Type == "result":
			r.result = &ev
		case ev.Type == "system" && ev.Subtype == "init":
			r.session = ev.SessionID
		}
	}
	if r.result != nil && r.result.SessionID != "" {
		r.session = r.result.SessionID
	}
	w.saveArtifacts(r)
	r.requests = w.mock.stepRequests(name)
	r.observed = readObserved(t, w.observerLog)[obsBefore:]
	r.hookLines = readHookLog(t, w.hookLog)[logBefore:]
	w.steps = append(w.steps, r)
	t.Logf("step %-14s %5.2fs exit=%d session=%s requests=%d hooks=%s", name, r.dur.Seconds(), r.exit, r.session,
		len(r.requests), r.hookSummary())

	if r.exit != 0 || r.result == nil || r.result.IsError {
		t.Fatalf("step %s: claude exit %d, result %+v\nstderr:\n%s\nstdout tail:\n%s", name, r.exit, r.result, r.stderr, tail(r.stdout, 3000))
	}
	if r.dur > stepBound {
		t.Errorf("step %s took %v, over the bound of %v", name, r.dur.Round(time.Millisecond), stepBound)
	}
	for _, f := range w.mock.done() {
		t.Errorf("step %s: %s", name, f)
	}
	w.checkDebugLog(r)
	return r
}

// checkDebugLog reads Claude Code's debug log of a run: bottle's MCP server
// connected within mcpConnectBound, and Claude Code logged no error about
// it or about a hook (a line on the server's stderr is logged as one).
func (w *world) checkDebugLog(r *run) {
	t := w.t
	t.Helper()
	data, err := os.ReadFile(r.debugLog)
	if err != nil {
		t.Errorf("step %s: Claude Code's debug log: %v", r.name, err)
		return
	}
	pluginHooks := 0
	for _, line := range strings.Split(string(data), "\n") {
		// Which install ran bottle's hooks: the plugin's run its launcher
		// (the command as registered, or with ${CLAUDE_PLUGIN_ROOT} expanded;
		// the debug lines differ between versions), a settings install runs
		// the built hookbin itself.
		fromPlugin := strings.Contains(line, `/bin/bottle-run" hookbin `)
		fromSettings := strings.Contains(line, w.bin.hookbin+" ")
		if fromPlugin {
			pluginHooks++
		}
		if w.mode.plugin() && fromSettings || !w.mode.plugin() && fromPlugin {
			t.Errorf("step %s: a bottle hook ran from the wrong install (want %s): %.500s", r.name, w.mode.kind, line)
		}
		if !strings.Contains(line, "[ERROR]") {
			continue
		}
		if l := strings.ToLower(line); strings.Contains(l, "bottle") || strings.Contains(l, "hook") {
			t.Errorf("step %s: Claude Code logged: %.500s", r.name, line)
		} else {
			t.Logf("step %s: Claude Code logged: %.500s", r.name, line)
		}
	}
	if w.mode.plugin() && pluginHooks == 0 && len(r.hookLines) > 0 {
		t.Errorf("step %s: bottle's hooks logged %d runs, but Claude Code's debug log shows none from the plugin", r.name, len(r.hookLines))
	}
	init := r.event("system", "init")
	if init == nil || !w.serverConnected(init) {
		return // reported by the scenario where it matters
	}
	// Claude Code's debug line for a started MCP server.
	mcpConnectedRE := regexp.MustCompile(`MCP server "` + regexp.QuoteMeta(w.mode.server) + `": Successfully connected \(transport: stdio\) in (\d+)ms`)
	m := mcpConnectedRE.FindSubmatch(data)
	if m == nil {
		t.Errorf("step %s: no line %q in Claude Code's debug log %s", r.name, mcpConnectedRE, r.debugLog)
		return
	}
	ms, _ := strconv.Atoi(string(m[1]))
	if d := time.Duration(ms) * time.Millisecond; d > mcpConnectBound {
		t.Errorf("step %s: Claude Code took %v to connect to the MCP server, over %v", r.name, d, mcpConnectBound)
	}
}

// artifact is the path of a file of the next run, steps/NN-name<suffix>.
func (w *world) artifact(name, suffix string) string {
	return filepath.Join(w.root, "steps", fmt.Sprintf("%02d-%s%s", len(w.steps)+1, name, suffix))
}

// saveArtifacts writes what a run printed into the world's folder
// (steps/NN-name.*, beside Claude Code's debug log), and every request so
// far into requests.jsonl: kept with $BOTTLE_E2E_KEEP for a look after a
// failure.
func (w *world) saveArtifacts(r *run) {
	os.WriteFile(w.artifact(r.name, ".cmd"), []byte(shellArgs(append([]string{w.claude}, r.args...))+"\n"), 0o644)
	os.WriteFile(w.artifact(r.name, ".stdout.jsonl"), r.stdout, 0o644)
	os.WriteFile(w.artifact(r.name, ".stderr"), r.stderr, 0o644)
	var b bytes.Buffer
	for _, q := range w.mock.all() {
		line, _ := json.Marshal(map[string]any{"seq": q.Seq, "step": q.Step, "at": q.At, "method": q.Method, "path": q.Path,
			"class": q.Class, "turn": q.Turn, "unscripted": q.Unscripted, "reply": q.Reply, "body": json.RawMessage(orNull(q.Raw))})
		b.Write(append(line, '\n'))
	}
	os.WriteFile(filepath.Join(w.root, "requests.jsonl"), b.Bytes(), 0o644)
}

func orNull(raw []byte) []byte {
	if !json.Valid(raw) {
		return []byte("null")
	}
	return raw
}

func (r *run) hookSummary() string {
	var parts []string
	for _, o := range r.observed {
		s := o.Event
		if o.Source != "" {
			s += ":" + o.Source
		}
		if o.Reason != "" {
			s += ":" + o.Reason
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

// hookResponses are the answers of the hooks named name ("SessionStart:compact",
// "Stop") as Claude Code reported them; the observer's are among them and
// are always empty.
func (r *run) hookResponses(name string) []streamEvent {
	var out []streamEvent
	for _, ev := range r.events {
		if ev.Type == "system" && ev.Subtype == "hook_response" && ev.HookName == name {
			out = append(out, ev)
		}
	}
	return out
}

func (r *run) event(typ, subtype string) *streamEvent {
	for i := range r.events {
		if r.events[i].Type == typ && (subtype == "" || r.events[i].Subtype == subtype) {
			return &r.events[i]
		}
	}
	return nil
}

// ---- the observer ----

// observe is the whole program when the test binary runs as an observer
// hook: append the payload to the log, print nothing, exit 0.
func observe(path string) int {
	payload, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err != nil || !json.Valid(bytes.TrimSpace(payload)) {
		payload = []byte(strconv.Quote(string(payload)))
	}
	line, _ := json.Marshal(observed{At: time.Now(), Payload: json.RawMessage(bytes.TrimSpace(payload))})
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0
	}
	defer f.Close()
	f.Write(append(line, '\n')) // one write: lines of concurrent hooks do not interleave
	return 0
}

func readObserved(t *testing.T, path string) []observed {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []observed
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var o observed
		if err := json.Unmarshal(line, &o); err != nil {
			t.Fatalf("observer log line %q: %v", line, err)
		}
		var p struct {
			Event   string `json:"hook_event_name"`
			Source  string `json:"source"`
			Reason  string `json:"reason"`
			Session string `json:"session_id"`
		}
		json.Unmarshal(o.Payload, &p)
		o.Event, o.Source, o.Reason, o.Session = p.Event, p.Source, p.Reason, p.Session
		out = append(out, o)
	}
	return out
}

// ---- the product's hook log ----

// hookLine is one line of <data>/logs/bottle.log.
type hookLine struct {
	raw      string
	hook     string
	session  string
	key, val string
	dur      time.Duration
	outcome  string
}

var hookLineRE = regexp.MustCompile(`^\S+ (\S+) session=(\S+)(?: (source|reason|trigger)=(\S+))? mode=\S+ (\d+)ms (.*)$`)

func readHookLog(t *testing.T, path string) []hookLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []hookLine
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		m := hookLineRE.FindStringSubmatch(line)
		if m == nil {
			out = append(out, hookLine{raw: line, outcome: "unparsed"})
			continue
		}
		ms, _ := strconv.Atoi(m[5])
		out = append(out, hookLine{raw: line, hook: m[1], session: m[2], key: m[3], val: m[4],
			dur: time.Duration(ms) * time.Millisecond, outcome: m[6]})
	}
	return out
}

// ---- small helpers ----

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
