// Package pointer owns what bottle tells Claude Code outside the bottle:
// the pointer a SessionStart hook injects after a compaction ([Text]), the
// instruction the PreCompact hook adds to the summariser's prompt
// ([SteerInstruction]), the names under which the model sees bottle's MCP
// server and tools ([MCPNames]), and the openings of the footers the tools
// end their results with ([FooterOpenings]). [Openings], the steer
// instruction's opening and the footers' are lines a message must not be
// able to forge: the bottle's escaping protects them.
//
// It is pure text: it reads only a transcript's SessionStart contexts
// ([InContext]), writes nothing and does no MCP. It may import ident,
// host/claudecode/transcript and internal/shown; never render.
package pointer
