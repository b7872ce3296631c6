package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"bottle/internal/claudesettings"
	"bottle/locate"
)

const installUsage = `usage: hookbin install [--scope user|project|local] [--dry-run] [--force] [--project DIR] [--hookbin PATH] [--mcpserver PATH]

Registers bottle in Claude Code: hooks SessionStart (compact|resume|fork), Stop,
SessionEnd, PreCompact and PreToolUse (^Read$|^mcp__bottle__: the model reads its
bottle without a permission prompt), which run
"<hookbin> session-start|stop|session-end|pre-compact|pre-tool-use", and the stdio
MCP server "bottle", which runs <mcpserver>. Every other setting, hook and MCP server is kept.
A file that changes is first copied to FILE.bak-<UTC yyyymmddThhmmssZ>. Running it again
changes nothing; running it from a new location replaces the old paths.

It refuses while bottle's Claude Code plugin (bottle@…) is enabled in any scope, since
Claude Code would run every hook twice and start two servers (--force installs anyway),
and it refuses binaries inside <config>/plugins/, which plugin updates orphan.

Scopes (<config> is $CLAUDE_CONFIG_DIR, else ~/.claude; ~/.claude.json becomes
$CLAUDE_CONFIG_DIR/.claude.json when that is set):
  user     <config>/settings.json + mcpServers in ~/.claude.json (default)
  project  <project>/.claude/settings.json + <project>/.mcp.json; both are usually
           committed, and they get this machine's absolute paths
  local    <project>/.claude/settings.local.json + projects["<project>"].mcpServers
           in ~/.claude.json

Flags:
`

const uninstallUsage = `usage: hookbin uninstall [--scope user|project|local] [--dry-run] [--project DIR]

Removes what "hookbin install" registered for a scope: the hook handlers that run
"hookbin session-start|stop|session-end|pre-compact|pre-tool-use" (from any path) and the MCP server "bottle" when
its command is an mcpserver binary (a "bottle" server that runs something else, such as a
wrapper script in a clone of bottle, is kept). Matcher groups, event lists and containers
left empty by the removal are removed too. A file that changes is first copied to
FILE.bak-<UTC yyyymmddThhmmssZ>.

Flags:
`

// installConfig is what the install and uninstall flags say.
type installConfig struct {
	// scope is user, project or local.
	scope string
	// dryRun prints the planned changes and writes nothing.
	dryRun bool
	// project is the project directory of the project and local scopes ("" = cwd).
	project string
	// hookbin and mcpserver override the binaries install registers.
	hookbin, mcpserver string
	// force installs although bottle's plugin is enabled.
	force bool
}

func parseInstallFlags(name string, args []string, stdout io.Writer) (cfg installConfig, help bool, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&cfg.scope, "scope", "user", "where to register: `user`, project or local")
	fs.BoolVar(&cfg.dryRun, "dry-run", false, "print what would change and write nothing")
	fs.StringVar(&cfg.project, "project", "", "project `dir` of the project and local scopes (default: the current directory)")
	text := uninstallUsage
	if name == "install" {
		text = installUsage
		fs.StringVar(&cfg.hookbin, "hookbin", "", "hookbin binary `path` to register (default: this binary, symlinks resolved)")
		fs.StringVar(&cfg.mcpserver, "mcpserver", "", "mcpserver binary `path` to register (default: beside hookbin, else on PATH)")
		fs.BoolVar(&cfg.force, "force", false, "install even though bottle's Claude Code plugin is enabled (every hook then runs twice)")
	}
	fs.Usage = func() {
		fmt.Fprint(stdout, text)
		printFlags(stdout, fs)
	}
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return cfg, true, nil // the flag package printed the usage
	}
	if err != nil {
		return cfg, false, flagError(err)
	}
	if len(pos) > 0 {
		return cfg, false, exitError{code: 2, msg: fmt.Sprintf("%s takes no arguments, got %q (run hookbin %s --help)", name, pos[0], name)}
	}
	switch cfg.scope {
	case "user", "project", "local":
	default:
		return cfg, false, exitError{code: 2, msg: fmt.Sprintf("unknown scope %q: use user, project or local", cfg.scope)}
	}
	return cfg, false, nil
}

