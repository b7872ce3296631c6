//go:build unix

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// steerMark starts the instruction bottle's PreCompact hook prints
// (pointer.SteerInstruction).
const steerMark = "[bottle] A verbatim record of this session"

// installMode is how a world installs bottle, and so how the model sees
// its MCP server and tools.
type installMode struct {
	// kind is "settings" (hookbin install --scope project), "plugin" (the
	// repository's marketplace, copied, with the built binaries in
	// plugin/libexec) or "release" (the folder scripts/release.sh writes,
	// committed by scripts/release-branch.sh and added from a git URL on
	// 127.0.0.1, with no Go on the PATH Claude Code, the hooks and the
	// server get).
	kind string
	// server is the MCP server's name in Claude Code; prefix goes before
	// each tool's name.
	server, prefix string
	// steerOff turns the PreCompact instruction off: $BOTTLE_STEER_COMPACT=0
	// for settings, the userConfig option steer_compact=false for plugins.
	steerOff bool
	// noRules grants no permission for Read or bottle's tools: only bottle's
	// PreToolUse hook lets the model read its bottle and call its tools.
	noRules bool
}

var (
	viaSettings = installMode{kind: "settings", server: "bottle", prefix: "mcp__bottle__"}
	viaPlugin   = installMode{kind: "plugin", server: "plugin:bottle:bottle", prefix: "mcp__plugin_bottle_bottle__"}
	viaRelease  = installMode{kind: "release", server: "plugin:bottle:bottle", prefix: "mcp__plugin_bottle_bottle__"}
)

func (m installMode) plugin() bool { return m.kind != "settings" }

func (m installMode) steeringOff() installMode { m.steerOff = true; return m }

func (m installMode) withoutRules() installMode { m.noRules = true; return m }

func (m installMode) tool(name string) string { return m.prefix + name }

// allowedTools is the permission rule of the claude runs. -p mode refuses
// every call no rule allows ("Claude requested permissions ... but you
// haven't granted it yet"), and --dangerously-skip-permissions is refused
// as root. Bash is always allowed (the scenario runs it); with rules, Read
// and bottle's tools too, as a user may have them, which the PreToolUse
// hook must leave alone.
func (m installMode) allowedTools() string {
	if m.noRules {
		return "Bash"
	}
	return strings.TrimSuffix(m.prefix, "__") + ",Read,Bash"
}

