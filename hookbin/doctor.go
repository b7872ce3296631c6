package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"bottle/bottles"
	"bottle/claudemem"
	"bottle/internal/claudesettings"
	"bottle/internal/hooklog"
	"bottle/internal/permit"
	"bottle/locate"
	"bottle/pointer"
)

// dbCheckTimeout bounds doctor's read of claude-mem's database.
const dbCheckTimeout = 5 * time.Second

const doctorUsage = `usage: hookbin doctor [--project DIR]

Checks what bottle needs: its binaries, Claude Code's config and transcripts,
claude-mem's database, the bottles folder, the hook and MCP registrations
(user, project and local scope of DIR, default the current directory) and the
last hook run. Each line starts with ✓ (fine), ! (works, but look) or
✗ (bottle cannot work: exit status 1).
`

// status is the verdict of one doctor check.
type status int

const (
	statusOK   status = iota // ✓
	statusWarn               // !: bottle works, maybe degraded
	statusFail               // ✗: bottle cannot work; doctor exits 1
)

// checkLine is one line of doctor's checklist: what was found and, when it
// is not fine, what to do.
type checkLine struct {
	status status
	what   string
	todo   string
}

func (c checkLine) String() string {
	s := [...]string{"✓", "!", "✗"}[c.status] + " " + c.what
	if c.todo != "" {
		s += " — " + c.todo
	}
	return s
}

func runDoctor(ctx context.Context, d deps, args []string, env locate.Env, stdout io.Writer) error {
	isCodex, args, err := hostCheck(args)
	if err != nil {
		return err
	}
	if isCodex {
		return runDoctorCodex(ctx, args, env, stdout)
	}
	flags := flag.NewFlagSet("doctor", flag.ContinueOnError)
	flags.SetOutput(stdout)
	project := flags.String("project", "", "project `DIR` whose project and local settings are checked (default: the current directory)")
	flags.Usage = func() {
		fmt.Fprint(stdout, doctorUsage)
		printFlags(stdout, flags)
	}
	pos, err := parseArgs(flags, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return exitError{code: 2, msg: "doctor takes no arguments (run hookbin doctor --help)"}
	}

	me, meErr := self(d.executable)
	g := findGoDirs(env)
	var lines []checkLine
	lines = append(lines, checkBinaries(me, meErr, g)...)
	lines = append(lines, checkConfig(env))
	lines = append(lines, checkDB(ctx, env))
	lines = append(lines, checkBottles(env)...)
	dir, perr := projectDir(*project)
	if perr != nil {
		lines = append(lines, checkLine{statusWarn, "project: " + perr.Error(), "only user-scope registrations are checked"})
	}
	loc := claudesettings.Locations{ConfigDir: configDir(env), Project: dir}
	if cj, err := claudeJSON(env); err == nil {
		loc.ClaudeJSON = cj
	}
	regs, problems := claudesettings.Registrations(loc.Targets())
	lines = registeredServerBinary(lines, regs)
	pl := loc.Plugins()
	plugin, pluginLines := checkPlugin(pl, regs, dir)
	lines = append(lines, pluginLines...)
	lines = append(lines, checkHooks(regs, problems, me, g, plugin)...)
	lines = append(lines, checkAllowReads(env, pl, plugin))
	lines = append(lines, checkServer(regs, problems, dir, g, plugin)...)
	lines = append(lines, checkPluginCacheBinaries(regs, loc.ConfigDir)...)
	lines = append(lines, checkBottlesInPluginDir(env, loc.ConfigDir)...)
	lines = append(lines, checkLastRun(env))
	lines = append(lines, checkEndlessMode(env))

	failed := false
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
		failed = failed || l.status == statusFail
	}
	if failed {
		return exitError{code: 1}
	}
	return nil
}

// build is how to make binaries that last.
const build = "build both with `go build -o bin/ ./hookbin ./mcpserver`"