func runInstall(ctx context.Context, d deps, args []string, env locate.Env, stdout, stderr io.Writer) error {
	isCodex, args, err := hostCheck(args)
	if err != nil {
		return err
	}
	if isCodex {
		return runInstallCodex(ctx, d, args, env, stdout, stderr)
	}
	cfg, help, err := parseInstallFlags("install", args, stdout)
	if err != nil || help {
		return err
	}
	g := findGoDirs(env)
	hookbin, mcpserver, err := findBinaries(cfg.hookbin, cfg.mcpserver, g, d.executable)
	if err != nil {
		return err
	}
	if err := refusePluginCache(hookbin, mcpserver, env); err != nil {
		return err
	}
	t, err := scopeTarget(cfg.scope, env, cfg.project)
	if err != nil {
		return err
	}
	if err := refuseBesidePlugin(env, cfg); err != nil {
		return err
	}
	edits, err := t.PlanInstall(hookbin, mcpserver)
	if err != nil {
		return err
	}
	for _, b := range []struct{ name, path string }{{"hookbin", hookbin}, {"mcpserver", mcpserver}} {
		if tmp := inTempDir(b.path); tmp != "" {
			fmt.Fprintf(stderr, "hookbin: warning: %s %s is in the temporary folder %s, which the system may clear, and bottle stops working with it. Build into a lasting folder (`go build -o bin/ ./hookbin ./mcpserver`) and install from there.\n",
				b.name, b.path, tmp)
		}
	}
	if cfg.scope == "project" && anyChanged(edits) {
		fmt.Fprintf(stderr, "hookbin: warning: %s and %s are usually committed; they now name this machine's binaries (%s, %s). Use --scope local for a personal install.\n",
			t.Settings, t.MCP, hookbin, mcpserver)
	}
	return finish(ctx, "install", cfg, edits, stdout)
}

func runUninstall(ctx context.Context, args []string, env locate.Env, stdout, stderr io.Writer) error {
	isCodex, args, err := hostCheck(args)
	if err != nil {
		return err
	}
	if isCodex {
		return runUninstallCodex(ctx, args, env, stdout)
	}
	cfg, help, err := parseInstallFlags("uninstall", args, stdout)
	if err != nil || help {
		return err
	}
	t, err := scopeTarget(cfg.scope, env, cfg.project)
	if err != nil {
		return err
	}
	edits, err := t.PlanUninstall()
	if err != nil {
		return err
	}
	return finish(ctx, "uninstall", cfg, edits, stdout)
}

// refuseBesidePlugin rejects a settings install while bottle's plugin is
// enabled in any scope (unless --force): Claude Code dedupes neither hooks
// nor servers across a plugin and settings, so every hook would run twice.
func refuseBesidePlugin(env locate.Env, cfg installConfig) error {
	if cfg.force {
		return nil
	}
	loc := claudesettings.Locations{ConfigDir: configDir(env)}
	if dir, err := projectDir(cfg.project); err == nil {
		loc.Project = dir
	}
	e, ok := loc.Plugins().AnyEnabled()
	if !ok {
		return nil
	}
	return fmt.Errorf("bottle is installed as the Claude Code plugin %s (enabled in %s); a settings install beside it would run every hook twice and start a second MCP server. "+
		"Keep the plugin, or switch: claude plugin disable %s, then hookbin install (--force installs anyway)", e.ID, e.File, e.ID)
}