// path is the PATH of claude runs: the test's, without the folders that
// hold a go command for the release mode (its launcher must need no Go).
func (m installMode) path() string {
	if m.kind != "release" {
		return os.Getenv("PATH")
	}
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// releaseEnv names a folder scripts/release.sh wrote; without it the
// release mode runs the script for this machine's platform only.
const releaseEnv = "BOTTLE_E2E_RELEASE"

// installPlugin installs bottle as a user would: "claude plugin marketplace
// add" with the marketplace folder and "claude plugin install bottle@bottle"
// (with steer_compact=false when steering is off). Then hookbin install
// must refuse, and doctor, run through the plugin's launcher, must see the
// plugin.
func (w *world) installPlugin() {
	t := w.t
	t.Helper()
	var market string
	if w.mode.kind == "release" {
		market = w.serveRelease(w.releaseFolder())
		if out, err := w.command("sh", "-c", "command -v go").CombinedOutput(); err == nil {
			t.Fatalf("release mode: go is on the PATH claude gets: %s", out)
		}
	} else {
		market = w.pluginClone()
	}
	w.cli("plugin", "marketplace", "add", market)
	install := []string{"plugin", "install", "bottle@bottle"}
	if w.mode.steerOff {
		install = append(install, "--config", "steer_compact=false")
	}
	w.cli(install...)

	config := filepath.Join(w.home, ".claude")
	var installed struct {
		Plugins map[string][]struct{ Scope, InstallPath string }
	}
	readJSON(t, filepath.Join(config, "plugins", "installed_plugins.json"), &installed)
	recs := installed.Plugins["bottle@bottle"]
	if len(recs) != 1 || recs[0].Scope != "user" {
		t.Fatalf("installed_plugins.json after install: %+v, want one user-scope bottle@bottle", installed.Plugins)
	}
	if w.mode.kind == "release" {
		// A git marketplace runs from Claude Code's copy of the plugin.
		cache := filepath.Join(config, "plugins", "cache") + string(filepath.Separator)
		if !strings.HasPrefix(recs[0].InstallPath, cache) {
			t.Fatalf("installed from %s, want a copy under %s", recs[0].InstallPath, cache)
		}
		if _, err := os.Stat(filepath.Join(recs[0].InstallPath, "libexec", runtime.GOOS+"-"+runtime.GOARCH, "hookbin")); err != nil {
			t.Fatalf("the installed plugin has no binary for this platform: %v", err)
		}
		w.pluginRoot = recs[0].InstallPath
	}
	var settings struct {
		EnabledPlugins map[string]bool
		Hooks          map[string]any
	}
	readJSON(t, filepath.Join(config, "settings.json"), &settings)
	if !settings.EnabledPlugins["bottle@bottle"] || settings.Hooks != nil {
		t.Fatalf("settings.json after plugin install: %+v, want bottle@bottle enabled and no hooks", settings)
	}
	for _, f := range []string{filepath.Join(w.project, ".claude", "settings.json"), filepath.Join(w.project, ".mcp.json")} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s exists: the plugin mode must not register bottle in settings", f)
		}
	}

	// No duplicates: a settings install beside the plugin is refused.
	stdout, stderr, code := w.exec(w.bin.hookbin, nil, "install", "--scope", "project", "--project", w.project,
		"--hookbin", w.bin.hookbin, "--mcpserver", w.bin.mcpserver)
	if code != 1 || !strings.Contains(stderr, "bottle is installed as the Claude Code plugin bottle@bottle") {
		t.Errorf("hookbin install beside the plugin: exit %d, stderr %q, stdout %q; want a refusal", code, stderr, stdout)
	}
	// doctor through the launcher, as /bottle:doctor runs it.
	cmd := w.command("sh", filepath.Join(w.pluginRoot, "bin", "bottle-run"), "hookbin", "doctor")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("✓ plugin bottle@bottle: installed (user scope")) ||
		!bytes.Contains(out, []byte("✓ hook Stop → hookbin stop: from the plugin bottle@bottle")) || bytes.Contains(out, []byte("hookbin install")) {
		t.Errorf("hookbin doctor through the launcher: %v\n%s", err, out)
	}
}

