package pointer

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"bottle/host/claudecode/transcript"
	"bottle/ident"
	"bottle/internal/shown"
)

// Limits of the SessionStart pointer. Claude Code caps an
// additionalContext value at 8,000 UTF-16 units and 200 lines in some paths
// and at 10,000 characters in all; a pointer is about 1,500 units, so the
// caps only bind on hostile input.
const (
	MaxUnits = 8000
	MaxLines = 200
	// TaskMaxChars bounds the "Current task:" line's text, in characters.
	TaskMaxChars = 300
	// pathMaxUnits bounds the bottle path as shown (PATH_MAX is 4,096 bytes
	// on Linux; a longer path could not be opened anyway).
	pathMaxUnits = 4096
)

// Input is what the pointer injected at SessionStart names.
type Input struct {
	// BottlePath is the bottle's absolute path.
	BottlePath string
	// SessionID is the session the bottle belongs to.
	SessionID string
	// Mode selects the wording: ModeReconstructed warns that the assistant's
	// replies are not preserved; anything else is worded as full mode.
	Mode ident.Mode
	// CurrentTask is raw text: the latest claude-mem session summary (see
	// [SummaryTask]) or the last genuine user prompt. [Text] cleans and
	// bounds it with [TaskLine].
	CurrentTask string
	// NeedsPaging says the bottle is too long for one Read
	// (render.Result.NeedsPaging).
	NeedsPaging bool
	// TaskGenerated says CurrentTask comes from claude-mem's generated
	// summary, not from the user's words: the pointer labels it so.
	TaskGenerated bool
	// Fresh words the pointer for a new conversation that picks the
	// session up (the continue_session prompt): there is no compaction
	// summary above it to weigh the bottle against.
	Fresh bool
	// LastActive is the session's last activity (render.Result.LastActivity);
	// zero leaves it out. Now is the time the pointer is written (zero: no
	// age is worked out): a record older than [StaleAfter] gets a warning.
	LastActive, Now time.Time
	// MCP names the tools as the model sees them in this install; the zero
	// value is [SettingsNames].
	MCP MCPNames
	// NotRefreshed, when not zero, says the bottle could not be rendered
	// or written at this compaction: the pointer names the bottle as it
	// was last written, at NotRefreshed, and says its end is missing.
	NotRefreshed time.Time
	// Standalone says claude-mem holds no record of the session
	// (render.Result.Standalone): tool activity is shown as digests, and nothing
	// settles into observations.
	Standalone bool
	// Host is the wording of the host the pointer is read in; the zero
	// Host is Claude Code's (MCP names its tools).
	Host Host
	// RecordedBy names the host that recorded the session when it is not
	// the one the pointer is read in (a session handed across hosts); ""
	// is the reading host itself.
	RecordedBy string
}

// Openings are the starts of the pointer's lines (all but the path line
// and the indented continuations, which cannot be told from prose). The
// pointer stands above the bottle in the model's context, so a message
// line that starts so could pass for it: the bottle escapes them. A test
// holds every line [Text] writes to one of them.
var Openings = []string{
	"# [bottle]",
	// Whatever follows it: "Before doing anything else, Read ~/.ssh/…" is
	// as imperative as the pointer's own.
	"Before doing anything else",
	"Last active:",
	"- This record is",
	"- It could not be refreshed now",
	"It is longer than one Read allows",
	"- It is a partial reconstruction",
	"- The last session summary describes",
	"- It is the authoritative session record",
	"- The final assistant message in it",
	"- The bottle is re-rendered after every turn",
	"- The newest tool activity may",
	"- Lines tagged [#id]",
	"Current task",
	"- It was recorded by",
}

// StaleAfter is the age past which the pointer warns that the record may
// no longer match the working tree.
const StaleAfter = 7 * 24 * time.Hour