// refusePluginCache rejects binaries in Claude Code's plugin folder: its
// copies are versioned, and an update or uninstall orphans the old one.
func refusePluginCache(hookbin, mcpserver string, env locate.Env) error {
	plugins := filepath.Join(configDir(env), "plugins")
	for _, b := range []struct{ name, path string }{{"hookbin", hookbin}, {"mcpserver", mcpserver}} {
		if within(b.path, plugins) {
			return fmt.Errorf("%s %s is inside Claude Code's plugin folder %s, whose versioned copies a plugin update or uninstall orphans; "+
				"use the plugin itself, or build lasting binaries (`go build -o bin/ ./hookbin ./mcpserver`) and install from there", b.name, b.path, plugins)
		}
	}
	return nil
}

// finish writes the planned edits (unless it is a dry run) and prints the summary.
func finish(ctx context.Context, cmd string, cfg installConfig, edits []*claudesettings.Edit, stdout io.Writer) error {
	next := "Next: restart Claude Code (running sessions keep their old hooks and MCP servers), then run `hookbin doctor`.\n"
	if cmd != "install" {
		next = "Next: restart Claude Code so running sessions drop bottle's hooks and MCP server.\n"
	}
	return report(ctx, cmd, "(scope "+cfg.scope+")", "--scope "+cfg.scope, cfg.dryRun, edits, next, stdout)
}

// report writes the planned edits (unless dry) and prints what changed:
// where says where bottle is (un)installed, flags how the command was
// called, and next is the line after a change.
func report(ctx context.Context, cmd, where, flags string, dry bool, edits []*claudesettings.Edit, next string, stdout io.Writer) error {
	changed := anyChanged(edits)
	var b strings.Builder
	switch {
	case !changed && cmd == "install":
		fmt.Fprintf(&b, "bottle is already installed %s; nothing changed.\n", where)
	case !changed:
		fmt.Fprintf(&b, "bottle is not installed %s; nothing changed.\n", where)
	case dry:
		fmt.Fprintf(&b, "dry run: hookbin %s %s would make these changes; nothing was written.\n", cmd, flags)
	default:
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := commitAll(edits); err != nil {
			return err
		}
		verb := "installed"
		if cmd == "uninstall" {
			verb = "uninstalled"
		}
		fmt.Fprintf(&b, "bottle %s %s.\n", verb, where)
	}
	for _, e := range edits {
		b.WriteString(summary(e, dry))
	}
	switch {
	case changed && dry:
		b.WriteString("Run it without --dry-run to apply.\n")
	case changed:
		b.WriteString(next)
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}

// commitAll writes every edit that changes its file, in order; a failure
// says which files were already written.
func commitAll(edits []*claudesettings.Edit) error {
	now := time.Now()
	for i, e := range edits {
		if !e.Changed() {
			continue
		}
		if err := e.Commit(now); err != nil {
			if errors.Is(err, claudesettings.ErrChanged) {
				err = fmt.Errorf("%s changed while hookbin was editing it; nothing was written to it, run the command again", e.Path)
			}
			if done := written(edits[:i]); done != "" {
				return fmt.Errorf("%w (already written: %s)", err, done)
			}
			return err
		}
	}
	return nil
}

func anyChanged(edits []*claudesettings.Edit) bool {
	for _, e := range edits {
		if e.Changed() {
			return true
		}
	}
	return false
}

func written(edits []*claudesettings.Edit) string {
	var paths []string
	for _, e := range edits {
		if e.Changed() {
			paths = append(paths, e.Path)
		}
	}
	return strings.Join(paths, ", ")
}

// ---- binaries ----

// findBinaries returns the absolute paths of the hookbin and mcpserver binaries
// to register: the flags when given, else this executable and the mcpserver
// beside it or on PATH (executable finds this one). It refuses binaries in
// Go's build folders (g).
func findBinaries(hookFlag, mcpFlag string, g goDirs, executable func() (string, error)) (hookbin, mcpserver string, err error) {
	if hookFlag != "" {
		if hookbin, err = checkBinary("hookbin", hookFlag); err != nil {
			return "", "", err
		}
	} else {
		exe, err := self(executable)
		if err != nil {
			return "", "", fmt.Errorf("find hookbin: %w (pass --hookbin PATH)", err)
		}
		hookbin = exe
	}
	if err := refuseGoBuild("hookbin", hookbin, g); err != nil {
		return "", "", err
	}
	switch {
	case mcpFlag != "":
		if mcpserver, err = checkBinary("mcpserver", mcpFlag); err != nil {
			return "", "", err
		}
	default:
		beside := filepath.Join(filepath.Dir(hookbin), "mcpserver"+exeSuffix())
		if _, err := checkBinary("mcpserver", beside); err == nil {
			mcpserver = beside
		} else if p, err := exec.LookPath("mcpserver"); err == nil {
			if mcpserver, err = filepath.Abs(p); err != nil {
				return "", "", fmt.Errorf("find mcpserver: %w", err)
			}
			if r, err := filepath.EvalSymlinks(mcpserver); err == nil {
				mcpserver = r
			}
		} else {
			return "", "", fmt.Errorf("mcpserver not found beside hookbin (%s) or on PATH: build both with `go build -o bin/ ./hookbin ./mcpserver`, or pass --mcpserver PATH", filepath.Dir(hookbin))
		}
	}
	if err := refuseGoBuild("mcpserver", mcpserver, g); err != nil {
		return "", "", err
	}
	return hookbin, mcpserver, nil
}

// self is the path of this binary (executable finds it), symlinks resolved.
func self(executable func() (string, error)) (string, error) {
	exe, err := executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(exe)
}

// checkBinary makes path absolute and checks that it is an executable file.
func checkBinary(name, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s binary: %w", name, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s binary %s is not a regular file", name, abs)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s binary %s is not executable", name, abs)
	}
	return abs, nil
}

