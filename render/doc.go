// Package render is bottle's core: it turns a Claude Code session's records
// — its transcript and, where the user runs claude-mem, the stored prompts,
// observations and summaries — into a bottle, one markdown file holding the
// conversation verbatim with one line per tool activity.
//
// The pipeline of [Render]:
//
//  1. read: the transcript (package transcript) and claude-mem's session
//     (package claudemem) are read at the same time;
//  2. model: the transcript's events become turns ([Bottle], [Turn], [Item]);
//     without a transcript the turns are rebuilt from the stored prompts
//     (reconstructed mode);
//  3. merge: claude-mem's observations replace the digests of the turns
//     they cover, and newer tool calls stay as pending lines;
//  4. budget: when the bottle is over its token budget the oldest turns are
//     folded to one line each, then digests are shortened ([Options]);
//  5. markdown: every text passes the privacy stripper and the structural
//     escaping (package structural) on its way out.
//
// Other entry points: [Expand] returns the records behind [#id]s (the one
// expander of the CLI and the MCP tool, with the id grammar of package
// ident); [Result.PointerFor] words the pointer (package pointer) for a
// render; [Example] renders the embedded example session. The working
// state is package workstate's, fed by the transcript read.
//
// Render receives resolved paths (package locate finds them) and returns
// bytes (package bottles stores them): it knows no folder layout, does no
// MCP, writes nothing to stdout or stderr and logs nothing. It may import
// session, host/claudecode/transcript, claudemem, ident (ids and modes),
// workstate, pointer, internal/shown, render/digest (paths shown as digests
// show them), render/structural (which lines are structure, and their
// escaping) and privacy; never locate.
package render
