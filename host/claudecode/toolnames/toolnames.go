// Package toolnames holds the names under which Claude Code shows bottle's
// MCP server and tools to the model: the settings install's and the
// plugin's, and which of a tool call's names are bottle's own.
//
// It is a leaf of the standard library alone, because the PreToolUse hook's
// binary imports it and runs before every Read: anything it linked would be
// initialised on each call. It does no I/O.
package toolnames

import (
	"slices"
	"strings"
)

// MCPNames are the names under which the model sees bottle's MCP server and
// its tools. They depend on how bottle was installed: Claude Code names a
// server registered in settings by its key and its tools
// mcp__<server>__<tool>, and a plugin's server plugin:<plugin>:<server> with
// tools mcp__plugin_<plugin>_<server>__<tool>.
type MCPNames struct {
	// Server is the server's name as Claude Code shows it.
	Server string
	// ToolPrefix goes before each tool's name.
	ToolPrefix string
}

var (
	// SettingsNames are the names under "hookbin install" (and the
	// repository's .mcp.json).
	SettingsNames = MCPNames{Server: "bottle", ToolPrefix: "mcp__bottle__"}
	// PluginNames are the names under the plugin bottle.
	PluginNames = MCPNames{Server: "plugin:bottle:bottle", ToolPrefix: "mcp__plugin_bottle_bottle__"}
)

// NamesFor returns the names of the install a hook or server runs under,
// given its $CLAUDE_PLUGIN_ROOT: Claude Code sets that variable for a
// plugin's hooks and servers only.
func NamesFor(pluginRoot string) MCPNames {
	if pluginRoot != "" {
		return PluginNames
	}
	return SettingsNames
}

// Tool is the name the model calls tool by. The zero MCPNames are
// [SettingsNames].
func (n MCPNames) Tool(tool string) string {
	if n.ToolPrefix == "" {
		n = SettingsNames
	}
	return n.ToolPrefix + tool
}

// ToolNames are bottle's MCP tools, by their own names. The PreToolUse
// hook allows exactly these under either install's prefix; the tools
// package's tests hold the list to the server's.
var ToolNames = []string{"read_bottle", "expand_observation", "search_history", "list_sessions", "render_bottle"}

// AllToolNames are bottle's tools under every name the model may call them
// by: the settings install's and the plugin's.
func AllToolNames() []string {
	out := make([]string, 0, 2*len(ToolNames))
	for _, n := range []MCPNames{SettingsNames, PluginNames} {
		for _, t := range ToolNames {
			out = append(out, n.Tool(t))
		}
	}
	return out
}

// OwnTool returns the bare name of one of bottle's tools when name is that
// tool as the model calls it under either install's prefix, else "".
func OwnTool(name string) string {
	for _, n := range []MCPNames{SettingsNames, PluginNames} {
		bare, ok := strings.CutPrefix(name, n.ToolPrefix)
		if ok && slices.Contains(ToolNames, bare) {
			return bare
		}
	}
	return ""
}