// refuseGoBuild rejects a binary that lives where the go command builds and
// later deletes binaries (see goBuildPlace): hooks registered there break
// without a word once Go cleans up.
func refuseGoBuild(name, path string, g goDirs) error {
	place := goBuildPlace(path, g)
	if place == "" {
		return nil
	}
	return fmt.Errorf("%s %s is %s; build the binaries with `go build -o bin/ ./hookbin ./mcpserver`, then run `bin/hookbin install`", name, path, place)
}

// goDirs are the folders the go command builds in. They are found without
// running go: $GOCACHE, else the default cache folder, and $GOTMPDIR. A
// setting made with "go env -w" is not seen, but the cache's layout is
// recognised wherever it is (goBuildPlace).
type goDirs struct {
	// cache is the build cache ("" when off or unknown).
	cache string
	// tmp is $GOTMPDIR ("" when unset: builds go to the system's temporary
	// folder, in go-build* folders).
	tmp string
}

// findGoDirs finds the go command's build folders from env.
func findGoDirs(env locate.Env) goDirs {
	g := goDirs{tmp: env.Get("GOTMPDIR")}
	if c := env.Get("GOCACHE"); c != "" {
		if filepath.IsAbs(c) { // go treats "off" and relative paths as no cache
			g.cache = c
		}
	} else if d := userCacheDir(env); d != "" {
		g.cache = filepath.Join(d, "go-build")
	}
	if !filepath.IsAbs(g.tmp) {
		g.tmp = ""
	}
	return g
}

// userCacheDir is os.UserCacheDir read through env, so that tests can move it.
func userCacheDir(env locate.Env) string {
	var d string
	switch runtime.GOOS {
	case "windows":
		d = env.Get("LocalAppData")
	case "darwin", "ios":
		if env.Home != "" {
			d = filepath.Join(env.Home, "Library", "Caches")
		}
	case "plan9":
		if env.Home != "" {
			d = filepath.Join(env.Home, "lib", "cache")
		}
	default:
		d = env.Get("XDG_CACHE_HOME")
		if !filepath.IsAbs(d) && env.Home != "" {
			d = filepath.Join(env.Home, ".cache")
		}
	}
	if !filepath.IsAbs(d) {
		return ""
	}
	return d
}

