package tools

import (
	"strings"

	"bottle/pointer"
)

// The server's texts (instructions.md, the tools' descriptions, their
// results) are written once, as Claude Code's model reads them. A server
// another host starts (Deps.Host named) words them for that host: each
// phrase below of Claude Code's texts is replaced by the host's words.
// A host named in Deps.Host has no Read tool (it reads files as
// Host.ReadWith says, read_bottle pages a bottle), sees bottle's tools as
// the functions of Host.Namespace, and its compaction summary is its own:
// bottle does not steer it. TestHostPhrases holds every phrase to a text
// that has it, so that an edited text cannot leave its replacement behind.

// hostPhrases are the pairs of a phrase of Claude Code's texts and h's
// words for it.
func hostPhrases(h pointer.Host) []string {
	return []string{
		// instructions.md
		"keeps a Claude Code session readable", "keeps a " + h.Name + " session readable",
		"Read that file (Read tool) and continue from where it ends.", "Read it with read_bottle and continue from where it ends.",
		"where it conflicts with a summary, the bottle wins.",
		"where it conflicts with the compaction summary (" + h.Name + "'s own: bottle does not steer it), the bottle wins.",
		"2. If the file is too long for one Read, page it with read_bottle: start at offset 0",
		"2. read_bottle pages the bottle: start at offset 0",
		`until "end of bottle".`, `until "end of bottle". Without bottle's tools, read the file with ` + h.ReadWith + ".",
		"the tools use the project's most recently active session.",
		"the tools use the project's most recently active " + h.Name + " thread (else Claude Code session), which may not be this one.",
		// Tool descriptions.
		"Claude Code session id (the transcript's file name, a UUID). Omit it for the current session: " +
			"the most recently modified transcript of the server's project.",
		"Session id, a UUID: a " + h.Name + " thread id (the pointer names it) or a Claude Code session id. " +
			"Pass it: omitted, it means the most recently modified " + h.Name + " thread of the server's folder (else Claude Code's newest transcript), which may not be this session.",
		"Renders the bottle of a Claude Code session and", "Renders the bottle of a session (" + h.Name + "'s or Claude Code's) and",
		"Read the file with the Read tool once this call has returned (a Read made in the same reply may find the file replaced under it), or page it with read_bottle.",
		"Page it with read_bottle, or read the file with " + h.ReadWith + ".",
		"a .jsonl file inside Claude Code's projects folder (~/.claude/projects/ or $CLAUDE_CONFIG_DIR/projects/), " +
			"absolute or relative to it. Paths resolving outside that folder are refused.",
		"a " + h.Name + " rollout (absolute, inside its home folder) or a Claude Code transcript (a .jsonl file inside " +
			"~/.claude/projects/ or $CLAUDE_CONFIG_DIR/projects/, absolute or relative to it). Paths resolving outside those folders are refused.",
		"the default budget (about 20,000 tokens, one Read)", "the default budget (about 20,000 tokens)",
		"Use it when the bottle is too long for one Read; otherwise the Read tool on the bottle's path does the same.",
		"Read bottles with it: " + h.Name + " has no file-reading tool (" + h.ReadWith + " reads the file too).",
	}
}

// worded is s as the host d serves reads it: s itself for Claude Code.
func (d Deps) worded(s string) string {
	if d.Host.Name == "" {
		return s
	}
	return strings.NewReplacer(hostPhrases(d.Host)...).Replace(s)
}

// instructions are the server's instructions for the host d serves:
// [ServerInstructions] for Claude Code; for another host, worded for it,
// with a last line that names the tools' namespace.
func (d Deps) instructions() string {
	if d.Host.Name == "" {
		return ServerInstructions(d.names())
	}
	return d.worded(strings.TrimSpace(Instructions)) + "\n\nIn " + d.Host.Name + " the tools are the functions of the " +
		d.Host.Namespace + " namespace (read_bottle, expand_observation, search_history, …); continue_session picks up " +
		"a past session of either host by its id."
}
