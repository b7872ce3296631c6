package pointer

// Host is how a host other than Claude Code words the pointer: a small
// value the host's adapter provides, so that the pointer holds no host's
// name. The zero Host is Claude Code's wording (its Read tool, the tools'
// names as [MCPNames] gives them).
type Host struct {
	// Name is the host as the pointer says the record came from it.
	Name string
	// Namespace is where the model finds bottle's tools ("mcp__bottle"):
	// the pointer names them bare, as the namespace's functions.
	Namespace string
	// ReadWith says how the model reads a file without bottle's tools
	// (its shell tool, say).
	ReadWith string
}

// tool is the name the model calls bottle's tool by under h.
func (h Host) tool(name string) string { return name }