// Text is the pointer a SessionStart hook injects after a compaction: read
// the bottle and continue. It is a pure function of p and stays within
// [MaxUnits] UTF-16 units and [MaxLines] lines whatever p holds.
func Text(p Input) string {
	path := shownField(p.BottlePath, pathMaxUnits)
	id := shownID(p.SessionID)
	task := TaskLine(p.CurrentTask)
	if task == "" {
		task = "not recorded — the end of the bottle shows where the session stopped."
	}

	var b strings.Builder
	b.WriteString(pointerHead(path, id, p.Host))
	tool := p.MCP.Tool
	recorded := shownField(p.RecordedBy, 40)
	if p.Host.Name != "" {
		tool = p.Host.tool
		if recorded == "" {
			recorded = p.Host.Name
		}
		b.WriteString("- It was recorded by " + recorded + ". Read it with " + tool("read_bottle") + " (in the " +
			p.Host.Namespace + " namespace;\n  session_id " + id + "), which pages it, or with " + p.Host.ReadWith + ".\n")
	} else if recorded != "" {
		b.WriteString("- It was recorded by " + recorded + ": the bottle is its whole record, whichever host you continue in.\n")
	}
	if !p.LastActive.IsZero() {
		b.WriteString("Last active: " + p.LastActive.UTC().Format(time.RFC3339) + "\n")
		if age := p.Now.Sub(p.LastActive); !p.Now.IsZero() && age > StaleAfter {
			b.WriteString(fmt.Sprintf("- This record is %d days old: verify its state against the working tree before acting on it.\n",
				int(age/(24*time.Hour))))
		}
	}
	if !p.NotRefreshed.IsZero() {
		b.WriteString("- It could not be refreshed now; it was last rendered at " + p.NotRefreshed.UTC().Format(time.RFC3339) + ", so what\n" +
			"  happened after that is missing from it. Call " + tool("render_bottle") + " to try again.\n")
	}
	if p.NeedsPaging && p.Host.Name == "" {
		b.WriteString("It is longer than one Read allows (2,000 lines or 25,000 tokens): page it with " + tool("read_bottle") + "\n" +
			"  (session_id " + id + "), or Read it in parts with offset and limit.\n")
	}
	if p.Mode == ident.ModeReconstructed {
		b.WriteString("- It is a partial reconstruction: only the user's messages are verbatim. Your own replies\n" +
			"  were not preserved — do not assume prior phrasings. Session summary blocks are generated,\n" +
			"  not your words.\n")
		b.WriteString("- The last session summary describes where you left off; continue from there.\n")
	} else {
		record := "- It is the authoritative session record: verbatim conversation, with observations in place of\n  tool activity."
		if p.Standalone {
			record = "- It is the authoritative session record: verbatim conversation, with each tool call as a\n  one-line digest."
		}
		if p.Fresh {
			b.WriteString(record + " This conversation starts without it: the bottle is all you know of the session.\n")
		} else {
			b.WriteString(record + " Where it conflicts with the summary above, the bottle wins.\n")
		}
		b.WriteString("- The final assistant message in it was already delivered to the user. Do not repeat it or redo\n" +
			"  work it describes as done — continue from its end state.\n")
	}
	if p.Standalone {
		b.WriteString("- The bottle is re-rendered after every turn; call " + tool("render_bottle") + " if the last few\n" +
			"  minutes look thin.\n")
	} else {
		b.WriteString("- The newest tool activity may still be settling into observations (pending lines are marked ⏳);\n" +
			"  call " + tool("render_bottle") + " if the last few minutes look thin.\n")
	}
	if p.Host.Name != "" {
		b.WriteString("- Lines tagged [#id] expand on demand: " + tool("expand_observation") + ", passing\n" +
			"  session_id " + id + ". " + tool("search_history") + " searches the whole record.\n")
	} else {
		b.WriteString("- Lines tagged [#id] expand on demand: " + tool("expand_observation") + ", passing\n" +
			"  session_id " + id + ". If the file is too long for one Read, page it with " + tool("read_bottle") + ".\n")
	}
	if p.TaskGenerated {
		b.WriteString("Current task (from claude-mem's generated summary, not the user's words): " + task + "\n")
	} else {
		b.WriteString("Current task: " + task + "\n")
	}
	return clampText(b.String(), MaxUnits, MaxLines)
}

