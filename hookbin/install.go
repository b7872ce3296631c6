package main

import (
	"bytes"
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
	"strconv"
	"strings"
	"time"

	"bottle/internal/atomicfile"
	"bottle/render"
)

// serverName is the MCP server name bottle registers; the model sees its
// tools as mcp__bottle__<tool>.
const serverName = "bottle"

// hookSpec is one Claude Code hook that bottle registers.
type hookSpec struct {
	event   string // Claude Code hook event
	matcher string // matcher of the group; "" means the group has no matcher (every occurrence)
	sub     string // hookbin subcommand
	timeout int    // seconds (the unit of Claude Code's "timeout" field for command hooks)
}

// bottleHooks are the hooks install registers. All are synchronous: "claude -p"
// kills async hooks within milliseconds of the end of a run.
var bottleHooks = []hookSpec{
	{event: "SessionStart", matcher: "compact|resume|fork", sub: "session-start", timeout: 10},
	{event: "Stop", sub: "stop", timeout: 5},
	{event: "SessionEnd", sub: "session-end", timeout: 2},
}

const installUsage = `usage: hookbin install [--scope user|project|local] [--dry-run] [--project DIR] [--hookbin PATH] [--mcpserver PATH]

Registers bottle in Claude Code: hooks SessionStart (compact|resume|fork), Stop and
SessionEnd, which run "<hookbin> session-start|stop|session-end", and the stdio MCP
server "bottle", which runs <mcpserver>. Every other setting, hook and MCP server is kept.
A file that changes is first copied to FILE.bak-<UTC yyyymmddThhmmssZ>. Running it again
changes nothing; running it from a new location replaces the old paths.

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
"hookbin session-start|stop|session-end" (from any path) and the MCP server "bottle" when
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
	}
	fs.Usage = func() {
		fmt.Fprint(stdout, text)
		fs.PrintDefaults()
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

func runInstall(ctx context.Context, args []string, env render.Env, stdout, stderr io.Writer) error {
	cfg, help, err := parseInstallFlags("install", args, stdout)
	if err != nil || help {
		return err
	}
	hookbin, mcpserver, err := findBinaries(cfg.hookbin, cfg.mcpserver)
	if err != nil {
		return err
	}
	t, err := scopeTargets(cfg.scope, env, cfg.project)
	if err != nil {
		return err
	}
	hookCmd := hookCommand(hookbin)
	edits, err := planEdits([]plannedEdit{
		{t.settings, t.settingsDirPerm, func(doc *object) ([]string, error) { return installHooks(doc, hookCmd) }},
		{t.mcp, t.mcpDirPerm, func(doc *object) ([]string, error) { return installServer(doc, t.projectKeys, mcpserver) }},
	})
	if err != nil {
		return err
	}
	if cfg.scope == "project" && anyChanged(edits) {
		fmt.Fprintf(stderr, "hookbin: warning: %s and %s are usually committed; they now name this machine's binaries (%s, %s). Use --scope local for a personal install.\n",
			t.settings, t.mcp, hookbin, mcpserver)
	}
	return finish(ctx, "install", cfg, edits, stdout)
}

func runUninstall(ctx context.Context, args []string, env render.Env, stdout, stderr io.Writer) error {
	cfg, help, err := parseInstallFlags("uninstall", args, stdout)
	if err != nil || help {
		return err
	}
	t, err := scopeTargets(cfg.scope, env, cfg.project)
	if err != nil {
		return err
	}
	edits, err := planEdits([]plannedEdit{
		{t.settings, t.settingsDirPerm, removeHooks},
		{t.mcp, t.mcpDirPerm, func(doc *object) ([]string, error) { return removeServer(doc, t.projectKeys) }},
	})
	if err != nil {
		return err
	}
	return finish(ctx, "uninstall", cfg, edits, stdout)
}

// finish writes the planned edits (unless it is a dry run) and prints the summary.
func finish(ctx context.Context, cmd string, cfg installConfig, edits []*fileEdit, stdout io.Writer) error {
	changed := anyChanged(edits)
	var b strings.Builder
	switch {
	case !changed && cmd == "install":
		fmt.Fprintf(&b, "bottle is already installed (scope %s); nothing changed.\n", cfg.scope)
	case !changed:
		fmt.Fprintf(&b, "bottle is not installed (scope %s); nothing changed.\n", cfg.scope)
	case cfg.dryRun:
		fmt.Fprintf(&b, "dry run: hookbin %s --scope %s would make these changes; nothing was written.\n", cmd, cfg.scope)
	default:
		if err := ctx.Err(); err != nil {
			return err
		}
		now := time.Now()
		for i, e := range edits {
			if !e.changed() {
				continue
			}
			if err := e.commit(now); err != nil {
				if done := written(edits[:i]); done != "" {
					return fmt.Errorf("%w (already written: %s)", err, done)
				}
				return err
			}
		}
		verb := "installed"
		if cmd == "uninstall" {
			verb = "uninstalled"
		}
		fmt.Fprintf(&b, "bottle %s (scope %s).\n", verb, cfg.scope)
	}
	for _, e := range edits {
		b.WriteString(e.summary(cfg.dryRun))
	}
	if changed {
		switch {
		case cfg.dryRun:
			fmt.Fprintf(&b, "Run it without --dry-run to apply.\n")
		case cmd == "install":
			fmt.Fprintf(&b, "Next: restart Claude Code (running sessions keep their old hooks and MCP servers), then run `hookbin doctor`.\n")
		default:
			fmt.Fprintf(&b, "Next: restart Claude Code so running sessions drop bottle's hooks and MCP server.\n")
		}
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}

func anyChanged(edits []*fileEdit) bool {
	for _, e := range edits {
		if e.changed() {
			return true
		}
	}
	return false
}

func written(edits []*fileEdit) string {
	var paths []string
	for _, e := range edits {
		if e.changed() {
			paths = append(paths, e.path)
		}
	}
	return strings.Join(paths, ", ")
}

// ---- binaries ----

// findBinaries returns the absolute paths of the hookbin and mcpserver binaries
// to register: the flags when given, else this executable and the mcpserver
// beside it or on PATH.
func findBinaries(hookFlag, mcpFlag string) (hookbin, mcpserver string, err error) {
	if hookFlag != "" {
		if hookbin, err = checkBinary("hookbin", hookFlag); err != nil {
			return "", "", err
		}
	} else {
		exe, err := os.Executable()
		if err != nil {
			return "", "", fmt.Errorf("find hookbin: %w (pass --hookbin PATH)", err)
		}
		if exe, err = filepath.EvalSymlinks(exe); err != nil {
			return "", "", fmt.Errorf("find hookbin: %w (pass --hookbin PATH)", err)
		}
		hookbin = exe
	}
	if err := refuseGoRun("hookbin", hookbin); err != nil {
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
	if err := refuseGoRun("mcpserver", mcpserver); err != nil {
		return "", "", err
	}
	return hookbin, mcpserver, nil
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

// refuseGoRun rejects a binary that "go run" built into a temporary directory
// (…/go-build…/exe/), which Go deletes when the command exits.
func refuseGoRun(name, path string) error {
	if !inGoRunDir(path) {
		return nil
	}
	return fmt.Errorf("%s is a temporary \"go run\" build (%s) that Go deletes on exit; build the binaries with `go build -o bin/ ./hookbin ./mcpserver`, then run `bin/hookbin install`", name, path)
}

func inGoRunDir(path string) bool {
	p := strings.ReplaceAll(path, `\`, "/")
	return strings.Contains(p, "/go-build") && strings.Contains(p, "/exe/")
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// ---- where each scope writes ----

// targets names the files a scope edits.
type targets struct {
	settings        string      // Claude Code settings file that holds the hooks
	mcp             string      // MCP config file that holds the server
	projectKeys     []string    // local scope: keys of the project's entry in projects, preferred first; nil = top-level mcpServers
	settingsDirPerm fs.FileMode // mode of a settings directory created on the way
	mcpDirPerm      fs.FileMode
}

func scopeTargets(scope string, env render.Env, projectFlag string) (targets, error) {
	if scope == "user" {
		cj, err := claudeJSON(env)
		if err != nil {
			return targets{}, err
		}
		return targets{
			settings:        filepath.Join(configDir(env), "settings.json"),
			mcp:             cj,
			settingsDirPerm: 0o700,
			mcpDirPerm:      0o700,
		}, nil
	}
	dir, keys, err := projectDir(projectFlag)
	if err != nil {
		return targets{}, err
	}
	if scope == "project" {
		return targets{
			settings:        filepath.Join(dir, ".claude", "settings.json"),
			mcp:             filepath.Join(dir, ".mcp.json"),
			settingsDirPerm: 0o755,
			mcpDirPerm:      0o755,
		}, nil
	}
	cj, err := claudeJSON(env)
	if err != nil {
		return targets{}, err
	}
	return targets{
		settings:        filepath.Join(dir, ".claude", "settings.local.json"),
		mcp:             cj,
		projectKeys:     keys,
		settingsDirPerm: 0o755,
		mcpDirPerm:      0o700,
	}, nil
}

func getenv(env render.Env, k string) string {
	if env.Getenv == nil {
		return ""
	}
	return env.Getenv(k)
}

// configDir is env.ConfigDir made absolute.
func configDir(env render.Env) string {
	d := env.ConfigDir()
	if abs, err := filepath.Abs(d); err == nil {
		return abs
	}
	return d
}

// claudeJSON is Claude Code's global config file: ~/.claude.json, or
// $CLAUDE_CONFIG_DIR/.claude.json when that variable is set.
func claudeJSON(env render.Env) (string, error) {
	if getenv(env, "CLAUDE_CONFIG_DIR") != "" {
		return filepath.Join(configDir(env), ".claude.json"), nil
	}
	if env.Home == "" {
		return "", errors.New("home directory unknown: set HOME (or CLAUDE_CONFIG_DIR)")
	}
	return filepath.Join(env.Home, ".claude.json"), nil
}

// projectDir returns the absolute project directory and the keys Claude Code
// may file it under in ~/.claude.json: the physical path first (Node's
// process.cwd() resolves symlinks), then the path as given. On Windows the keys
// use forward slashes, as Claude Code writes them.
func projectDir(flagDir string) (dir string, keys []string, err error) {
	dir = flagDir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return "", nil, fmt.Errorf("project dir: %w (pass --project DIR)", err)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", nil, fmt.Errorf("project dir: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", nil, fmt.Errorf("project dir: %w", err)
	}
	if !fi.IsDir() {
		return "", nil, fmt.Errorf("project dir %s is not a directory", dir)
	}
	phys := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		phys = r
	}
	keys = []string{filepath.ToSlash(phys)}
	if phys != dir {
		keys = append(keys, filepath.ToSlash(dir))
	}
	return dir, keys, nil
}

// ---- planning and writing files ----

// plannedEdit is one change to one JSON file.
type plannedEdit struct {
	path    string
	dirPerm fs.FileMode
	apply   func(doc *object) (notes []string, err error)
}

// fileEdit is a JSON config file read, edited in memory and maybe written.
type fileEdit struct {
	path    string      // path as configured
	real    string      // path read and written (symlinks resolved)
	dirPerm fs.FileMode // mode of directories created for a new file
	existed bool
	mode    fs.FileMode // permissions kept on rewrite (0600 for a new file)
	orig    []byte      // bytes read
	before  []byte      // canonical encoding of the parsed original
	after   []byte      // canonical encoding after the edit
	notes   []string    // human-readable changes
	backup  string      // backup written by commit
}

func (e *fileEdit) changed() bool { return !bytes.Equal(e.before, e.after) }

// planEdits reads and edits every file in memory. It fails, having written
// nothing, if any file cannot be read or is not a JSON object.
func planEdits(planned []plannedEdit) ([]*fileEdit, error) {
	var edits []*fileEdit
	docs := map[string]*object{}
	for _, p := range planned {
		var e *fileEdit
		for _, prev := range edits {
			if prev.path == p.path {
				e = prev
			}
		}
		if e == nil {
			var doc *object
			var err error
			if e, doc, err = loadFile(p.path); err != nil {
				return nil, err
			}
			e.dirPerm = p.dirPerm
			docs[p.path] = doc
			edits = append(edits, e)
		}
		notes, err := p.apply(docs[p.path])
		if err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", p.path, err)
		}
		e.notes = append(e.notes, notes...)
	}
	for _, e := range edits {
		e.after = encodeFile(docs[e.path])
	}
	return edits, nil
}

func loadFile(path string) (*fileEdit, *object, error) {
	e := &fileEdit{path: path, real: path, mode: 0o600}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if e.real, err = filepath.EvalSymlinks(path); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	fi, err := os.Stat(e.real)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc := newObject()
		e.before = encodeFile(doc)
		return e, doc, nil
	case err != nil:
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return nil, nil, fmt.Errorf("%s is not a regular file; nothing was changed", path)
	}
	data, err := os.ReadFile(e.real)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	doc, err := parseFile(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w; fix or move the file, nothing was changed", path, err)
	}
	e.existed, e.mode, e.orig = true, fi.Mode().Perm(), data
	e.before = encodeFile(doc)
	return e, doc, nil
}

// parseFile parses a config file that must hold one JSON object; an empty
// file counts as an empty object.
func parseFile(data []byte) (*object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	doc, err := decodeObject(data)
	if err != nil {
		return nil, errors.New("not a JSON object")
	}
	return doc, nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - (bytes.LastIndexByte(before, '\n') + 1) // Offset counts the bad byte
	return line, col
}

// commit backs up the original file (if any) and replaces it atomically.
func (e *fileEdit) commit(now time.Time) error {
	cur, err := os.ReadFile(e.real)
	switch {
	case err == nil && e.existed && bytes.Equal(cur, e.orig):
	case errors.Is(err, fs.ErrNotExist) && !e.existed:
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read %s: %w", e.path, err)
	default:
		return fmt.Errorf("%s changed while hookbin was editing it; nothing was written to it, run the command again", e.path)
	}
	if e.existed {
		if e.backup, err = writeBackup(e.real, e.orig, e.mode, now); err != nil {
			return err
		}
	} else if err := os.MkdirAll(filepath.Dir(e.real), e.dirPerm); err != nil {
		return fmt.Errorf("create %s: %w", e.path, err)
	}
	if err := atomicfile.WriteFile(e.real, e.after, e.mode); err != nil {
		return fmt.Errorf("write %s: %w", e.path, err)
	}
	return nil
}

// writeBackup copies data to path.bak-<UTC yyyymmddThhmmssZ>, adding -2, -3, …
// when that name is taken, and returns the backup's path.
func writeBackup(path string, data []byte, perm fs.FileMode, now time.Time) (string, error) {
	base := path + ".bak-" + now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups named %s*", path, base)
}

// summary describes what happened (or, in a dry run, would happen) to the file.
func (e *fileEdit) summary(dryRun bool) string {
	var b strings.Builder
	switch {
	case !e.changed():
		fmt.Fprintf(&b, "  unchanged %s\n", e.path)
	case dryRun && e.existed:
		fmt.Fprintf(&b, "  would update %s (after a backup)\n", e.path)
	case dryRun:
		fmt.Fprintf(&b, "  would create %s\n", e.path)
	case e.existed:
		fmt.Fprintf(&b, "  updated %s (backup: %s)\n", e.path, e.backup)
	default:
		fmt.Fprintf(&b, "  created %s\n", e.path)
	}
	for _, n := range e.notes {
		fmt.Fprintf(&b, "    %s\n", n)
	}
	return b.String()
}

// ---- hooks ----

// hookCommand is the command line of a hook handler minus its subcommand:
// the absolute hookbin path, quoted for sh (Claude Code runs a command without
// "args" under sh -c, or Git Bash on Windows, where it gets forward slashes).
func hookCommand(hookbin string) string {
	if runtime.GOOS == "windows" {
		hookbin = filepath.ToSlash(hookbin)
	}
	return shellQuote(hookbin)
}

func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-+=.,:/@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// handlerFields are the fields of a hook handler that identify bottle's own.
type handlerFields struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// ownSub reports whether a hook handler is one of bottle's: a command handler
// running "<any path>/hookbin[.exe] session-start|stop|session-end", in shell
// form or exec form ("args"), and returns the subcommand.
func ownSub(raw json.RawMessage) (string, bool) {
	var h handlerFields
	if json.Unmarshal(raw, &h) != nil || (h.Type != "" && h.Type != "command") {
		return "", false
	}
	prog, sub := strings.TrimSpace(h.Command), ""
	switch len(h.Args) {
	case 0:
		i := strings.LastIndexAny(prog, " \t")
		if i < 0 {
			return "", false
		}
		prog, sub = strings.TrimSpace(prog[:i]), prog[i+1:]
		prog = unquote(prog)
	case 1:
		sub = h.Args[0]
	default:
		return "", false
	}
	if !isBinary(prog, "hookbin") {
		return "", false
	}
	for _, s := range bottleHooks {
		if s.sub == sub {
			return sub, true
		}
	}
	return "", false
}

// unquote strips one pair of sh quotes, undoing shellQuote.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'' || s[0] == '"' && s[len(s)-1] == '"') {
		inner := s[1 : len(s)-1]
		if s[0] == '\'' {
			inner = strings.ReplaceAll(inner, `'\''`, "'")
		}
		return inner
	}
	return s
}

// isBinary reports whether path names the binary name (with or without .exe,
// in any directory and with either separator).
func isBinary(path, name string) bool {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".exe") {
		base = base[:len(base)-4]
	}
	return base == name
}

// handlerText is how a handler is shown in the summary.
func handlerText(raw json.RawMessage) string {
	var h handlerFields
	_ = json.Unmarshal(raw, &h)
	return strings.Join(append([]string{h.Command}, h.Args...), " ")
}

func hookLabel(event, matcher string) string {
	if matcher == "" {
		return "hooks." + event
	}
	return "hooks." + event + " [" + matcher + "]"
}

// sameMatcher reports whether a matcher group's matcher is the one bottle uses
// for spec ("", "*" and no matcher all mean every occurrence).
func sameMatcher(grp *object, matcher string) bool {
	var m string
	if raw, ok := grp.get("matcher"); ok {
		if json.Unmarshal(raw, &m) != nil {
			return false
		}
	}
	if matcher == "" {
		return m == "" || m == "*"
	}
	return m == matcher
}

// parseGroup splits a matcher group into the group object and its handlers;
// ok is false for anything that is not a well-formed group.
func parseGroup(raw json.RawMessage) (grp *object, handlers []json.RawMessage, ok bool) {
	grp, err := decodeObject(raw)
	if err != nil {
		return nil, nil, false
	}
	hraw, found := grp.get("hooks")
	if !found || json.Unmarshal(hraw, &handlers) != nil {
		return nil, nil, false
	}
	return grp, handlers, true
}

// installHooks puts bottle's handlers into the "hooks" object of a settings file.
func installHooks(doc *object, hookCmd string) ([]string, error) {
	hooks, err := childObject(doc, "hooks", "hooks")
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, spec := range bottleHooks {
		var groups []json.RawMessage
		if raw, ok := hooks.get(spec.event); ok && !isNull(raw) {
			if json.Unmarshal(raw, &groups) != nil {
				return nil, fmt.Errorf("hooks.%s is not a JSON array", spec.event)
			}
		}
		groups, n := placeHook(groups, spec, hookCmd+" "+spec.sub)
		notes = append(notes, n...)
		hooks.set(spec.event, marshalArray(groups))
	}
	doc.set("hooks", hooks.raw())
	return notes, nil
}

// placeHook leaves exactly one bottle handler for spec among an event's
// matcher groups. An existing handler in a group with bottle's matcher is
// updated in place; any other bottle handler in the event (an old matcher, a
// duplicate, a wrong subcommand) is removed, with its group when that group
// holds nothing else; without an existing handler a new group is appended.
// Foreign groups and handlers keep their content and order.
func placeHook(groups []json.RawMessage, spec hookSpec, cmd string) ([]json.RawMessage, []string) {
	home := -1
	for i, g := range groups {
		grp, hs, ok := parseGroup(g)
		if !ok || !sameMatcher(grp, spec.matcher) {
			continue
		}
		for _, h := range hs {
			if sub, own := ownSub(h); own && sub == spec.sub {
				home = i
				break
			}
		}
		if home >= 0 {
			break
		}
	}
	label := hookLabel(spec.event, spec.matcher)
	var notes []string
	out := make([]json.RawMessage, 0, len(groups)+1)
	placed := false
	for i, g := range groups {
		grp, hs, ok := parseGroup(g)
		if !ok {
			out = append(out, g)
			continue
		}
		kept := make([]json.RawMessage, 0, len(hs))
		touched := false
		for _, h := range hs {
			sub, own := ownSub(h)
			switch {
			case !own:
				kept = append(kept, h)
			case i == home && sub == spec.sub && !placed:
				nh := mergeHandler(h, cmd, spec.timeout)
				if !sameJSON(nh, h) {
					notes = append(notes, fmt.Sprintf("~ %s: was %s; now %s (timeout %d s)", label, handlerText(h), cmd, spec.timeout))
					touched = true
				}
				kept = append(kept, nh)
				placed = true
			default:
				notes = append(notes, fmt.Sprintf("- %s: %s (stale or duplicate)", hookLabel(spec.event, matcherOf(grp)), handlerText(h)))
				touched = true
			}
		}
		switch {
		case !touched:
			out = append(out, g)
		case len(kept) > 0:
			grp.set("hooks", marshalArray(kept))
			out = append(out, grp.raw())
		}
	}
	if !placed {
		grp := newObject()
		if spec.matcher != "" {
			grp.set("matcher", jsonValue(spec.matcher))
		}
		grp.set("hooks", marshalArray([]json.RawMessage{mergeHandler(nil, cmd, spec.timeout)}))
		out = append(out, grp.raw())
		notes = append(notes, fmt.Sprintf("+ %s: %s (timeout %d s)", label, cmd, spec.timeout))
	}
	return out, notes
}

func matcherOf(grp *object) string {
	var m string
	if raw, ok := grp.get("matcher"); ok {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// mergeHandler returns bottle's handler, keeping any extra fields of an
// existing one (a statusMessage, say) but never "async" or "args".
func mergeHandler(old json.RawMessage, cmd string, timeout int) json.RawMessage {
	h := newObject()
	if old != nil {
		if o, err := decodeObject(old); err == nil {
			h = o
		}
	}
	h.set("type", jsonValue("command"))
	h.set("command", jsonValue(cmd))
	h.set("timeout", jsonValue(timeout))
	h.del("async")
	h.del("args")
	return h.raw()
}

// removeHooks takes bottle's handlers out of every event of a settings file.
// Groups, event lists and the "hooks" object left empty by the removal go too.
func removeHooks(doc *object) ([]string, error) {
	raw, ok := doc.get("hooks")
	if !ok || isNull(raw) {
		return nil, nil
	}
	hooks, err := decodeObject(raw)
	if err != nil {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	var notes []string
	for _, event := range append([]string(nil), hooks.keys...) {
		var groups []json.RawMessage
		if json.Unmarshal(hooks.vals[event], &groups) != nil {
			continue
		}
		out := make([]json.RawMessage, 0, len(groups))
		removed := false
		for _, g := range groups {
			grp, hs, ok := parseGroup(g)
			if !ok {
				out = append(out, g)
				continue
			}
			kept := make([]json.RawMessage, 0, len(hs))
			for _, h := range hs {
				if _, own := ownSub(h); own {
					notes = append(notes, fmt.Sprintf("- %s: %s", hookLabel(event, matcherOf(grp)), handlerText(h)))
					continue
				}
				kept = append(kept, h)
			}
			switch {
			case len(kept) == len(hs):
				out = append(out, g)
			case len(kept) > 0:
				grp.set("hooks", marshalArray(kept))
				out = append(out, grp.raw())
				removed = true
			default:
				removed = true
			}
		}
		switch {
		case !removed:
		case len(out) == 0:
			hooks.del(event)
		default:
			hooks.set(event, marshalArray(out))
		}
	}
	if len(notes) == 0 {
		return nil, nil
	}
	if len(hooks.keys) == 0 {
		doc.del("hooks")
	} else {
		doc.set("hooks", hooks.raw())
	}
	return notes, nil
}

// ---- MCP server ----

// serverFields are the fields of an MCP server entry bottle looks at.
type serverFields struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// serversPath is the printable path of the mcpServers object.
func serversPath(projectKey string) string {
	if projectKey == "" {
		return "mcpServers"
	}
	return "projects[" + strconv.Quote(projectKey) + "].mcpServers"
}

// pickProjectKey returns the key of the project's entry in projects: the
// first of keys that exists (on Windows ignoring case and separators, as the
// same folder can be spelled several ways there), else keys[0].
func pickProjectKey(projects *object, keys []string) string {
	for _, k := range keys {
		if _, ok := projects.get(k); ok {
			return k
		}
	}
	if runtime.GOOS == "windows" {
		for _, k := range keys {
			for _, have := range projects.keys {
				if strings.EqualFold(filepath.ToSlash(have), k) {
					return have
				}
			}
		}
	}
	return keys[0]
}

// installServer sets the "bottle" entry in the MCP config: top-level
// mcpServers, or projects[<project>].mcpServers when projectKeys is not nil.
// Fields of an existing stdio entry other than type, command and args (env,
// timeout, …) are kept.
func installServer(doc *object, projectKeys []string, mcpserver string) ([]string, error) {
	var projects, project *object
	var key string
	parent := doc
	if projectKeys != nil {
		var err error
		if projects, err = childObject(doc, "projects", "projects"); err != nil {
			return nil, err
		}
		key = pickProjectKey(projects, projectKeys)
		if project, err = childObject(projects, key, "projects["+strconv.Quote(key)+"]"); err != nil {
			return nil, err
		}
		parent = project
	}
	label := serversPath(key)
	servers, err := childObject(parent, "mcpServers", label)
	if err != nil {
		return nil, err
	}
	entry := newObject()
	old, had := servers.get(serverName)
	var oldFields serverFields
	if had && !isNull(old) {
		if o, err := decodeObject(old); err == nil && json.Unmarshal(old, &oldFields) == nil &&
			(oldFields.Type == "" || oldFields.Type == "stdio") {
			entry = o
		}
	}
	entry.set("type", jsonValue("stdio"))
	entry.set("command", jsonValue(mcpserver))
	entry.set("args", json.RawMessage("[]"))
	if had && sameJSON(entry.raw(), old) {
		return nil, nil
	}
	note := fmt.Sprintf("+ %s.%s: %s", label, serverName, mcpserver)
	if had {
		was := oldFields.Command
		if was == "" {
			was = string(compactJSON(old))
		}
		note = fmt.Sprintf("~ %s.%s: was %s; now %s", label, serverName, was, mcpserver)
	}
	servers.set(serverName, entry.raw())
	parent.set("mcpServers", servers.raw())
	if projects != nil {
		projects.set(key, project.raw())
		doc.set("projects", projects.raw())
	}
	return []string{note}, nil
}

// removeServer deletes the "bottle" MCP server when its command is an
// mcpserver binary. An mcpServers object emptied by that goes too when it is
// the last key of its parent (Claude Code's own project entries keep an empty
// one); so do a project entry and a projects object emptied by that.
func removeServer(doc *object, projectKeys []string) ([]string, error) {
	var projects, project *object
	var key string
	parent := doc
	if projectKeys != nil {
		raw, ok := doc.get("projects")
		if !ok || isNull(raw) {
			return nil, nil
		}
		var err error
		if projects, err = decodeObject(raw); err != nil {
			return nil, errors.New(`"projects" is not a JSON object`)
		}
		key = pickProjectKey(projects, projectKeys)
		raw, ok = projects.get(key)
		if !ok || isNull(raw) {
			return nil, nil
		}
		if project, err = decodeObject(raw); err != nil {
			return nil, fmt.Errorf("projects[%q] is not a JSON object", key)
		}
		parent = project
	}
	label := serversPath(key)
	raw, ok := parent.get("mcpServers")
	if !ok || isNull(raw) {
		return nil, nil
	}
	servers, err := decodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON object", label)
	}
	entry, ok := servers.get(serverName)
	if !ok {
		return nil, nil
	}
	var f serverFields
	_ = json.Unmarshal(entry, &f)
	if !isBinary(strings.TrimSpace(f.Command), "mcpserver") {
		return []string{fmt.Sprintf("! kept %s.%s: its command %q is not an mcpserver binary", label, serverName, f.Command)}, nil
	}
	notes := []string{fmt.Sprintf("- %s.%s: %s", label, serverName, f.Command)}
	servers.del(serverName)
	if len(servers.keys) == 0 && len(parent.keys) == 1 {
		parent.del("mcpServers")
	} else {
		parent.set("mcpServers", servers.raw())
	}
	if projects == nil {
		return notes, nil
	}
	if len(project.keys) == 0 {
		projects.del(key)
	} else {
		projects.set(key, project.raw())
	}
	if len(projects.keys) == 0 {
		doc.del("projects")
	} else {
		doc.set("projects", projects.raw())
	}
	return notes, nil
}

// ---- order-preserving JSON ----

// object is a JSON object that keeps its keys in file order and its values as
// raw JSON, so an edit leaves every foreign key, value and position as it was.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// decodeObject parses raw, which must be exactly one JSON object. A repeated
// key keeps its first position and its last value, as JSON.parse does.
func decodeObject(raw []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := newObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

func (o *object) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set replaces the value of k in place, or appends k.
func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, have := range o.keys {
		if have == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// raw encodes the object compactly enough for encodeFile to re-indent.
func (o *object) raw() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonValue(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// childObject returns the object under key k, or a new empty one when k is
// missing or null; label names it in an error.
func childObject(o *object, k, label string) (*object, error) {
	raw, ok := o.get(k)
	if !ok || isNull(raw) {
		return newObject(), nil
	}
	c, err := decodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON object", label)
	}
	return c, nil
}

// encodeFile is the file content for a document: two-space indentation (as
// Claude Code writes its files) and a final newline.
func encodeFile(o *object) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, o.raw(), "", "  "); err != nil {
		// Every value came from the JSON decoder or jsonValue.
		panic("hookbin: invalid JSON built: " + err.Error())
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func marshalArray(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// jsonValue encodes v without HTML escaping (commands hold & and <).
func jsonValue(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("hookbin: encode " + fmt.Sprint(v) + ": " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func sameJSON(a, b []byte) bool { return bytes.Equal(compactJSON(a), compactJSON(b)) }

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