// registeredServerBinary replaces the failing mcpserver line of lines with
// the server binary a registration runs, when that one is there: install
// --mcpserver registers any path, under any name.
func registeredServerBinary(lines []checkLine, regs []claudesettings.Registration) []checkLine {
	i := slices.IndexFunc(lines, func(l checkLine) bool { return l.status == statusFail && strings.HasPrefix(l.what, "mcpserver: ") })
	if i < 0 {
		return lines
	}
	for _, r := range regs {
		if !r.IsServer() || r.Prog == "" {
			continue
		}
		if p, err := checkBinary("mcpserver", r.Prog); err == nil {
			lines[i] = checkLine{statusOK, "mcpserver: " + p + " (registered as the MCP server)", ""}
			break
		}
	}
	return lines
}

// checkBinaries reports this hookbin (exe, or why it is unknown) and the
// mcpserver beside it or on PATH.
func checkBinaries(exe string, err error, g goDirs) []checkLine {
	if err != nil {
		return []checkLine{{statusFail, "hookbin: cannot locate this binary: " + oneLineErr(err), build}}
	}
	out := []checkLine{{statusOK, "hookbin: " + exe, ""}}
	if place := goBuildPlace(exe, g); place != "" {
		out[0] = checkLine{statusWarn, "hookbin: " + exe + " is " + place, build + ", then run bin/hookbin doctor"}
	}
	beside := filepath.Join(filepath.Dir(exe), "mcpserver"+exeSuffix())
	if _, err := checkBinary("mcpserver", beside); err == nil {
		return append(out, checkLine{statusOK, "mcpserver: " + beside, ""})
	}
	if p, err := exec.LookPath("mcpserver"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return append(out, checkLine{statusOK, "mcpserver: " + p + " (on PATH)", ""})
	}
	return append(out, checkLine{statusFail, "mcpserver: not found beside hookbin (" + filepath.Dir(exe) + ") or on PATH", build})
}

// checkConfig finds Claude Code's config folder and counts its transcripts.
func checkConfig(env locate.Env) checkLine {
	dir := configDir(env)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return checkLine{statusWarn, "Claude Code config: " + dir + " not found", "run Claude Code once, or set CLAUDE_CONFIG_DIR to where its config lives"}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	projects := map[string]bool{}
	for _, f := range files {
		projects[filepath.Dir(f)] = true
	}
	return checkLine{statusOK, fmt.Sprintf("Claude Code config: %s (%s in %s)", dir, plural(len(files), "transcript"), plural(len(projects), "project")), ""}
}

// checkDB opens claude-mem's database read-only and counts its sessions.
func checkDB(ctx context.Context, env locate.Env) checkLine {
	path := env.DBPath()
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// Standalone mode is a supported setup, not a fault: bottles then
		// digest tool activity from the transcript alone (docs/format.md,
		// "Tool digests").
		return checkLine{statusOK, "claude-mem DB: none (standalone mode: tool activity is digested from transcripts; " +
			"a claude-mem DB at " + path + " would be read)", "if claude-mem keeps its data elsewhere, set CLAUDE_MEM_DATA_DIR"}
	}
	ctx, cancel := context.WithTimeout(ctx, dbCheckTimeout)
	defer cancel()
	db, err := claudemem.Open(ctx, path)
	if err != nil {
		return checkLine{statusWarn, "claude-mem DB: " + oneLineErr(err), "bottles are rendered from transcripts alone until it opens"}
	}
	defer db.Close()
	sessions, err := db.Sessions(ctx, "")
	if err != nil {
		return checkLine{statusWarn, "claude-mem DB: " + path + ": " + oneLineErr(err), "bottles are rendered from transcripts alone until it reads"}
	}
	what := fmt.Sprintf("claude-mem DB: %s (%s)", path, plural(len(sessions), "session"))
	if notes := db.Notes(); len(notes) > 0 {
		return checkLine{statusWarn, what + "; " + strings.Join(notes, "; "), "make its folder writable to see changes not yet checkpointed"}
	}
	return checkLine{statusOK, what, ""}
}

