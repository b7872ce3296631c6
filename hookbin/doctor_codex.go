package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"bottle/internal/codexconfig"
	"bottle/locate"
)

const codexDoctorUsage = `usage: hookbin doctor --host codex [--codex PATH]

Checks bottle's install in the OpenAI Codex CLI ($CODEX_HOME, default ~/.codex):
bottle's hooks in hooks.json and their binaries, whether Codex trusts them
(asked of "codex app-server" when the codex binary is found, else read from
config.toml's [hooks.state]), the [mcp_servers.bottle] server, and the
rollouts Codex wrote. Each line starts with ✓, ! or ✗ (exit status 1).
`

func runDoctorCodex(ctx context.Context, args []string, env locate.Env, stdout io.Writer) error {
	flags := flag.NewFlagSet("doctor", flag.ContinueOnError)
	flags.SetOutput(stdout)
	codexBin := flags.String("codex", "codex", "the codex `binary` asked whether the hooks are trusted")
	flags.Usage = func() {
		fmt.Fprint(stdout, codexDoctorUsage)
		printFlags(stdout, flags)
	}
	pos, err := parseArgs(flags, args)
	if err != nil {
		return flagError(err)
	}
	if len(pos) > 0 {
		return exitError{code: 2, msg: "doctor takes no arguments (run hookbin doctor --host codex --help)"}
	}
	home, err := codexHome(env)
	if err != nil {
		return err
	}
	lines := checkCodex(ctx, home, *codexBin)
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

// checkCodex is doctor's checklist of a Codex install under home.
func checkCodex(ctx context.Context, home, codexBin string) []checkLine {
	const fix = "run hookbin install --host codex"
	var lines []checkLine
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return []checkLine{{statusFail, "Codex home " + home + " not found", "install and run Codex once, or set CODEX_HOME"}}
	}
	hooksPath, configPath := filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml")
	configData, configErr := os.ReadFile(configPath)
	plugin, hasPlugin, err := codexconfig.FindPlugin(home, configData)
	switch {
	case err != nil && configErr == nil:
		lines = append(lines, checkLine{statusFail, "plugin: " + err.Error(), "reinstall it: codex plugin add " + codexconfig.PluginName + "@<marketplace>"})
	case hasPlugin:
		lines = append(lines, checkCodexPlugin(plugin))
	}
	hooksData, err := os.ReadFile(hooksPath)
	var keys []string
	switch {
	case hasPlugin && (errors.Is(err, fs.ErrNotExist) || err == nil && !hasOwnHooks(hooksData)):
		// The plugin brings the hooks.
	case errors.Is(err, fs.ErrNotExist):
		lines = append(lines, checkLine{statusFail, "hooks: " + hooksPath + " does not exist", fix})
	case err != nil:
		lines = append(lines, checkLine{statusFail, "hooks: " + err.Error(), ""})
	default:
		own, err := codexconfig.OwnHooks(hooksData)
		switch {
		case err != nil:
			lines = append(lines, checkLine{statusFail, "hooks: " + hooksPath + ": " + err.Error(), "fix the file, then " + fix})
		case hasPlugin:
			lines = append(lines, checkLine{statusWarn, fmt.Sprintf("hooks: bottle's plugin and %d hooks of hookbin install in %s both run: each compaction gets two pointers", len(own), hooksPath),
				"keep one: hookbin uninstall --host codex, or codex plugin remove " + plugin.ID})
		case len(own) < len(codexconfig.Hooks):
			lines = append(lines, checkLine{statusFail, fmt.Sprintf("hooks: %d of bottle's %d hooks in %s", len(own), len(codexconfig.Hooks), hooksPath), fix})
		default:
			lines = append(lines, checkLine{statusOK, fmt.Sprintf("hooks: bottle's %d hooks in %s", len(own), hooksPath), ""})
		}
		for _, k := range own {
			keys = append(keys, k.Key(hooksPath))
		}
	}
	keys = append(keys, plugin.HookKeys...)
	if len(keys) > 0 {
		lines = append(lines, checkCodexTrust(ctx, home, codexBin, configPath, keys))
	}
	switch {
	case errors.Is(configErr, fs.ErrNotExist):
		lines = append(lines, checkLine{statusFail, "MCP server: " + configPath + " does not exist", fix})
	case configErr != nil:
		lines = append(lines, checkLine{statusFail, "MCP server: " + configErr.Error(), ""})
	default:
		cmd, err := codexconfig.ServerCommand(configData)
		switch {
		case err != nil:
			lines = append(lines, checkLine{statusFail, "MCP server: " + configPath + ": " + err.Error(), "fix the file"})
		case cmd == "" && hasPlugin:
			lines = append(lines, checkLine{statusOK, "MCP server: from the plugin (the model sees mcp__bottle)", ""})
		case cmd == "":
			lines = append(lines, checkLine{statusFail, "MCP server: no [mcp_servers.bottle] in " + configPath, fix})
		case hasPlugin:
			lines = append(lines, checkLine{statusWarn, "MCP server: both the plugin and [mcp_servers.bottle] in " + configPath + " define the server bottle",
				"keep one: hookbin uninstall --host codex, or codex plugin remove " + plugin.ID})
		default:
			if p, err := checkBinary("mcpserver", cmd); err != nil {
				lines = append(lines, checkLine{statusFail, "MCP server: " + err.Error(), fix + " --mcpserver PATH"})
			} else if flagged, _ := codexconfig.ServerHostFlag(configData); !flagged {
				lines = append(lines, checkLine{statusWarn, "MCP server: [mcp_servers.bottle] runs " + p + " without --host codex: " +
					"the pointers continue_session returns are worded for Claude Code", fix})
			} else {
				lines = append(lines, checkLine{statusOK, "MCP server: [mcp_servers.bottle] runs " + p + " (the model sees mcp__bottle)", ""})
			}
		}
	}
	lines = append(lines, checkCodexRollouts(home))
	return lines
}