// pluginClone copies the repository's marketplace (.claude-plugin/ and
// plugin/, without any local libexec/) into the world and puts the built
// binaries into plugin/libexec/<os>-<arch>/ without their exec bits, as a
// plugin installer may leave them: the launcher restores them. It sets
// w.pluginRoot and returns the marketplace folder.
func (w *world) pluginClone() string {
	t := w.t
	t.Helper()
	clone := filepath.Join(w.root, "clone")
	copyDir(t, filepath.Join("..", ".claude-plugin"), filepath.Join(clone, ".claude-plugin"))
	copyDir(t, filepath.Join("..", "plugin"), filepath.Join(clone, "plugin"))
	libexec := filepath.Join(clone, "plugin", "libexec")
	if err := os.RemoveAll(libexec); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(libexec, runtime.GOOS+"-"+runtime.GOARCH)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{w.bin.hookbin, w.bin.mcpserver, w.bin.pretooluse} {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(b)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.pluginRoot = filepath.Join(clone, "plugin")
	return clone
}

// releaseFolder is $BOTTLE_E2E_RELEASE, else the folder scripts/release.sh
// writes for this machine's platform into the world. It sets w.pluginRoot.
func (w *world) releaseFolder() string {
	dir := releaseFolder(w.t, w.root)
	w.pluginRoot = filepath.Join(dir, "plugin")
	return dir
}

// releaseFolder is $BOTTLE_E2E_RELEASE, else the folder scripts/release.sh
// writes for this machine's platform under root.
func releaseFolder(t *testing.T, root string) string {
	t.Helper()
	dir := os.Getenv(releaseEnv)
	if dir == "" {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		start := time.Now()
		cmd := exec.CommandContext(ctx, "sh", filepath.Join("..", "scripts", "release.sh"), "0.0.0-e2e")
		cmd.Env = append(os.Environ(), "BOTTLE_RELEASE_TARGETS="+runtime.GOOS+"/"+runtime.GOARCH, "BOTTLE_RELEASE_DIST="+filepath.Join(root, "dist"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("scripts/release.sh: %v\n%s", err, stderr.String())
		}
		dir = strings.TrimSpace(stdout.String())
		t.Logf("scripts/release.sh for %s/%s in %.1fs: %s", runtime.GOOS, runtime.GOARCH, time.Since(start).Seconds(), dir)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if _, err := os.Stat(filepath.Join(dir, "plugin", "libexec", runtime.GOOS+"-"+runtime.GOARCH, "hookbin")); err != nil {
		t.Fatalf("release folder %s has no hookbin for this platform: %v", dir, err)
	}
	return dir
}

// serveRelease publishes a release folder as the release workflow does
// (scripts/release-branch.sh commits it to the plugin-release branch) into
// a bare repository, serves that over git's smart HTTP on 127.0.0.1 and
// returns the URL a user adds: the same two commands as from the real
// repository, with no Go.
func (w *world) serveRelease(folder string) string {
	return serveRelease(w.t, w.root, folder) + "#" + releaseBranch
}

// releaseBranch is the branch scripts/release-branch.sh commits to.
const releaseBranch = "plugin-release"

// serveRelease commits folder to the plugin-release branch of a bare
// repository under root and serves it over git's smart HTTP on 127.0.0.1;
// it returns the repository's URL.
func serveRelease(t *testing.T, root, folder string) string {
	t.Helper()
	repo := filepath.Join(root, "git", "bottle.git")
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(t.Context(), "git", args...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "--bare", repo)
	cmd := exec.CommandContext(t.Context(), "sh", filepath.Join("..", "scripts", "release-branch.sh"), folder, repo)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil || len(bytes.TrimSpace(out)) != 40 {
		t.Fatalf("scripts/release-branch.sh: %v, printed %q\n%s", err, out, stderr.String())
	}
	backend := filepath.Join(git("--exec-path"), "git-http-backend")
	srv := httptest.NewServer(&cgi.Handler{Path: backend,
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(repo), "GIT_HTTP_EXPORT_ALL=1"}})
	t.Cleanup(srv.Close)
	return srv.URL + "/bottle.git"
}

// command is a command run in the project with the claude runs' environment.
func (w *world) command(name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(w.t.Context(), name, args...)
	cmd.Dir = w.project
	cmd.Env = w.env(nil)
	return cmd
}

// cli runs a claude subcommand (plugin marketplace add, plugin install) in
// the world, failing the test on a non-zero exit.
func (w *world) cli(args ...string) {
	t := w.t
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.claude, args...)
	cmd.Dir = w.project
	cmd.Env = w.env(nil)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// steered is the check of a compaction request: it carries bottle's
// instruction naming session sid's bottle (none when steering is off) and
// every fragment (the user's own /compact text).
func (w *world) steered(sid string, fragments ...string) func(*request) error {
	return func(r *request) error {
		bottle := filepath.Join(w.bottles, sid+".md")
		if w.mode.steerOff {
			return firstErr(bodyLacks(r, steerMark), bodyHas(r, fragments...))
		}
		return firstErr(bodyHas(r, steerMark, "is saved at "+bottle+" and will be re-attached"), bodyHas(r, fragments...))
	}
}

// checkSteerAnswer checks a PreCompact hook's stdout: nothing (steering off,
// or the observer), or the one-line instruction naming session sid's bottle.
func (w *world) checkSteerAnswer(stdout, sid string) error {
	if stdout == "" {
		return nil
	}
	if w.mode.steerOff {
		return fmt.Errorf("steering is off, but PreCompact printed %.300q", stdout)
	}
	line := strings.TrimSuffix(stdout, "\n")
	bottle := filepath.Join(w.bottles, sid+".md")
	if !strings.HasPrefix(line, steerMark) || strings.ContainsAny(line, "\n\r") || !strings.Contains(line, bottle) || len([]rune(line)) > 600 {
		return fmt.Errorf("PreCompact printed %.700q, want one line of at most 600 characters starting %q and naming %s", stdout, steerMark, bottle)
	}
	return nil
}

// pluginCommands runs the plugin's commands in new sessions: /bottle:doctor
// gives the model doctor's checklist (the plugin active, nothing to
// install), /bottle:resume SID the instructions naming the plugin's
// tools, after which the model reads session sid's bottle through them, and
// /bottle:list, /bottle:search and /bottle:hookbin hookbin's output. Nothing is
// written into the plugin's data folder, which an uninstall deletes.
func (w *world) pluginCommands(sid string) {
	t := w.t
	t.Helper()
	r := w.claudeRun("cmd-doctor", "/bottle:doctor", runOpts{},
		turn{name: "doctor report", when: classMain, check: func(r *request) error {
			return firstErr(bodyHas(r, "✓ plugin bottle@bottle: installed (user scope", "✓ hook Stop → hookbin stop: from the plugin bottle@bottle"),
				bodyLacks(r, "run: hookbin install"))
		}, reply: []block{text("bottle is installed as a plugin and works.")}})
	w.checkHooks(r, nil)
	w.checkHookLog(r)

	r = w.claudeRun("cmd-resume", "/bottle:resume "+sid, runOpts{},
		turn{name: "resume: read", when: classMain, check: func(r *request) error {
			return bodyHas(r, "Session asked for: "+sid, w.mode.tool("read_bottle"), w.mode.tool("list_sessions"))
		}, reply: []block{toolUse(w.mode.tool("read_bottle"), map[string]any{"session_id": sid})}},
		turn{name: "resume: answer", when: classMain, check: func(r *request) error {
			return resultHas(r, w.mode.tool("read_bottle"), "# Session bottle — "+sid, prompt6, answer6)
		}, reply: []block{text("Picked up the session after the clear.")}})
	w.checkHooks(r, nil)
	w.checkHookLog(r)

	// The CLI for a plugin user: the commands run hookbin through the
	// launcher with the user's arguments, and the model gets its output.
	r = w.claudeRun("cmd-list", "/bottle:list", runOpts{},
		turn{name: "list", when: classMain, check: func(r *request) error {
			return bodyHas(r, "SESSION", "LAST ACTIVITY", sid)
		}, reply: []block{text("Here are the sessions.")}})
	w.checkHooks(r, nil)
	r = w.claudeRun("cmd-search", "/bottle:search fresh start", runOpts{},
		turn{name: "search", when: classMain, check: func(r *request) error {
			return bodyHas(r, "hits 1–", sid)
		}, reply: []block{text("Found it.")}})
	w.checkHooks(r, nil)
	r = w.claudeRun("cmd-hookbin", "/bottle:hookbin expand u1 --session "+sid, runOpts{},
		turn{name: "hookbin expand", when: classMain, check: func(r *request) error {
			return bodyHas(r, "session: "+sid+" (given)", "## [#u1]", prompt6)
		}, reply: []block{text("That was the first prompt.")}})
	w.checkHooks(r, nil)

	data, _ := filepath.Glob(filepath.Join(w.home, ".claude", "plugins", "data", "*", "*"))
	if len(data) > 0 {
		t.Errorf("files in the plugin's data folder (an uninstall deletes them): %v", data)
	}
}

// compactFailingRender compacts session sid while no bottle can be written
// ($BOTTLE_DIR names a file): the hooks fail quietly (exit 0, nothing on
// stdout or stderr, an error in the log) and the summariser gets no
// instruction from bottle.
func (w *world) compactFailingRender(sid string) {
	t := w.t
	t.Helper()
	notDir := filepath.Join(w.root, "not-a-folder")
	if err := os.WriteFile(notDir, []byte("a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.claudeRun("compact-failing", "/compact", runOpts{resume: sid, env: map[string]string{"BOTTLE_DIR": notDir}},
		summary("FAILING-SUMMARY-6161", func(r *request) error { return bodyLacks(r, steerMark) }))
	w.checkHooks(r, nil)
	if !r.hookLogged("pre-compact", sid, "manual", "error") {
		t.Errorf("step %s: pre-compact did not log its failure: %v", r.name, r.hookLines)
	}
	for _, ev := range r.hookResponses("PreCompact") {
		if ev.Stdout != "" {
			t.Errorf("step %s: PreCompact printed %q although the render failed", r.name, ev.Stdout)
		}
	}
}