// checkBottles really writes a file into the bottles folder, and removes
// it. It creates no folder: when the bottles folder does not exist yet (the
// first hook run creates it), the file goes into the nearest folder above it.
func checkBottles(env locate.Env) []checkLine {
	dir := cleanAbs(env.BottlesDir())
	const fix = "fix its permissions, or set BOTTLE_DIR to a writable folder"
	notWritable := func(err error) []checkLine {
		return []checkLine{{statusFail, "bottles dir: " + dir + " not writable: " + oneLineErr(err), fix}}
	}
	probe := dir
	for {
		fi, err := os.Stat(probe)
		if err == nil && !fi.IsDir() {
			return notWritable(fmt.Errorf("%s is not a folder", probe))
		}
		if err == nil {
			break
		}
		parent := filepath.Dir(probe)
		if !errors.Is(err, fs.ErrNotExist) || parent == probe {
			return notWritable(err)
		}
		probe = parent
	}
	if err := probeWrite(probe); err != nil {
		return notWritable(err)
	}
	if probe != dir {
		return []checkLine{{statusOK, fmt.Sprintf("bottles dir: %s (not created yet; the first hook run creates it in %s, which is writable)", dir, probe), ""}}
	}
	written, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	out := []checkLine{{statusOK, fmt.Sprintf("bottles dir: %s (writable, %s)", dir, plural(len(written), "bottle")), ""}}
	if err := bottles.CheckArchive(dir); err != nil {
		out = append(out, checkLine{statusFail, "bottles dir: " + oneLineErr(err), "/clear cannot archive a bottle until it is a real folder"})
	}
	if fi, err := os.Stat(dir); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		out = append(out, checkLine{statusWarn, fmt.Sprintf("bottles dir: %s is open to other users (mode %04o)", dir, fi.Mode().Perm()),
			"bottles hold verbatim conversations: chmod 700 " + dir})
	}
	return out
}

