package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"bottle/internal/claudesettings"
	"bottle/locate"
)

// pluginServer is how Claude Code names the MCP server of bottle's plugin.
const pluginServer = "plugin:" + claudesettings.PluginName + ":" + claudesettings.ServerName

// pluginView is what doctor's hook and server checks need to know about
// bottle's plugin: the id of the plugin that is installed and enabled (""
// when none), else of one that is installed but disabled.
type pluginView struct {
	active, installed string
	// unreadable names the settings file that hides whether the plugin is
	// enabled ("" when every one could be read).
	unreadable string
}

// checkPlugin reports bottle's Claude Code plugin for project: its install
// records (a copy that is gone or orphaned is flagged), whether it is
// enabled, and a settings install beside an enabled plugin (both run).
// Nothing is said when the plugin was never installed or enabled.
func checkPlugin(pl claudesettings.Plugins, regs []claudesettings.Registration, project string) (pluginView, []checkLine) {
	var installs []claudesettings.PluginInstall
	for _, in := range pl.Installs {
		if in.Scope == "user" || in.ProjectPath == "" || project != "" && cleanAbs(in.ProjectPath) == cleanAbs(project) {
			installs = append(installs, in)
		}
	}
	if len(installs) == 0 && len(pl.Enables) == 0 {
		return pluginView{}, nil
	}
	installed := func(id string) *claudesettings.PluginInstall {
		for i := range installs {
			if installs[i].ID == id {
				return &installs[i]
			}
		}
		return nil
	}
	var v pluginView
	var out []checkLine
	if len(pl.Unreadable) > 0 && len(pl.Active()) == 0 {
		// enabledPlugins lives in the file that cannot be read: advice to
		// enable or disable the plugin would fail on it too.
		bad := pl.Unreadable[0]
		v.unreadable = bad.Path
		id := claudesettings.PluginName
		if len(installs) > 0 {
			id = installs[0].ID
		}
		out = append(out, checkLine{statusFail, "plugin " + id + ": whether it is enabled cannot be read until " + bad.Path +
			" is fixed (" + oneLineErr(bad.Err) + "); Claude Code cannot read that file either",
			"fix " + bad.Path + " (or move it aside), then run hookbin doctor again"})
		return v, out
	}
	for _, e := range pl.Active() {
		in := installed(e.ID)
		if in == nil {
			out = append(out, checkLine{statusWarn, "plugin " + e.ID + ": enabled in " + e.File + " but not installed (no record in " + pl.InstalledFile + ")",
				"install it: claude plugin install " + e.ID + ", or remove it from enabledPlugins"})
			continue
		}
		if v.active == "" {
			v.active = e.ID
		}
		root, version := pl.Loaded(*in)
		what := "plugin " + e.ID + ": installed (" + in.Scope + " scope) and enabled (" + string(e.Scope) + ": " + e.File + "); Claude Code loads version " +
			version + " from " + root
		if root != in.InstallPath {
			_, market, _ := strings.Cut(e.ID, "@")
			what += " (the folder marketplace " + market + " points at; installed_plugins.json still records version " + in.Version + " at " + in.InstallPath + ")"
		}
		if stale := staleCopy(root); stale != "" {
			out = append(out, checkLine{statusFail, what + "; that copy " + stale,
				"reinstall it: claude plugin uninstall " + e.ID + ", then claude plugin install " + e.ID})
			continue
		}
		if line, ok := checkPluginBinaries(e.ID, what, root); !ok {
			out = append(out, line)
			continue
		}
		out = append(out, checkLine{statusOK, what + "; bottle's hooks and the MCP server " + pluginServer + " come from it", ""},
			checkLine{statusOK, "hookbin for a plugin user: /bottle:hookbin <command> in a session (also /bottle:list, /bottle:search <query>, /bottle:render [id]); in a shell: sh " +
				claudesettings.HookCommand(filepath.Join(root, "bin", "bottle-run")) + " hookbin <command>", ""})
	}
	if v.active != "" && !slices.Contains(pl.DisabledMcpjson, claudesettings.ServerName) &&
		slices.ContainsFunc(regs, func(r claudesettings.Registration) bool { return isDevServer(r, project) }) {
		out = append(out, checkLine{statusWarn, "this clone's .mcp.json offers a second MCP server \"" + claudesettings.ServerName + "\" beside the plugin's " +
			pluginServer + ": once approved, the model sees every tool twice",
			"turn the clone's off: add \"disabledMcpjsonServers\": [\"" + claudesettings.ServerName + "\"] to " +
				filepath.Join(project, ".claude", "settings.local.json") + " (or disable the plugin while working on bottle)"})
	}
	settings := settingsInstall(regs, project)
	if v.active == "" {
		for _, in := range installs {
			if v.installed != "" {
				break
			}
			v.installed = in.ID
			what := "plugin " + in.ID + ": installed (" + in.Scope + " scope, " + in.InstallPath + ") but disabled"
			if len(settings) > 0 {
				out = append(out, checkLine{statusOK, what + "; the settings install (" + strings.Join(settings, "; ") + ") is the active one", ""})
			} else {
				out = append(out, checkLine{statusWarn, what, "enable it: claude plugin enable " + in.ID})
			}
		}
		return v, out
	}
	if len(settings) > 0 {
		scopes := map[string]bool{}
		for _, r := range regs {
			if !isDevServer(r, project) {
				scopes[string(r.Scope)] = true
			}
		}
		var fix []string
		for _, s := range []string{"user", "project", "local"} {
			if scopes[s] {
				fix = append(fix, "hookbin uninstall --scope "+s)
			}
		}
		out = append(out, checkLine{statusWarn, "bottle is installed twice: as the plugin " + v.active + " and in settings (" + strings.Join(settings, "; ") +
			"); Claude Code runs every hook twice and starts two MCP servers",
			"keep the plugin: " + strings.Join(fix, ", ") + " (or claude plugin disable " + v.active + " to keep the settings install)"})
	}
	return v, out
}

