package pointer

import "bottle/host/claudecode/toolnames"

// Claude Code's names for bottle's server and tools live with that host
// (package toolnames, a leaf the PreToolUse binary links alone); these
// aliases keep the pointer's callers on one import.
type MCPNames = toolnames.MCPNames

var (
	SettingsNames = toolnames.SettingsNames
	PluginNames   = toolnames.PluginNames
	ToolNames     = toolnames.ToolNames
)

// NamesFor returns the names of the install a hook or server runs under,
// given its $CLAUDE_PLUGIN_ROOT.
func NamesFor(pluginRoot string) MCPNames { return toolnames.NamesFor(pluginRoot) }

// AllToolNames are bottle's tools under every name the model may call them by.
func AllToolNames() []string { return toolnames.AllToolNames() }

// OwnTool returns the bare name of one of bottle's tools, else "".
func OwnTool(name string) string { return toolnames.OwnTool(name) }

// The openings of the footer lines bottle's tools end a result with:
// read_bottle's, search_history's and list_sessions'. The tools write
// their footers from these, and the bottle escapes them: a message line
// must not pass for a tool's footer when a page of the bottle is read.
const (
	BottleFooter   = "[bottle "
	SearchFooter   = "[search "
	SessionsFooter = "[sessions "
)

// FooterOpenings are the tools' footer openings.
var FooterOpenings = []string{BottleFooter, SearchFooter, SessionsFooter}

// The headings of the records expand_observation ("## #102401 · …") and
// hookbin expand ("## [#t3]") print, one per id.
const (
	ToolRecordHeading = "## #"
	CLIRecordHeading  = "## [#"
)

// RecordHeadings are the records' headings.
var RecordHeadings = []string{ToolRecordHeading, CLIRecordHeading}