// probeWrite creates, writes and removes a file in dir: permissions alone
// do not say whether a write succeeds (root, read-only mounts, full disks).
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	_, err = f.WriteString("bottle doctor\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if rerr := os.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}

// checkHooks reports the settings files bottle's hooks cannot be read from
// or do not run in, then one line per hook of bottle's. me is this hookbin
// ("" when unknown): a hook that runs another one is flagged, since that is
// not the binary doctor vouches for.
func checkHooks(regs []claudesettings.Registration, problems []claudesettings.Problem, me string, g goDirs, plugin pluginView) []checkLine {
	var out []checkLine
	var broken []string // settings files whose hooks could not be read
	for _, p := range problems {
		if !p.Settings {
			continue
		}
		switch p.Kind {
		case claudesettings.Unreadable:
			out = append(out, checkLine{statusWarn, "settings " + p.Path + ": " + oneLineErr(p.Err), ""})
			broken = append(broken, p.Path)
		case claudesettings.Malformed:
			out = append(out, checkLine{statusWarn, "settings " + p.Path + ": " + oneLineErr(p.Err), "fix it: Claude Code may ignore the whole file"})
			broken = append(broken, p.Path)
		case claudesettings.HooksDisabled:
			out = append(out, checkLine{statusFail, "hooks: disableAllHooks is set in " + p.Path, "remove it, or no hook of bottle runs"})
		}
	}
	for _, spec := range claudesettings.Hooks() {
		var found []claudesettings.Registration
		for _, r := range regs {
			if !r.IsServer() && r.Event == spec.Event && r.Sub == spec.Sub {
				found = append(found, r)
			}
		}
		label := "hook " + spec.Event + " → hookbin " + spec.Sub
		if len(found) == 0 && len(broken) > 0 {
			out = append(out, checkLine{statusFail, label + ": not found in the settings that could be read; " + strings.Join(broken, ", ") + " could not (see above)",
				"fix it, then run hookbin doctor again"})
			continue
		}
		switch {
		case len(found) == 0 && plugin.active != "":
			out = append(out, checkLine{statusOK, label + ": from the plugin " + plugin.active + " (hooks/hooks.json)", ""})
			continue
		case len(found) == 0 && plugin.installed != "":
			out = append(out, checkLine{statusFail, label + ": not registered: the plugin " + plugin.installed + " is installed but disabled", "enable it: claude plugin enable " + plugin.installed})
			continue
		case len(found) == 0 && spec.Event == "PreToolUse":
			// Optional too: without it Claude Code asks before the model reads a bottle.
			out = append(out, checkLine{statusWarn, label + ": not registered (Claude Code asks before every Read of a bottle, and -p mode refuses it)", "run: hookbin install (or hookbin install --scope project|local)"})
			continue
		case len(found) == 0 && spec.Event == "PreCompact":
			// Optional: without it the summary is not steered, nothing breaks.
			out = append(out, checkLine{statusWarn, label + ": not registered (the compaction summary is not steered)", "run: hookbin install (or hookbin install --scope project|local)"})
			continue
		case len(found) == 0:
			out = append(out, checkLine{statusFail, label + ": not registered", "run: hookbin install (or hookbin install --scope project|local)"})
			continue
		}
		out = append(out, hookLine(spec, label, found, me, g))
	}
	return out
}

// hookLine is the verdict on a hook registered in found (not empty): the
// worst of a missing binary, a binary in Go's build folders, several
// different commands, a binary other than me, and a matcher that misses
// compaction.
func hookLine(spec claudesettings.Hook, label string, found []claudesettings.Registration, me string, g goDirs) checkLine {
	wheres := make([]string, len(found))
	for i, r := range found {
		wheres[i] = string(r.Scope) + ": " + r.File
	}
	all := label + " (" + strings.Join(wheres, "; ") + ")"
	for i, r := range found {
		if r.Prog == "" {
			continue
		}
		if _, err := checkBinary("hookbin", r.Prog); err != nil {
			return checkLine{statusFail, label + " (" + wheres[i] + ") runs " + r.Prog + ", which is missing or not executable",
				"rebuild it, or run hookbin install again from the new binary"}
		}
	}
	for i, r := range found {
		if place := goBuildPlace(r.Prog, g); r.Prog != "" && place != "" {
			return checkLine{statusWarn, label + " (" + wheres[i] + ") runs " + r.Prog + ", " + place, build + ", then run bin/hookbin install"}
		}
	}
	if cmds := distinctCommands(found); len(cmds) > 1 {
		return checkLine{statusWarn, fmt.Sprintf("%s is registered %d times with different commands (%s); Claude Code runs each", label, len(found), strings.Join(cmds, "; ")),
			"keep one: hookbin uninstall --scope SCOPE removes a scope's"}
	}
	if me != "" {
		for i, r := range found {
			if r.Prog != "" && !sameFile(r.Prog, me) && !(spec.Sub == "pre-tool-use" && sameFile(r.Prog, claudesettings.PreToolUseBeside(me))) {
				return checkLine{statusWarn, label + " (" + wheres[i] + ") runs " + r.Prog + ", not this hookbin (" + me + ")",
					"run " + r.Prog + " doctor to check that one, or hookbin install from the binary to keep"}
			}
		}
	}
	if spec.Event == "SessionStart" &&
		!slices.ContainsFunc(found, func(r claudesettings.Registration) bool { return claudesettings.MatcherMatches(r.Matcher, "compact") }) {
		return checkLine{statusWarn, all + " does not match source compact",
			"run hookbin install to set its matcher to compact|resume|fork"}
	}
	if spec.Event == "PreToolUse" {
		for _, tool := range []string{"Read", pointer.SettingsNames.Tool("read_bottle")} {
			if !slices.ContainsFunc(found, func(r claudesettings.Registration) bool { return claudesettings.MatcherMatches(r.Matcher, tool) }) {
				return checkLine{statusWarn, all + " does not match " + tool,
					"run hookbin install to set its matcher to " + spec.Matcher}
			}
		}
	}
	return checkLine{statusOK, all, ""}
}

// checkAllowReads says whether the PreToolUse hook lets the model read
// bottle's record without a prompt, and which setting turned it off: the
// environment, else the option of the active plugin in its settings.
func checkAllowReads(env locate.Env, pl claudesettings.Plugins, plugin pluginView) checkLine {
	const what = "reads of bottle's record: "
	off := permit.Off(env)
	if off == "" && plugin.active != "" {
		if v, file, ok := pl.Option(plugin.active, allowReadsOption); ok && optionOff(v) {
			off = "the plugin option " + allowReadsOption + "=" + string(v) + " (" + file + ")"
		}
	}
	if off != "" {
		todo := "unset it to let the model read its bottle without a prompt"
		if plugin.active != "" && !strings.HasPrefix(off, allowReadsEnv) {
			todo = "claude plugin configure " + plugin.active + " to turn it on"
		}
		return checkLine{statusWarn, what + "not pre-approved: " + off + "; Claude Code asks before each Read of a bottle (and -p mode refuses it)", todo}
	}
	how := allowReadsEnv + "=0"
	if plugin.active != "" {
		how += " or the plugin option " + allowReadsOption + "=false"
	}
	return checkLine{statusOK, what + "allowed without a prompt (the PreToolUse hook: a Read of a file in " + env.BottlesDir() + ", bottle's MCP tools); off with " + how, ""}
}

// optionOff reports whether a userConfig value as settings hold it turns
// a boolean option off: false, 0, or a string that says off.
func optionOff(raw []byte) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case bool:
		return !v
	case float64:
		return v == 0
	case string:
		return permit.IsOff(v)
	}
	return false
}