// goBuildPlace says where in the go command's build folders path lives, or
// returns "" when it is elsewhere. Those places are: the work folder of a
// first "go run" (…/go-build*/b*/exe/NAME), deleted when the command exits;
// an executable in the build cache (<cache>/xx/<xx…hex>-d/NAME), which a
// repeated "go run" runs and "go clean -cache" or the cache's trimming
// deletes; and anything under $GOTMPDIR.
func goBuildPlace(path string, g goDirs) string {
	segs := strings.FieldsFunc(path, func(r rune) bool { return r == '/' || r == '\\' })
	for i := 0; i+3 < len(segs); i++ {
		if strings.HasPrefix(segs[i], "go-build") && isBuildAction(segs[i+1]) && segs[i+2] == "exe" {
			return "a temporary \"go run\" build (…/go-build…/exe/) that Go deletes on exit"
		}
	}
	const cached = "a \"go run\" binary in Go's build cache, which `go clean -cache` deletes"
	if n := len(segs); n >= 3 && isCacheEntry(segs[n-3], segs[n-2]) {
		return cached
	}
	if within(path, g.cache) {
		return cached + " (" + g.cache + ")"
	}
	if within(path, g.tmp) {
		return "in $GOTMPDIR (" + g.tmp + "), Go's scratch folder for builds"
	}
	return ""
}

// isBuildAction reports whether s names an action's folder in a go-build
// work folder: b001, b042, …
func isBuildAction(s string) bool {
	return len(s) > 1 && s[0] == 'b' && strings.Trim(s[1:], "0123456789") == ""
}

// isCacheEntry reports whether dir/entry is a build cache entry: a folder
// named by the entry's first byte in hex, holding <hex>-d.
func isCacheEntry(dir, entry string) bool {
	hex, ok := strings.CutSuffix(entry, "-d")
	return ok && len(dir) == 2 && len(hex) >= 16 && strings.HasPrefix(hex, dir) &&
		strings.Trim(hex, "0123456789abcdef") == ""
}

// inTempDir returns the system's temporary folder when path is under it,
// else "". Binaries there work, and tests install from there, but the
// system may clear it.
func inTempDir(path string) string {
	if tmp := os.TempDir(); within(path, tmp) {
		return tmp
	}
	return ""
}

// within reports whether path lies under the folder dir ("" is no folder),
// as written or with symlinks resolved (macOS's /var is /private/var).
func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	under := func(p, d string) bool {
		rel, err := filepath.Rel(d, p)
		return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	}
	p, d := cleanAbs(path), cleanAbs(dir)
	if under(p, d) {
		return true
	}
	rp, err1 := filepath.EvalSymlinks(p)
	rd, err2 := filepath.EvalSymlinks(d)
	if err1 != nil {
		rp = p
	}
	if err2 != nil {
		rd = d
	}
	return under(rp, rd)
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// summary describes what happened (or, in a dry run, would happen) to the file.
func summary(e *claudesettings.Edit, dryRun bool) string {
	var b strings.Builder
	switch {
	case !e.Changed():
		fmt.Fprintf(&b, "  unchanged %s\n", e.Path)
	case dryRun && e.Existed:
		fmt.Fprintf(&b, "  would update %s (after a backup)\n", e.Path)
	case dryRun:
		fmt.Fprintf(&b, "  would create %s\n", e.Path)
	case e.Existed:
		fmt.Fprintf(&b, "  updated %s (backup: %s)\n", e.Path, e.Backup)
	default:
		fmt.Fprintf(&b, "  created %s\n", e.Path)
	}
	for _, n := range e.Notes {
		fmt.Fprintf(&b, "    %s\n", n)
	}
	return b.String()
}
