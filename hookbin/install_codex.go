package main

import (
	"bufio"
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
	"slices"
	"strings"
	"time"

	"bottle/host/codex"
	"bottle/internal/claudesettings"
	"bottle/internal/codexconfig"
	"bottle/internal/version"
	"bottle/locate"
)

const codexInstallUsage = `usage: hookbin install --host codex [--dry-run] [--trust] [--codex PATH] [--hookbin PATH] [--mcpserver PATH]

Registers bottle in the OpenAI Codex CLI: hooks SessionStart (matcher
compact|resume, "additionalContextLimit": 0 so that bottle's pointer arrives
whole), Stop and SessionEnd in $CODEX_HOME/hooks.json, which run
"<hookbin> session-start|stop|session-end --host codex", and the MCP server
[mcp_servers.bottle] in $CODEX_HOME/config.toml ($CODEX_HOME defaults to
~/.codex). Every other hook and every other byte of config.toml (comments,
formatting, foreign tables) is kept. A file that changes is first copied to
FILE.bak-<UTC yyyymmddThhmmssZ>; running it again changes nothing.

Codex runs no hook until it is trusted. Without --trust, trust bottle's hooks
in Codex's /hooks screen; with --trust, install asks "codex app-server" for
the hooks' hashes and writes [hooks.state."<key>"] trusted_hash entries for
bottle's hooks only, as /hooks does.
`

const codexUninstallUsage = `usage: hookbin uninstall --host codex [--dry-run]

Removes bottle's hooks (any "… session-start|stop|session-end --host codex"
handler) from $CODEX_HOME/hooks.json, their trust entries and the
[mcp_servers.bottle] table from $CODEX_HOME/config.toml. Everything else is kept.
`

// hostArg takes "--host H" or "--host=H" out of args. ok is false when no
// host is named.
func hostArg(args []string) (host string, rest []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return host, append(rest, args[i:]...), ok
		case a == "--host" || a == "-host":
			if i+1 < len(args) {
				host, ok = args[i+1], true
				i++
				continue
			}
			host, ok = "", true
		case strings.HasPrefix(a, "--host=") || strings.HasPrefix(a, "-host="):
			_, host, _ = strings.Cut(a, "=")
			ok = true
		default:
			rest = append(rest, a)
		}
	}
	return host, rest, ok
}

// hostCheck says whether args name Codex as the host, and refuses a host
// hookbin does not know.
func hostCheck(args []string) (isCodex bool, rest []string, err error) {
	host, rest, ok := hostArg(args)
	if !ok {
		return false, args, nil
	}
	switch host {
	case "codex":
		return true, rest, nil
	case "claude", "claude-code", "claudecode":
		return false, rest, nil
	}
	return false, nil, exitError{code: 2, msg: fmt.Sprintf("unknown host %q: use claude-code or codex", host)}
}

// codexInstallConfig is what install --host codex's flags say.
type codexInstallConfig struct {
	dryRun, trust      bool
	hookbin, mcpserver string
	codex              string
}

func parseCodexInstallFlags(name string, args []string, stdout io.Writer) (cfg codexInstallConfig, help bool, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.BoolVar(&cfg.dryRun, "dry-run", false, "print what would change and write nothing")
	text := codexUninstallUsage
	if name == "install" {
		text = codexInstallUsage
		fs.BoolVar(&cfg.trust, "trust", false, "write Codex's trust entries for bottle's hooks (asks codex app-server for their hashes)")
		fs.StringVar(&cfg.codex, "codex", "codex", "the codex `binary` --trust runs")
		fs.StringVar(&cfg.hookbin, "hookbin", "", "hookbin binary `path` to register (default: this binary, symlinks resolved)")
		fs.StringVar(&cfg.mcpserver, "mcpserver", "", "mcpserver binary `path` to register (default: beside hookbin, else on PATH)")
	}
	fs.Usage = func() {
		fmt.Fprint(stdout, text)
		printFlags(stdout, fs)
	}
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return cfg, true, nil
	}
	if err != nil {
		return cfg, false, flagError(err)
	}
	if len(pos) > 0 {
		return cfg, false, exitError{code: 2, msg: fmt.Sprintf("%s takes no arguments, got %q (run hookbin %s --host codex --help)", name, pos[0], name)}
	}
	return cfg, false, nil
}

// codexHome is Codex's home folder, absolute.
func codexHome(env locate.Env) (string, error) {
	h := codex.Home(env.Get, env.Home)
	if h == "" {
		return "", errors.New("no CODEX_HOME and no home folder: set CODEX_HOME")
	}
	return filepath.Abs(h)
}