// distinctCommands lists the different commands of regs, each with where it
// is registered, in order.
func distinctCommands(regs []claudesettings.Registration) []string {
	var cmds, out []string
	for _, r := range regs {
		if slices.Contains(cmds, r.Command) {
			continue
		}
		cmds = append(cmds, r.Command)
		out = append(out, string(r.Scope)+": "+r.Command)
	}
	return out
}

// sameFile reports whether a and b are one file, through symlinks.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return cleanAbs(a) == cleanAbs(b)
	}
	return os.SameFile(fa, fb)
}

// serverRank orders the server's registrations: ~/.claude.json's (user,
// then local) before the project's .mcp.json.
var serverRank = map[claudesettings.Scope]int{claudesettings.User: 0, claudesettings.Local: 1, claudesettings.Project: 2}

// precedence is the order in which Claude Code picks one of several
// servers of the same name: local, then project, then user.
var precedence = []claudesettings.Scope{claudesettings.Local, claudesettings.Project, claudesettings.User}

// checkServer reports the MCP configs it cannot read, where the "bottle" MCP
// server is registered, and whether the binary it runs is there. In a clone
// of bottle (project), the committed .mcp.json's server is the development
// server; elsewhere, registrations in several scopes with different commands
// are flagged, as Claude Code starts only one of them.
func checkServer(regs []claudesettings.Registration, problems []claudesettings.Problem, project string, g goDirs, plugin pluginView) []checkLine {
	label := "MCP server \"" + claudesettings.ServerName + "\""
	var broken []string
	var lines []checkLine
	for _, p := range problems {
		if p.Settings || p.Kind != claudesettings.Unreadable && p.Kind != claudesettings.Malformed {
			continue
		}
		lines = append(lines, checkLine{statusWarn, "MCP config " + p.Path + ": " + oneLineErr(p.Err), "fix it: Claude Code may ignore the whole file"})
		broken = append(broken, p.Path)
	}
	var servers []claudesettings.Registration
	for _, r := range regs {
		if r.IsServer() {
			servers = append(servers, r)
		}
	}
	slices.SortStableFunc(servers, func(a, b claudesettings.Registration) int { return serverRank[a.Scope] - serverRank[b.Scope] })
	if len(servers) == 0 && len(broken) > 0 {
		return append(lines, checkLine{statusWarn, label + ": not found in the MCP configs that could be read; " + strings.Join(broken, ", ") + " could not (see above)",
			"fix it, then run hookbin doctor again"})
	}
	switch {
	case len(servers) == 0 && plugin.active != "":
		return append(lines, checkLine{statusOK, "MCP server \"" + pluginServer + "\": from the plugin " + plugin.active + " (.mcp.json)", ""})
	case len(servers) == 0 && plugin.unreadable != "":
		return append(lines, checkLine{statusWarn, label + ": not registered in an MCP config; the plugin's may serve it, but whether the plugin is enabled cannot be read until " +
			plugin.unreadable + " is fixed", "fix it, then run hookbin doctor again"})
	case len(servers) == 0 && plugin.installed != "":
		return append(lines, checkLine{statusWarn, label + ": not registered: the plugin " + plugin.installed + " is installed but disabled",
			"enable it: claude plugin enable " + plugin.installed})
	case len(servers) == 0:
		return append(lines, checkLine{statusWarn, label + ": not registered",
			"run: hookbin install (without it the model cannot expand [#id] lines or page a bottle)"})
	}
	wheres := make([]string, len(servers))
	for i, r := range servers {
		wheres[i] = string(r.Scope) + ": " + r.File
		if r.ProjectKey != "" {
			wheres[i] += " projects[" + r.ProjectKey + "]"
		}
	}
	for i, r := range servers {
		if r.Prog == "" {
			continue
		}
		if _, err := checkBinary("mcpserver", r.Prog); err != nil {
			return append(lines, checkLine{statusWarn, label + " (" + wheres[i] + ") runs " + r.Prog + ", which is missing or not executable",
				"rebuild it, or run hookbin install again"})
		}
		if place := goBuildPlace(r.Prog, g); place != "" {
			return append(lines, checkLine{statusWarn, label + " (" + wheres[i] + ") runs " + r.Prog + ", " + place,
				build + ", then run bin/hookbin install"})
		}
	}
	winner := servers[0]
	for _, s := range precedence {
		if i := slices.IndexFunc(servers, func(r claudesettings.Registration) bool { return r.Scope == s }); i >= 0 {
			winner = servers[i]
			break
		}
	}
	if i := slices.IndexFunc(servers, func(r claudesettings.Registration) bool { return isDevServer(r, project) }); i >= 0 {
		what := label + ": the development server of this clone (" + wheres[i] + " runs " + devWrapper + ")"
		if len(servers) == 1 {
			return append(lines, checkLine{statusOK, what, ""})
		}
		others := slices.Delete(slices.Clone(wheres), i, i+1)
		return append(lines, checkLine{statusOK, what + "; also registered (" + strings.Join(others, "; ") + ")",
			"Claude Code shows a scope conflict for \"" + claudesettings.ServerName + "\" here and starts the " + string(winner.Scope) + " one"})
	}
	if cmds := distinctCommands(servers); len(cmds) > 1 {
		return append(lines, checkLine{statusWarn, fmt.Sprintf("%s is registered in %d places with different commands (%s); Claude Code starts only the %s one (local > project > user)",
			label, len(servers), strings.Join(cmds, "; "), winner.Scope),
			"keep one: hookbin uninstall --scope SCOPE removes a scope's"})
	}
	return append(lines, checkLine{statusOK, label + ": registered (" + strings.Join(wheres, "; ") + ")", ""})
}

