// Package digest turns one Claude Code tool call into one deterministic line
// for a session bottle, used where claude-mem has no observation covering the
// call (SPEC §3.5):
//
//	Read: render/bottle.go — 212 lines
//	Bash: go test ./... — exit 1
//	Task: review security (Explore) — agent finished
//
// A line reads "<Tool>: <salient input> — <outcome>"; the salient part is
// left out when the input has nothing worth showing and the outcome when the
// result says nothing. The caller adds the "- [#t<N>] " prefix.
//
// A digest never carries result bulk: from a tool_result it takes at most a
// count, an exit code, a status word or the short first line of an error.
// Every piece of text passes [privacy.Strip] before anything is taken from
// it, is flattened to one line, is valid UTF-8 and is bounded in runes, so a
// digest is always a single safe line of at most [MaxRunes] runes.
//
// It renders lines only; the transcript reader calls it. It may import
// render/internal/jsonscan (to read results still escaped) and
// render/privacy.
package digest

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"bottle/render/internal/jsonscan"

	"bottle/render/privacy"
)

// MaxRunes bounds the length of a [Line] or [Pending] digest, in runes.
const MaxRunes = 160

// Bounds of the parts of a digest, in runes. Their sum exceeds MaxRunes on
// purpose: a long salient part gives way to the tool name and the outcome.
const (
	toolMax    = 48
	salientMax = 120
	pathMax    = 80
	errorMax   = 56
	outcomeMax = 64
)

// Call is one tool call from a transcript: the tool_use block and its
// tool_result, if any.
type Call struct {
	// ID is the tool_use id ("toolu_…").
	ID string
	// Name is the tool name, e.g. "Bash" or "mcp__github__create_issue".
	Name string
	// Input is the tool_use input object; it may be nil or not valid JSON.
	Input json.RawMessage
	// InputValid promises that Input is valid JSON (the transcript reader
	// has checked its line), so it is not validated again.
	InputValid bool
	// HasResult reports whether a tool_result answered the call.
	HasResult bool
	// Result is the tool_result content as text: the string content, or its
	// text blocks joined with "\n", image blocks appearing as "[image]".
	Result string
	// ResultRaw, when its Body is not nil, stands for Result (which is
	// then empty): the tool_result's string content still JSON-escaped,
	// as the transcript scanner found it. Digests decode only what they
	// read.
	ResultRaw jsonscan.String
	// The decoded ResultRaw, once needed: whole (in Result) or its start.
	decoded bool
	head    string // the decoded start, once hasHead
	hasHead bool
	headAll bool // head is the whole result
	// IsError is the tool_result's is_error flag.
	IsError bool
	// Structured is the line's toolUseResult, or nil. Callers may drop it to
	// save decoding time; digests then lose only a few details (a Bash call
	// interrupted without a marker in its result, counts of persisted output).
	Structured json.RawMessage
}

// Line returns the digest of c: "<Tool>: <salient input> — <outcome>", one
// line of at most [MaxRunes] runes. Paths inside cwd are shown relative to it;
// cwd may be empty. A call with no result yet has the outcome "no result".
func Line(c Call, cwd string) string {
	tool := toolName(c.Name)
	d := describe(&c, cwd, true)
	out := outcome(&c, d.success)
	// The salient part gives way first, so the outcome always shows.
	budget := MaxRunes - runeLen(tool) - runeLen(out) - runeLen(": ") - runeLen(" — ")
	sal := bound(d.salient, max(budget, 12))
	return bound(join(tool, ": ", sal, out), MaxRunes)
}

// Pending returns the short form for a call newer than the claude-mem
// observations: "<Tool> — <salient input>", at most [MaxRunes] runes.
func Pending(c Call, cwd string) string {
	tool := toolName(c.Name)
	return bound(join(tool, " — ", describe(&c, cwd, false).salient, ""), MaxRunes)
}

// Both returns Line and Pending of one call, reading its input once.
// Describers take the salient part from the input alone (the result only
// shapes the outcome), so the pending form can reuse it.
func Both(c Call, cwd string) (line, pending string) {
	tool := toolName(c.Name)
	d := describe(&c, cwd, true)
	out := outcome(&c, d.success)
	budget := MaxRunes - runeLen(tool) - runeLen(out) - runeLen(": ") - runeLen(" — ")
	sal := bound(d.salient, max(budget, 12))
	line = bound(join(tool, ": ", sal, out), MaxRunes)
	pending = bound(join(tool, " — ", d.salient, ""), MaxRunes)
	return line, pending
}

