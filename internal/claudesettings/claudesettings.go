// Package claudesettings reads and edits the Claude Code files that register
// bottle: settings.json (hooks, per scope), ~/.claude.json and .mcp.json (MCP
// servers). It owns the scopes and the files each one uses, an
// order-preserving JSON object, edit planning with backups and atomic
// writes, installing and removing bottle's hooks and MCP server, and
// [Registrations], the one reader that finds bottle's entries in every scope,
// and [Locations.Plugins], which reads where bottle's Claude Code plugin is
// installed and enabled (installed_plugins.json, enabledPlugins).
//
// Every edit keeps each foreign key, value and position as it was; only
// bottle's own entries change. Bottle's entries are told apart by what they
// run (a hookbin subcommand, a server named [ServerName]), never by a path,
// so an install from a new location replaces the old one. A binary is
// bottle's by its name, or, renamed, by the Go build information in the
// file (read, never run).
//
// The package takes the machine's folders as plain values ([Locations]): it
// does not read the environment, print, or know bottle's other folders. It
// may import bottle/internal/atomicfile and nothing else in the module (in
// particular nothing under bottle/render).
package claudesettings

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// ServerName is the MCP server name bottle registers; the model sees its
// tools as mcp__bottle__<tool>.
const ServerName = "bottle"

// Hook is one Claude Code hook that bottle registers.
type Hook struct {
	// Event is the Claude Code hook event.
	Event string
	// Matcher is the matcher of the hook's group; "" means the group has no
	// matcher (every occurrence).
	Matcher string
	// Sub is the hookbin subcommand the handler runs.
	Sub string
	// Timeout is in seconds, the unit of Claude Code's "timeout" field for
	// command hooks.
	Timeout int
}

// bottleHooks are the hooks install registers. All are synchronous: "claude -p"
// kills async hooks within milliseconds of the end of a run.
var bottleHooks = []Hook{
	{Event: "SessionStart", Matcher: "compact|resume|fork", Sub: "session-start", Timeout: 10},
	{Event: "Stop", Sub: "stop", Timeout: 5},
	{Event: "SessionEnd", Sub: "session-end", Timeout: 2},
	{Event: "PreCompact", Sub: "pre-compact", Timeout: 5},
	// Claude Code matches a matcher with other characters than letters,
	// digits, '_', '-', ' ', ',' and '|' as an unanchored regular expression
	// against the tool name: Read, and every tool of the server.
	{Event: "PreToolUse", Matcher: "^Read$|^mcp__" + ServerName + "__", Sub: "pre-tool-use", Timeout: 5},
}

// Hooks returns the hooks bottle registers, in the order install adds them.
func Hooks() []Hook { return append([]Hook(nil), bottleHooks...) }

// Scope is where Claude Code reads a registration from.
type Scope string

// The scopes, as "claude mcp add --scope" names them.
const (
	// User is every project of this user: <config>/settings.json and the
	// top-level mcpServers of ~/.claude.json.
	User Scope = "user"
	// Project is one project, usually committed: <project>/.claude/settings.json
	// and <project>/.mcp.json.
	Project Scope = "project"
	// Local is one project for this user only:
	// <project>/.claude/settings.local.json and projects["<project>"].mcpServers
	// in ~/.claude.json.
	Local Scope = "local"
)

// Locations are the folders and files the scopes' targets are made of. The
// caller resolves them (from the environment and flags); "" means unknown.
type Locations struct {
	// ConfigDir is Claude Code's configuration folder ($CLAUDE_CONFIG_DIR,
	// else ~/.claude), absolute.
	ConfigDir string
	// ClaudeJSON is Claude Code's global config file: ~/.claude.json, or
	// $CLAUDE_CONFIG_DIR/.claude.json when that variable is set.
	ClaudeJSON string
	// Project is the project folder of the project and local scopes,
	// absolute and existing.
	Project string
}

// Target names the files a scope registers bottle in.
type Target struct {
	Scope Scope
	// Settings is the settings file that holds the hooks.
	Settings string
	// MCP is the file that holds the MCP server ("" when ClaudeJSON is
	// unknown for the user or local scope).
	MCP string
	// ProjectKeys are, for the local scope, the keys Claude Code may file the
	// project under in ~/.claude.json's projects, preferred first; nil means
	// the server sits in the top-level mcpServers.
	ProjectKeys []string
	// SettingsDirPerm and MCPDirPerm are the modes of folders created on
	// the way to a new file: private for the user's own folders.
	SettingsDirPerm, MCPDirPerm fs.FileMode
}

// Target returns the files of scope. It fails when a location the scope
// needs is unknown.
func (l Locations) Target(scope Scope) (Target, error) {
	switch scope {
	case User, Project, Local:
	default:
		return Target{}, fmt.Errorf("unknown scope %q", scope)
	}
	t := l.target(scope)
	if t.Settings == "" || t.MCP == "" {
		return Target{}, fmt.Errorf("%s scope: a folder it needs is not known", scope)
	}
	return t, nil
}

// Targets returns the targets of every scope whose settings file is known:
// user, then project and local when Project is set, in the order Claude
// Code ranks them from the most general. A target's MCP is "" when
// ClaudeJSON is unknown.
func (l Locations) Targets() []Target {
	var out []Target
	for _, s := range []Scope{User, Project, Local} {
		if t := l.target(s); t.Settings != "" {
			out = append(out, t)
		}
	}
	return out
}

func (l Locations) target(scope Scope) Target {
	switch scope {
	case User:
		if l.ConfigDir == "" {
			return Target{Scope: User}
		}
		return Target{
			Scope:           User,
			Settings:        filepath.Join(l.ConfigDir, "settings.json"),
			MCP:             l.ClaudeJSON,
			SettingsDirPerm: 0o700,
			MCPDirPerm:      0o700,
		}
	case Project:
		if l.Project == "" {
			return Target{Scope: Project}
		}
		return Target{
			Scope:           Project,
			Settings:        filepath.Join(l.Project, ".claude", "settings.json"),
			MCP:             filepath.Join(l.Project, ".mcp.json"),
			SettingsDirPerm: 0o755,
			MCPDirPerm:      0o755,
		}
	default:
		if l.Project == "" {
			return Target{Scope: Local}
		}
		return Target{
			Scope:           Local,
			Settings:        filepath.Join(l.Project, ".claude", "settings.local.json"),
			MCP:             l.ClaudeJSON,
			ProjectKeys:     projectKeys(l.Project),
			SettingsDirPerm: 0o755,
			MCPDirPerm:      0o700,
		}
	}
}

// projectKeys returns the keys Claude Code may file the project folder dir
// under in ~/.claude.json: the physical path first (Node's process.cwd()
// resolves symlinks), then the path as given. On Windows the keys use
// forward slashes, as Claude Code writes them.
func projectKeys(dir string) []string {
	phys := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		phys = r
	}
	keys := []string{filepath.ToSlash(phys)}
	if phys != dir {
		keys = append(keys, filepath.ToSlash(dir))
	}
	return keys
}