// shownID is a session id as the pointer shows it.
func shownID(id string) string {
	if !ident.ValidSession(id) {
		return shownField(id, 128)
	}
	return id
}

// pointerHead is the pointer's first three lines: heading, instruction and
// the bottle's path with the session id, both as shown ([shownField]).
func pointerHead(path, id string, h Host) string {
	read := "Read this file"
	if h.Name != "" {
		// No Read tool: the next line says how.
		read = "read this file"
	}
	return "# [bottle] Endless Mode — session continuation\n" +
		"Before doing anything else, " + read + " and continue the session from where it ends:\n" +
		path + "   (session " + id + ")\n"
}

// InContext reports whether the context Claude Code restores from
// the transcript at transcriptPath on resume (what follows its last
// compaction) holds a SessionStart pointer to the bottle at bottlePath of
// session sessionID ([Holds]), and whether the transcript holds a
// compaction at all.
func InContext(ctx context.Context, transcriptPath, bottlePath, sessionID string) (held, compacted bool, err error) {
	texts, compacted, err := transcript.StartContexts(ctx, transcriptPath)
	if err != nil {
		return false, false, err
	}
	return Holds(texts, bottlePath, sessionID), compacted, nil
}

// Holds reports whether any of texts (what SessionStart hooks
// injected into a context) holds a pointer to the bottle at
// bottlePath of session sessionID: its heading, instruction and path line
// as [Text] writes them. A pointer to another session's bottle, or to
// another path, does not count.
func Holds(texts []string, bottlePath, sessionID string) bool {
	return HoldsFor(texts, bottlePath, sessionID, Host{})
}

// HoldsFor is [Holds] of the pointer worded for host h.
func HoldsFor(texts []string, bottlePath, sessionID string, h Host) bool {
	head := pointerHead(shownField(bottlePath, pathMaxUnits), shownID(sessionID), h)
	for _, t := range texts {
		if strings.Contains(t, head) {
			return true
		}
	}
	return false
}

// TaskLine turns raw text into the one line shown after "Current task:":
// private blocks stripped, invalid UTF-8 replaced, whitespace
// and control characters collapsed to single spaces, and at most
// [TaskMaxChars] characters, the last of them "…" when it was cut.
func TaskLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return shown.Line(s, TaskMaxChars)
}

// SummaryTask words a claude-mem session summary as the current task: its
// request and, when there are any, its next steps. Either may be empty; both
// empty gives "".
func SummaryTask(request, nextSteps string) string {
	next := TaskLine(nextSteps)
	if next == "" {
		return TaskLine(request)
	}
	// Keep room for the next steps: they say where to go on from.
	req := shown.Line(TaskLine(request), TaskMaxChars/2)
	if req == "" {
		return "next steps: " + next
	}
	return req + " — next steps: " + next
}

// shownField is a path or id as the pointer shows it on its one line:
// invalid UTF-8 and control characters replaced by U+FFFD, and at most
// maxUnits UTF-16 units, cut with "…".
func shownField(s string, maxUnits int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if utf16Len(s) <= maxUnits {
		return s
	}
	return cutUnits(s, maxUnits-1) + "…"
}

// clampText keeps at most maxLines lines and maxUnits UTF-16 units of s,
// cutting at a rune boundary.
func clampText(s string, maxUnits, maxLines int) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
			if n == maxLines {
				s = s[:i+1]
				break
			}
		}
	}
	if utf16Len(s) > maxUnits {
		s = cutUnits(s, maxUnits)
	}
	return s
}

// cutUnits returns the longest prefix of s of at most max UTF-16 units.
func cutUnits(s string, max int) string {
	units := 0
	for i, r := range s {
		units += utf16Units(r)
		if units > max {
			return s[:i]
		}
	}
	return s
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Units(r)
	}
	return n
}

func utf16Units(r rune) int {
	if n := utf16.RuneLen(r); n > 0 {
		return n
	}
	return 1 // invalid runes are written as U+FFFD
}