// checkPluginBinaries checks that the plugin folder root Claude Code loads
// holds this platform's binaries: without them its hooks and MCP server
// fail at every start ("Failed to connect" in claude mcp list). what
// describes the plugin; ok is false with the line to show when they are
// missing.
func checkPluginBinaries(id, what, root string) (line checkLine, ok bool) {
	platform := runtime.GOOS + "-" + runtime.GOARCH
	dir := filepath.Join(root, "libexec", platform)
	var missing []string
	for _, tool := range []string{"hookbin", "mcpserver"} {
		if fi, err := os.Stat(filepath.Join(dir, tool+exeSuffix())); err != nil || !fi.Mode().IsRegular() {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return checkLine{}, true
	}
	what += "; but " + dir + " has no " + strings.Join(missing, " or ") + ", so its hooks and MCP server cannot start"
	if clone := filepath.Dir(root); isBottleClone(clone) {
		return checkLine{statusFail, what, "build them in the clone: " + pluginBuildCommand(clone)}, false
	}
	return checkLine{statusFail, what, "install a release that has " + platform + " binaries: claude plugin uninstall " + id + ", then add its marketplace and claude plugin install " + id}, false
}

// pluginBuildCommand is the command that builds the plugin's binaries for
// this platform in a clone of bottle.
func pluginBuildCommand(clone string) string {
	return "cd " + claudesettings.HookCommand(clone) + " && go build -trimpath -o plugin/libexec/" + runtime.GOOS + "-" + runtime.GOARCH + "/ ./hookbin ./mcpserver ./pretooluse"
}

// settingsInstall lists where bottle is registered in settings and MCP
// configs ("scope: file"), leaving out the development server of a clone.
func settingsInstall(regs []claudesettings.Registration, project string) []string {
	var out []string
	for _, r := range regs {
		if isDevServer(r, project) {
			continue
		}
		if w := string(r.Scope) + ": " + r.File; !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// staleCopy says what is wrong with a plugin's cached copy ("" when it is
// there): gone, or stamped .orphaned_at by an update or uninstall.
func staleCopy(dir string) string {
	if dir == "" {
		return ""
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "is gone"
	case err != nil:
		return "cannot be read: " + oneLineErr(err)
	case !fi.IsDir():
		return "is not a folder"
	}
	if _, err := os.Stat(filepath.Join(dir, ".orphaned_at")); err == nil {
		return "is orphaned (.orphaned_at): Claude Code replaced it"
	}
	return ""
}

// checkPluginCacheBinaries flags settings registrations that run a binary
// inside Claude Code's plugin folder: its copies are versioned, and an
// update or uninstall orphans them.
func checkPluginCacheBinaries(regs []claudesettings.Registration, configDir string) []checkLine {
	if configDir == "" {
		return nil
	}
	plugins := filepath.Join(configDir, "plugins")
	var where, progs []string
	for _, r := range regs {
		if r.Prog == "" || !within(r.Prog, plugins) {
			continue
		}
		if w := string(r.Scope) + ": " + r.File; !slices.Contains(where, w) {
			where = append(where, w)
		}
		if !slices.Contains(progs, r.Prog) {
			progs = append(progs, r.Prog)
		}
	}
	if len(progs) == 0 {
		return nil
	}
	return []checkLine{{statusWarn, "settings (" + strings.Join(where, "; ") + ") run " + strings.Join(progs, ", ") +
		", inside Claude Code's plugin folder, whose versioned copies a plugin update or uninstall orphans",
		"use the plugin alone (hookbin uninstall --scope SCOPE), or " + build + " and run bin/hookbin install"}}
}

// checkBottlesInPluginDir flags a bottles folder inside Claude Code's
// plugin folder: "claude plugin uninstall" deletes a plugin's data folder
// (${CLAUDE_PLUGIN_DATA}) and update orphans its copies, bottles with them.
func checkBottlesInPluginDir(env locate.Env, configDir string) []checkLine {
	if configDir == "" {
		return nil
	}
	plugins := filepath.Join(configDir, "plugins")
	if dir := cleanAbs(env.BottlesDir()); within(dir, plugins) {
		return []checkLine{{statusWarn, "bottles dir: " + dir + " is inside Claude Code's plugin folder " + plugins + ", which a plugin uninstall or update deletes",
			"set BOTTLE_DIR (or CLAUDE_MEM_DATA_DIR) to a folder outside it"}}
	}
	return nil
}
