package render

import "unicode/utf8"

// SteerMaxChars bounds the PreCompact instruction (docs/format.md), in
// characters: Claude Code appends it to the summariser's prompt on every
// compaction.
const SteerMaxChars = 600

// steerOpening starts the instruction. It is in the escaping list
// (structural), so that no message can forge the instruction in a bottle.
const steerOpening = "[bottle] A verbatim record of this session"

// SteerInstruction is what the PreCompact hook prints for Claude Code to
// merge into the compaction's custom instructions (docs/format.md, "The
// PreCompact instruction"): the record
// will be re-attached from bottlePath, so the summary should carry what it
// does not make plain rather than reproduce it. It is one line and a pure
// function of bottlePath (PreCompact may fire several times per
// compaction); it is "" when the path does not fit in [SteerMaxChars].
func SteerInstruction(bottlePath string) string {
	path := shownField(bottlePath, pathMaxUnits)
	if path == "" {
		return ""
	}
	s := steerOpening + " (every user and assistant message, and each tool call as one [#id] line) is saved at " + path +
		" and will be re-attached after this compaction. The summary need not reproduce messages, code or file contents:" +
		" keep it short, and carry the current task, the decisions made and their reasons, open problems, and the next step."
	if utf8.RuneCountInString(s) > SteerMaxChars {
		return ""
	}
	return s
}