// Salient returns the salient-input part of the digest alone ("" when the
// input has nothing worth showing).
func Salient(c Call, cwd string) string {
	return describe(&c, cwd, false).salient
}

// join is tool, then sep+sal when sal is set, then " — "+out when out is
// set.
func join(tool, sep, sal, out string) string {
	var b strings.Builder
	b.Grow(len(tool) + len(sep) + len(sal) + len(out) + 5)
	b.WriteString(tool)
	if sal != "" {
		b.WriteString(sep)
		b.WriteString(sal)
	}
	if out != "" {
		b.WriteString(" — ")
		b.WriteString(out)
	}
	return b.String()
}

// toolName is the display name of a tool: MCP tools "mcp__server__tool" are
// shown as "server/tool".
func toolName(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok && rest != "" {
		if server, tool, ok := strings.Cut(rest, "__"); ok && server != "" && tool != "" {
			name = server + "/" + tool
		} else {
			name = rest
		}
	}
	name = clean(name, toolMax)
	if name == "" {
		return "tool"
	}
	return name
}

// outcome is the outcome part of a digest; success is the tool's own reading
// of a normal result.
func outcome(c *Call, success string) string {
	if !c.HasResult {
		return "no result"
	}
	if c.headHasPrefix(256, "[Request interrupted by user") {
		return "interrupted"
	}
	if c.IsError {
		return errorOutcome(c)
	}
	if c.headHasPrefix(256, "[Old tool result content cleared]") {
		return ""
	}
	return bound(success, outcomeMax)
}

// errorOutcome reads an error result: "exit N" for a shell's "Exit code N",
// "rejected" when the user refused the call, else "error: <first line>".
func errorOutcome(c *Call) string {
	head := strings.TrimLeft(c.resultPrefix(256), " \t\r\n")
	if rest, ok := strings.CutPrefix(head, "Exit code "); ok {
		if n := leadingDigits(rest); n != "" {
			return "exit " + n
		}
	}
	if strings.HasPrefix(head, "User rejected") ||
		strings.Contains(head, "doesn't want to proceed with this tool use") {
		return "rejected"
	}
	s := strings.TrimSpace(privacy.Strip(c.result()))
	if inner, ok := strings.CutPrefix(s, "<tool_use_error>"); ok {
		inner, _, _ = strings.Cut(inner, "</tool_use_error>")
		s = strings.TrimSpace(inner)
	}
	for _, p := range []string{"Error: ", "Error:", "error: "} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = strings.TrimSpace(rest)
			break
		}
	}
	line := firstLine(s)
	// Hook and JSON-borne messages often carry escaped newlines.
	if i := strings.Index(line, `\n`); i > 0 {
		line = line[:i]
	}
	if line = flatten(line); line != "" {
		return "error: " + bound(line, errorMax)
	}
	return "error"
}

// clean is a free text prepared for display: stripped, flattened to one line
// and bounded to max runes.
func clean(s string, max int) string {
	s = privacy.Strip(s)
	// Cut before flattening so a huge field costs one strip, not a copy.
	if lim := 4*max + 16; len(s) > lim {
		s = flatten(prefix(s, lim))
		if runeLen(s) < max {
			return s + "…"
		}
		return bound(s, max)
	}
	return bound(flatten(s), max)
}

// flatten turns s into one line of valid UTF-8: every run of spaces and
// control characters (newlines included) becomes one space, invalid bytes
// become U+FFFD, and the ends are trimmed.
func flatten(s string) string {
	if isFlat(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		// An invalid byte decodes as utf8.RuneError, written out as U+FFFD.
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isFlat reports whether flatten(s) == s, the common case for short inputs.
func isFlat(s string) bool {
	prev := byte(' ')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == ' ' && prev == ' ' {
			return false
		}
		prev = c
	}
	return prev != ' ' || s == ""
}

// bound cuts s to at most max runes, ending a cut text with "…".
func bound(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			if utf8.RuneCountInString(s[i:]) == 1 {
				return s
			}
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// boundTail cuts s to at most max runes by keeping its end, preferring to
// start at a path separator: "…/strategy/manual_commit.go".
func boundTail(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	i := 0
	for skip := n - (max - 1); skip > 0; skip-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	tail := s[i:]
	if j := strings.IndexAny(tail, `/\`); j > 0 && j < len(tail)-1 {
		tail = tail[j:]
	}
	return "…" + tail
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// prefix is s cut to at most n bytes, on a rune boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
		s = rest
	}
	return ""
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && i < 12 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