func runInstallCodex(ctx context.Context, d deps, args []string, env locate.Env, stdout, stderr io.Writer) error {
	cfg, help, err := parseCodexInstallFlags("install", args, stdout)
	if err != nil || help {
		return err
	}
	hookbin, mcpserver, err := findBinaries(cfg.hookbin, cfg.mcpserver, findGoDirs(env), d.executable)
	if err != nil {
		return err
	}
	home, err := codexHome(env)
	if err != nil {
		return err
	}
	hooksPath, configPath := filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml")
	hookCmd := claudesettings.HookCommand(hookbin)
	hooksEdit, err := claudesettings.PlanRaw(hooksPath, 0o700, func(old []byte) ([]byte, []string, error) {
		return codexconfig.InstallHooks(old, hookCmd)
	})
	if err != nil {
		return err
	}
	configEdit, err := claudesettings.PlanRaw(configPath, 0o700, func(old []byte) ([]byte, []string, error) {
		return codexconfig.InstallServer(old, mcpserver)
	})
	if err != nil {
		return err
	}
	for _, b := range []struct{ name, path string }{{"hookbin", hookbin}, {"mcpserver", mcpserver}} {
		if tmp := inTempDir(b.path); tmp != "" {
			fmt.Fprintf(stderr, "hookbin: warning: %s %s is in the temporary folder %s, which the system may clear.\n", b.name, b.path, tmp)
		}
	}
	edits := []*claudesettings.Edit{hooksEdit, configEdit}
	if err := commitCodex(ctx, "install", cfg.dryRun, edits, stdout); err != nil {
		return err
	}
	switch {
	case cfg.trust && cfg.dryRun:
		fmt.Fprintf(stdout, "--trust: would ask %s app-server for the hooks' hashes and write their trust entries to %s.\n", cfg.codex, configPath)
	case cfg.trust:
		return trustCodexHooks(ctx, cfg.codex, home, hooksPath, configPath, stdout)
	default:
		fmt.Fprintf(stdout, "Codex runs no hook until it is trusted: start codex, type /hooks and trust bottle's hooks "+
			"(or run hookbin install --host codex --trust). Then check with hookbin doctor --host codex.\n")
	}
	return nil
}

func runUninstallCodex(ctx context.Context, args []string, env locate.Env, stdout io.Writer) error {
	cfg, help, err := parseCodexInstallFlags("uninstall", args, stdout)
	if err != nil || help {
		return err
	}
	home, err := codexHome(env)
	if err != nil {
		return err
	}
	hooksPath, configPath := filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml")
	var ownKeys []string
	hooksEdit, err := claudesettings.PlanRaw(hooksPath, 0o700, func(old []byte) ([]byte, []string, error) {
		own, err := codexconfig.OwnHooks(old)
		if err != nil {
			return nil, nil, err
		}
		for _, k := range own {
			ownKeys = append(ownKeys, k.Key(hooksPath))
		}
		return codexconfig.UninstallHooks(old)
	})
	if err != nil {
		return err
	}
	configEdit, err := claudesettings.PlanRaw(configPath, 0o700, func(old []byte) ([]byte, []string, error) {
		if len(bytes.TrimSpace(old)) == 0 {
			return old, nil, nil
		}
		out, notes, err := codexconfig.UninstallServer(old)
		if err != nil {
			return nil, nil, err
		}
		out, more, err := codexconfig.SetTrust(out, nil, ownKeys)
		return out, append(notes, more...), err
	})
	if err != nil {
		return err
	}
	return commitCodex(ctx, "uninstall", cfg.dryRun, []*claudesettings.Edit{hooksEdit, configEdit}, stdout)
}

// commitCodex writes the planned edits (unless dry) and prints what changed.
func commitCodex(ctx context.Context, cmd string, dry bool, edits []*claudesettings.Edit, stdout io.Writer) error {
	return report(ctx, cmd, "in Codex", "--host codex", dry, edits,
		"Running Codex sessions keep their old hooks and servers: start a new one.\n", stdout)
}

// hookTrust is one hook as codex app-server's hooks/list reports it.
type hookTrust struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	PluginID    string `json:"pluginId"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	IsManaged   bool   `json:"isManaged"`
}

// fromBottlePlugin reports whether Codex loaded h from bottle's plugin
// ("bottle@<marketplace>"), running one of bottle's hooks.
func (h hookTrust) fromBottlePlugin() bool {
	name, _, ok := strings.Cut(h.PluginID, "@")
	return ok && name == "bottle" && codexconfig.OwnCommand(h.Command)
}

// appServerTimeout bounds a hooks/list round trip with codex app-server.
const appServerTimeout = 60 * time.Second

// listCodexHooks asks codex app-server (run with CODEX_HOME=home) for the
// hooks it sees and their trust.
func listCodexHooks(ctx context.Context, codexBin, home, cwd string) ([]hookTrust, error) {
	ctx, cancel := context.WithTimeout(ctx, appServerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codexBin, "app-server")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+home)
	cmd.Dir = cwd
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s app-server: %w", codexBin, err)
	}
	defer func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	dec := bufio.NewScanner(out)
	dec.Buffer(make([]byte, 1<<20), 64<<20)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		_, err := in.Write(append(b, '\n'))
		return err
	}
	wait := func(id int) (json.RawMessage, error) {
		for dec.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(dec.Bytes(), &m) != nil || m.ID == nil || *m.ID != id {
				continue
			}
			if m.Error != nil {
				return nil, fmt.Errorf("codex app-server: %s", m.Error)
			}
			return m.Result, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("codex app-server: %w", err)
		}
		return nil, errors.New("codex app-server closed its output without an answer")
	}
	if err := send(map[string]any{"id": 0, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "bottle", "version": version.String()}}}); err != nil {
		return nil, err
	}
	if _, err := wait(0); err != nil {
		return nil, err
	}
	if err := send(map[string]any{"method": "initialized"}); err != nil {
		return nil, err
	}
	if err := send(map[string]any{"id": 1, "method": "hooks/list", "params": map[string]any{"cwds": []string{cwd}}}); err != nil {
		return nil, err
	}
	res, err := wait(1)
	if err != nil {
		return nil, err
	}
	var list struct {
		Data []struct {
			Hooks []hookTrust `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, fmt.Errorf("codex app-server hooks/list: %w", err)
	}
	var all []hookTrust
	for _, d := range list.Data {
		all = append(all, d.Hooks...)
	}
	return all, nil
}