// devWrapper is the script the committed .mcp.json of bottle's repository
// runs: it builds mcpserver into the clone and starts it.
const devWrapper = "scripts/mcpserver-wrapper.sh"

// isDevServer reports whether r is the server of the .mcp.json committed in
// bottle's repository, and project a clone of it (its go.mod declares module
// bottle, and the wrapper script is there).
func isDevServer(r claudesettings.Registration, project string) bool {
	if r.Scope != claudesettings.Project || project == "" || !strings.HasSuffix(filepath.ToSlash(r.Command), "/"+devWrapper) {
		return false
	}
	if _, err := os.Stat(filepath.Join(project, filepath.FromSlash(devWrapper))); err != nil {
		return false
	}
	return isBottleClone(project)
}

// isBottleClone reports whether dir is a clone of bottle: its go.mod
// declares module bottle.
func isBottleClone(dir string) bool {
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == "bottle"
		}
	}
	return false
}

// checkLastRun reports the last line of the hook log.
func checkLastRun(env locate.Env) checkLine {
	path := env.LogPath()
	line, err := hooklog.Last(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && line == "":
		return checkLine{statusWarn, "last hook run: none logged yet (" + path + ")", "hooks log here once Claude Code runs them: start a session and send a prompt"}
	case err != nil:
		return checkLine{statusWarn, "last hook run: " + oneLineErr(err), ""}
	}
	e, ok := hooklog.Parse(line)
	if !ok {
		return checkLine{statusWarn, "last hook run: unreadable line in " + path, ""}
	}
	what := fmt.Sprintf("last hook run: %s %s: %s", e.Time.Local().Format("2006-01-02 15:04:05"), e.Hook, e.Outcome)
	if strings.HasPrefix(e.Outcome, "error") {
		return checkLine{statusWarn, what, "see " + path}
	}
	return checkLine{statusOK, what, ""}
}