// hasOwnHooks reports whether a hooks.json holds any of bottle's hooks.
func hasOwnHooks(data []byte) bool {
	own, err := codexconfig.OwnHooks(data)
	return err != nil || len(own) > 0
}

// checkCodexPlugin describes bottle's Codex plugin, failing when it holds
// no binaries for this machine (added from an unbuilt clone).
func checkCodexPlugin(p codexconfig.Plugin) checkLine {
	what := fmt.Sprintf("plugin: %s %s in %s (its hooks and MCP server)", p.ID, p.Version, p.Dir)
	line, ok := checkPluginBinaries(p.ID, what, p.Dir)
	if ok {
		return checkLine{statusOK, what, ""}
	}
	line.todo = "add bottle from a release folder, or build the clone's plugin before codex plugin add: " + pluginBuildCommand("<clone>")
	return line
}

// checkCodexTrust says whether Codex trusts bottle's hooks (keys): asked of
// codex app-server when codexBin runs, else read from config.toml.
func checkCodexTrust(ctx context.Context, home, codexBin, configPath string, keys []string) checkLine {
	const how = "trust them in codex's /hooks screen, or run hookbin trust --host codex"
	if bin, err := exec.LookPath(codexBin); err == nil {
		listed, err := listCodexHooks(ctx, bin, home, home)
		if err == nil {
			status := map[string]string{}
			for _, h := range listed {
				status[h.Key] = h.TrustStatus
			}
			var bad []string
			for _, k := range keys {
				if s := status[k]; s != "trusted" {
					if s == "" {
						s = "not listed"
					}
					bad = append(bad, fmt.Sprintf("%s: %s", k[strings.LastIndex(k, string(filepath.Separator))+1:], s))
				}
			}
			if len(bad) > 0 {
				return checkLine{statusFail, "trust: Codex runs no untrusted hook; " + strings.Join(bad, ", "), how}
			}
			return checkLine{statusOK, fmt.Sprintf("trust: Codex trusts bottle's %d hooks (asked %s app-server)", len(keys), bin), ""}
		}
	}
	data, err := os.ReadFile(configPath)
	if err != nil {
		return checkLine{statusFail, "trust: " + err.Error(), how}
	}
	hashes, err := codexconfig.TrustedHashes(data)
	if err != nil {
		return checkLine{statusFail, "trust: " + configPath + ": " + err.Error(), ""}
	}
	n := 0
	for _, k := range keys {
		if hashes[k] != "" {
			n++
		}
	}
	if n < len(keys) {
		return checkLine{statusFail, fmt.Sprintf("trust: %d of bottle's %d hooks have a trust entry in %s; Codex runs no untrusted hook", n, len(keys), configPath), how}
	}
	return checkLine{statusWarn, fmt.Sprintf("trust: bottle's %d hooks have trust entries (codex not found to check their hashes)", n), "if a hook changed since, /hooks shows it as modified"}
}

// checkCodexRollouts counts the rollouts Codex wrote.
func checkCodexRollouts(home string) checkLine {
	n := 0
	for _, pattern := range []string{
		filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl*"),
		filepath.Join(home, "archived_sessions", "rollout-*.jsonl*"),
	} {
		m, _ := filepath.Glob(pattern)
		n += len(m)
	}
	if n == 0 {
		return checkLine{statusWarn, "rollouts: none under " + filepath.Join(home, "sessions"), "Codex writes one per thread; run codex once"}
	}
	return checkLine{statusOK, fmt.Sprintf("rollouts: %d under %s", n, home), ""}
}