// bottleHookKeys are Codex's trust keys of bottle's hooks in hooksPath.
func bottleHookKeys(hooksPath string) ([]string, error) {
	data, err := os.ReadFile(hooksPath)
	if err != nil {
		return nil, err
	}
	own, err := codexconfig.OwnHooks(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hooksPath, err)
	}
	keys := make([]string, len(own))
	for i, k := range own {
		keys[i] = k.Key(hooksPath)
	}
	return keys, nil
}

// trustCodexHooks writes trust entries for bottle's hooks, with the hashes
// codex app-server reports for them: those install put in hooksPath (every
// one must be listed) and those of bottle's Codex plugin, when installed.
func trustCodexHooks(ctx context.Context, codexBin, home, hooksPath, configPath string, stdout io.Writer) error {
	keys, err := bottleHookKeys(hooksPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = home
	}
	listed, err := listCodexHooks(ctx, codexBin, home, cwd)
	if err != nil {
		return fmt.Errorf("trust: %w; trust bottle's hooks in codex's /hooks screen instead", err)
	}
	var entries []codexconfig.Trust
	found := 0
	for _, h := range listed {
		switch {
		case h.CurrentHash == "":
		case slices.Contains(keys, h.Key):
			found++
			entries = append(entries, codexconfig.Trust{Key: h.Key, Hash: h.CurrentHash})
		case h.fromBottlePlugin():
			entries = append(entries, codexconfig.Trust{Key: h.Key, Hash: h.CurrentHash})
		}
	}
	switch {
	case found != len(keys):
		return fmt.Errorf("trust: codex app-server listed %d of bottle's %d hooks in %s; trust them in codex's /hooks screen instead", found, len(keys), hooksPath)
	case len(entries) == 0:
		return errors.New("trust: Codex lists none of bottle's hooks: run hookbin install --host codex, or codex plugin add bottle@bottle")
	}
	e, err := claudesettings.PlanRaw(configPath, 0o700, func(old []byte) ([]byte, []string, error) {
		return codexconfig.SetTrust(old, entries, nil)
	})
	if err != nil {
		return err
	}
	if !e.Changed() {
		fmt.Fprintf(stdout, "bottle's %d hooks were already trusted.\n", len(entries))
		return nil
	}
	if err := e.Commit(time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "trusted bottle's %d hooks in %s (backup: %s).\n", len(entries), configPath, e.Backup)
	for _, n := range e.Notes {
		fmt.Fprintf(stdout, "    %s\n", n)
	}
	return nil
}

const codexTrustUsage = `usage: hookbin trust --host codex [--codex PATH]

Codex runs no hook until it is trusted. trust asks "codex app-server" which
hooks Codex loads and writes, into $CODEX_HOME/config.toml, the trust entries
([hooks.state."<key>"]) of bottle's hooks only — those "hookbin install --host
codex" registered and those of bottle's Codex plugin (codex plugin add
bottle@bottle) —, as Codex's /hooks screen does. A hook that changes (a new
plugin version) must be trusted again.
`

func runTrust(ctx context.Context, args []string, env locate.Env, stdout io.Writer) error {
	isCodex, rest, err := hostCheck(args)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stdout)
	codexBin := fs.String("codex", "codex", "the codex `binary` to ask")
	fs.Usage = func() {
		fmt.Fprint(stdout, codexTrustUsage)
		printFlags(stdout, fs)
	}
	pos, err := parseArgs(fs, rest)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case err != nil:
		return flagError(err)
	case !isCodex:
		return exitError{code: 2, msg: "trust is for Codex's hooks (Claude Code has no hook trust): run hookbin trust --host codex"}
	case len(pos) > 0:
		return exitError{code: 2, msg: fmt.Sprintf("trust takes no arguments, got %q (run hookbin trust --host codex --help)", pos[0])}
	}
	home, err := codexHome(env)
	if err != nil {
		return err
	}
	return trustCodexHooks(ctx, *codexBin, home, filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml"), stdout)
}