// checkEndlessMode warns when claude-mem's own endless mode may write bottles
// into the same folder as bottle. claude-mem 13.25.3 has no such feature;
// its plans put bottles in
// <data>/bottles, bottle's default too. So any claude-mem setting whose name
// mentions ENDLESS or BOTTLE and is switched on counts.
func checkEndlessMode(env locate.Env) checkLine {
	files := []string{filepath.Join(env.Home, ".claude-mem", "settings.json")}
	if f := filepath.Join(env.DataDir(), "settings.json"); !slices.Contains(files, f) {
		files = append(files, f)
	}
	bottles := cleanAbs(env.BottlesDir())
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		var s map[string]any
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		if nested, ok := s["env"].(map[string]any); ok {
			for k, v := range nested {
				if _, dup := s[k]; !dup {
					s[k] = v
				}
			}
		}
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			up := strings.ToUpper(k)
			if !strings.Contains(up, "ENDLESS") && !strings.Contains(up, "BOTTLE") || !switchedOn(s[k]) {
				continue
			}
			theirs := filepath.Join(env.DataDir(), "bottles")
			if v, ok := s[k].(string); ok && strings.ContainsAny(v, `/\`) {
				theirs = v
				if rest, ok := strings.CutPrefix(v, "~/"); ok {
					theirs = filepath.Join(env.Home, rest)
				}
			}
			if cleanAbs(theirs) != bottles {
				return checkLine{statusOK, fmt.Sprintf("claude-mem endless mode: %s is set in %s, but bottle writes elsewhere (%s)", k, file, bottles), ""}
			}
			return checkLine{statusWarn, fmt.Sprintf("claude-mem endless mode: %s is set in %s; claude-mem may write its bottles into %s too", k, file, bottles),
				"turn one of the two off, or set BOTTLE_DIR to another folder"}
		}
	}
	return checkLine{statusOK, "claude-mem endless mode: off (no endless-mode or bottle setting in claude-mem's settings)", ""}
}

// switchedOn reports whether a settings value enables something.
func switchedOn(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "false", "0", "off", "no", "disabled", "none":
			return false
		}
		return true
	}
	return false
}

func cleanAbs(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return filepath.Clean(p)
}

// plural is "1 bottle", "2 bottles".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// oneLineErr is an error message on one line.
func oneLineErr(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
