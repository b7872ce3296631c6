// Package record is the expander's side of the records behind a bottle's
// ids that the bottle itself does not hold: claude-mem's observations and
// summaries, looked up in its database (only the named session's own), and
// every record laid out as plain text — an observation, a session summary,
// a tool call's input and result (capped, with a note of the cut). Every
// text passes the privacy stripper and shown.Clean on its way out.
//
// It reads claude-mem's database and nothing else: the transcript, the ids'
// grammar and the turns are package render's ([render.Expand]); it writes
// nothing and logs nothing.
package record
