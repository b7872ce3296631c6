package transcript

import (
	"bottle/internal/jsonscan"
	"bottle/session"
)

// HostName is Claude Code's name where a record is told from another
// host's (a pointer to a session handed across hosts). The reader leaves
// session.Transcript.Host empty: Claude Code is the default host.
const HostName = "Claude Code"

// The session model the reader produces is package session's, host-neutral;
// these names keep the reader's callers reading it as before.
type (
	Transcript  = session.Transcript
	Event       = session.Event
	EventKind   = session.EventKind
	IDEContext  = session.IDEContext
	ToolCall    = session.ToolCall
	ToolDetail  = session.ToolDetail
	ReadOptions = session.ReadOptions
	Diagnostics = session.Diagnostics
)

// Read is Claude Code's session.Reader.
var _ session.Reader = Read

// Event kinds (session.EventKind).
const (
	EvPrompt     = session.EvPrompt
	EvMidTurn    = session.EvMidTurn
	EvCommand    = session.EvCommand
	EvBash       = session.EvBash
	EvInterrupt  = session.EvInterrupt
	EvTaskNote   = session.EvTaskNote
	EvCompaction = session.EvCompaction
	EvAssistant  = session.EvAssistant
	EvTool       = session.EvTool
	EvIDE        = session.EvIDE
	EvAnswer     = session.EvAnswer
)

// Start is the start of the result's text: at least n bytes of it, or all
// of it, decoding no more of a one-string result than that
// (session.ResultHead).
func (r *toolResult) Start(n int) string {
	if !r.decoded {
		if body, ok := r.body(); ok {
			return jsonscan.DecodePrefix(body, n)
		}
		r.text, r.decoded = resultText(r.raw), true
	}
	return r.text
}
