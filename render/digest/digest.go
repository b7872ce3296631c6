// Package digest turns one Claude Code tool call into one deterministic line
// for a session bottle, used where claude-mem has no observation covering the
// call (docs/format.md, "Tool digests"):
//
//	Read: render/bottle.go:120-180 — 61 lines
//	Bash: go test ./... — exit 1: bottle_test.go:41: got 3 turns, want 4
//	Grep: "func Line" in render — 2 files: render/digest/digest.go, render/bottle.go
//	Task: review security (Explore) — agent finished
//
// A line reads "<Tool>: <salient input> — <outcome>"; the salient part is
// left out when the input has nothing worth showing and the outcome when the
// result says nothing. The caller adds the "- [#t<N>] " prefix.
//
// A digest is a value, a [Line]: the tool, the salient part and its [Kind]
// (a path with its range, a command, a search pattern with its folder, or
// text), the outcome, the matched paths and a detail. Its methods give
// every form a bottle writes: the full line, the pending form, the short
// forms a budget picks and the key that tells two lines of one path or
// command apart, so that a caller shortens a line by policy alone and
// never reads the text back.
//
// Each family of tools has its describer file (files.go, shell.go,
// search.go, agents.go, web.go, interaction.go; generic.go for the rest
// and for MCP tools): a new tool's digest is one describer and one entry
// in its family's map, and the golden file testdata/digest.golden pins
// every form of every fixture (go test ./render/digest -update).
//
// A digest never carries result bulk: from a tool_result it takes at most a
// count, the line numbers a Read returned, an exit code, a status word, one
// line of an error, the first paths a Grep or Glob matched, the user's
// answers to AskUserQuestion (bounded like an error line) and, in a detail
// ([Line].Detail), the first file paths a report or an output cites; from an
// input, a detail may list the code names an edit changed. An output too
// large to be shown inline is read from the line's toolUseResult
// (persisted.go). [Answers] gives those answers whole, as the user's words,
// for the turn to show. Every piece of
// text passes [privacy.Strip] before anything is taken from it, is flattened
// to one line, is valid UTF-8 and is bounded in runes, so a digest is always
// a single safe line of at most [MaxRunes] runes ([MaxPathListRunes] for
// the lines that name paths).
//
// It renders lines only; the transcript reader calls it. It may import
// internal/jsonscan (to read results still escaped) and
// privacy.
package digest

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"bottle/internal/jsonscan"

	"bottle/privacy"
)

// MaxRunes bounds the length of a [Line]'s full or pending form, in runes,
// but for the lines that name paths ([MaxPathListRunes]).
const MaxRunes = 160

// MaxPathListRunes bounds the full [Line] of a Grep or Glob call, in runes: it
// names the first matched paths, what a session most often opens next.
const MaxPathListRunes = 240

// Bounds of the parts of a digest, in runes. Their sum exceeds MaxRunes on
// purpose: a long salient part gives way to the tool name and the outcome.
const (
	toolMax    = 48
	salientMax = 150
	pathMax    = 80
	errorMax   = 100
	outcomeMax = 64
	// salientKeep is what a long outcome (an error line) leaves the salient
	// part: enough for a command's start or a path's name.
	salientKeep = 40
	// maxPaths is how many matched paths a Grep or Glob line may name.
	maxPaths = 5
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
	// save decoding time but for a persisted output, whose whole output only
	// it holds (see inlined); digests then lose only a few details (a Bash
	// call interrupted without a marker in its result).
	Structured json.RawMessage
}

// Of returns the digest of c as a [Line]. Paths inside cwd are shown
// relative to it; cwd may be empty. A call with no result yet has the
// outcome "no result".
func Of(c Call, cwd string) Line { return DescribeCall(&c, cwd) }

// Pending returns the short form for a call newer than the claude-mem
// observations: "<Tool> — <salient input>", at most [MaxRunes] runes.
func Pending(c Call, cwd string) string {
	tool := toolName(c.Name)
	return bound(join(tool, " — ", describe(&c, cwd, false).salient, ""), MaxRunes)
}

// Describe returns the line of one call, every form from one reading of
// its input. Describers take the salient part from the input alone (the
// result only shapes the outcome and the range seen), so the pending form
// can reuse it.
func Describe(c Call, cwd string) Line { return DescribeCall(&c, cwd) }

// DescribeCall is Describe of a call the caller keeps, so that one Call
// may serve call after call (a Call handed to Describe is moved to the
// heap, one allocation per call): nothing of c is kept past the return,
// and c is to be set whole, its unexported fields zero, before each use.
func DescribeCall(c *Call, cwd string) Line {
	c = inlined(c)
	tool := toolName(c.Name)
	d := describe(c, cwd, true)
	p := partsOf(c, tool, &d)
	if d.salient != p.salient {
		p.Pending = d.salient
	}
	return p.build(c, &d)
}

// detailOf is the detail of a call whose line is lineRunes long: what d.detail
// lists where the result is normal or missing and the line leaves room.
func detailOf(c *Call, lineRunes int, d *description) string {
	if d.detail == nil {
		return ""
	}
	out, _, normal := outcome(c, d)
	if c.HasResult && !normal {
		return ""
	}
	sep := " — "
	if out != "" {
		sep = "; "
	}
	detail := d.detail(MaxRunes - lineRunes - runeLen(sep))
	if detail == "" {
		return ""
	}
	return sep + detail
}

// LineMax is the bound of a [Line] of the tool name, in runes.
func LineMax(name string) int {
	if name == "Grep" || name == "Glob" {
		return MaxPathListRunes
	}
	return MaxRunes
}

// composes reports whether sal is compose(subject, rng, scope, note),
// without putting that together.
func composes(sal, subject, rng, scope, note string) bool {
	rest, ok := strings.CutPrefix(sal, subject)
	cut := func(prefix, part string) {
		if ok && part != "" {
			if rest, ok = strings.CutPrefix(rest, prefix); ok {
				rest, ok = strings.CutPrefix(rest, part)
			}
		}
	}
	cut(":", rng)
	cut(" in ", scope)
	return ok && rest == note
}

// lineParts are the parts of a line and the salient part it shows.
type lineParts struct {
	Parts
	salient string
}

// partsOf works out the parts of c's line from its description d. The
// salient part gives way first, so the outcome always shows; a long
// outcome (an error line) is cut so that the salient part keeps
// salientKeep runes. Matched paths fill what room the line has left.
func partsOf(c *Call, tool string, d *description) lineParts {
	out, status, normal := outcome(c, d)
	p := Parts{Tool: tool, Kind: d.kind, Subject: d.subject, Range: d.rng, Scope: d.shownScope(), Note: d.note, Status: status}
	sal := d.salient
	if normal && d.seenRng != "" {
		p.Range = d.seenRng
		sal = compose(p.Subject, p.Range, p.Scope, p.Note)
	}
	room := MaxRunes - runeLen(tool) - runeLen(": ") - runeLen(" — ")
	if keep := min(runeLen(sal), salientKeep); runeLen(out) > room-keep {
		out = bound(out, max(room-keep, outcomeMax))
	}
	sal = bound(sal, max(room-runeLen(out), 12))
	lim := LineMax(c.Name)
	n := runeLen(join(tool, ": ", sal, out))
	if normal && d.npaths > 0 {
		paths := d.paths[:d.npaths]
		shown, last := fitPaths(n, paths, d.total, lim)
		if shown < len(paths) && d.compact {
			// The paths matter more than the input's whole wording.
			scope := d.shownScope()
			if under(paths, d.scope) {
				scope = ""
			}
			alt := strings.TrimSpace(compose(d.compactSubject, "", scope, d.note))
			altN := runeLen(join(tool, ": ", alt, out))
			if k, altLast := fitPaths(altN, paths, d.total, lim); k > shown {
				sal, n, shown, last = alt, altN, k, altLast
				p.Subject, p.Scope = d.compactSubject, scope
			}
		}
		if shown > 0 {
			// d is the caller's, to describe this call: its array may
			// hold the paths shown.
			paths[shown-1] = last
			p.Paths = paths[:shown]
			p.More = max(d.total, len(paths)) - shown
		}
	}
	if p.Kind == KindText || !composes(sal, p.Subject, p.Range, p.Scope, p.Note) {
		// Text, or parts the line had to cut: the salient part is one.
		p.Subject, p.Range, p.Scope, p.Note = sal, "", "", ""
	}
	p.Outcome = out
	if p.Status != "" && !strings.HasPrefix(out, p.Status+": ") {
		p.Status = ""
	}
	p.Max = lim
	return lineParts{Parts: p, salient: sal}
}

// fitPaths is how many of paths a line of n runes shows within lim runes,
// ", +N more" for the rest of total counted, and the last of them as shown:
// a first path too long for the line shows its end, the file name; later
// ones give way to "+N more".
func fitPaths(n int, paths []string, total, lim int) (shown int, last string) {
	total = max(total, len(paths))
	// moreLen is the length of ", +N more" after shown paths, 0 for none.
	moreLen := func(shown int) int {
		if shown >= total {
			return 0
		}
		return len(", +") + len(strconv.Itoa(total-shown)) + len(" more")
	}
	for _, p := range paths {
		sep := len(", ")
		room := lim - n - sep - moreLen(shown+1)
		if runeLen(p) > room {
			if shown > 0 || room < 16 {
				break
			}
			p = boundTail(p, room)
		}
		n += sep + runeLen(p)
		shown, last = shown+1, p
	}
	return shown, last
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

// outcome is the outcome part of a digest; d.success is the tool's own
// reading of a normal result. normal reports whether that reading is the
// outcome: the result is there, not an error, interrupted or cleared.
// status is the part a short form keeps of an outcome that says more: a
// failed command's "exit N" before the line that tells why.
func outcome(c *Call, d *description) (out, status string, normal bool) {
	if !c.HasResult {
		return "no result", "", false
	}
	if c.headHasPrefix(256, "[Request interrupted by user") {
		return "interrupted", "", false
	}
	if c.IsError || c.Name == "Bash" && c.headHasPrefix(256, "Exit code ") && nonZeroExit(exitCode(c)) {
		out, status = errorOutcome(c)
		return out, status, false
	}
	if c.headHasPrefix(256, "[Old tool result content cleared]") {
		return "", "", false
	}
	if d.userWords {
		return bound(d.success, errorMax), "", true
	}
	return bound(d.success, outcomeMax), "", true
}

// nonZeroExit reports whether an exit code's digits are not zero.
func nonZeroExit(code string) bool { return strings.TrimLeft(code, "0") != "" }

// exitCode is N of a result opening with a shell's "Exit code N", or "".
func exitCode(c *Call) string {
	head := strings.TrimLeft(c.resultPrefix(256), " \t\r\n")
	if rest, ok := strings.CutPrefix(head, "Exit code "); ok {
		return leadingDigits(rest)
	}
	return ""
}

// errorOutcome reads an error result: "rejected" when the user refused the
// call, "exit N: <line>" for a shell's "Exit code N" followed by its output
// (status "exit N"), else "error: <first line>". The line is taken from the
// result's start stripped of private text, and is at most errorMax runes.
func errorOutcome(c *Call) (out, status string) {
	head := strings.TrimLeft(c.resultPrefix(256), " \t\r\n")
	if strings.HasPrefix(head, "User rejected") ||
		strings.Contains(head, "doesn't want to proceed with this tool use") {
		return "rejected", ""
	}
	if code := exitCode(c); code != "" {
		if line := c.failureLine(code); line != "" {
			return "exit " + code + ": " + line, "exit " + code
		}
		return "exit " + code, ""
	}
	text, _ := c.strippedHead(headBytes)
	s := strings.TrimSpace(text)
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
	if line := errorLine(firstLine(s)); line != "" {
		return "error: " + line, ""
	}
	return "error", ""
}

// errorLine prepares one line of an error for display: cut at an escaped
// newline (hook and JSON-borne messages often carry them), flattened and
// bounded to errorMax runes.
func errorLine(line string) string {
	if i := strings.Index(line, `\n`); i > 0 {
		line = line[:i]
	}
	// A failed command's line may print the token it was given.
	return bound(flatten(privacy.RedactAssignments(line)), errorMax)
}

// failureWords mark the line of a command's output that reports its
// failure (compared in lower case).
var failureWords = [...]string{
	"error", "fail", "fatal", "panic", "exception", "traceback", "cannot", "can't",
	"could not", "couldn't", "unable", "denied", "not found", "no such", "undefined",
	"invalid", "unknown", "unrecognized", "conflict", "refused", "missing",
}

// failureLines bounds the lines of a failed command's output read for the
// line that tells why it failed; testLines those read for the names of the
// tests that failed (a verbose test run prints every passing test first).
const (
	failureLines = 40
	testLines    = 400
	failedMax    = 4 // failed tests named
)

// failureLine is the line of a failed command's output, the result after
// its "Exit code <code>" line, that tells why it failed: among its first
// failureLines lines, the first that names a place in a file ("main.go:12:5:
// …", as compilers, linters and tests report), else the first that names a
// failure, else the first. A shell's output opens with whatever the command
// printed first (a banner, a test's name), and the failure comes later.
// When the output names tests that failed (Go's "--- FAIL: TestX", pytest's
// "FAILED path::test", cargo's "test x ... FAILED"), their names lead: a
// resumed session reruns those first. The lines are read as scanLines
// reads them.
func (c *Call) failureLine(code string) string {
	var first, named, place string
	var firstRaw, namedRaw, placeRaw, exitLine bool
	var tests []string
	more, n := 0, 0
	reset := func() { first, named, place, exitLine, tests, more, n = "", "", "", false, tests[:0], 0, 0 }
	c.scanLines(testLines+1, reset, func(line string, raw bool) bool {
		n++
		if !exitLine {
			exitLine = true
			if rest, ok := strings.CutPrefix(line, "Exit code "+code); ok {
				// Rarely, output follows on the exit line itself.
				if line, raw = strings.TrimSpace(unescaped(rest, raw)), false; line == "" {
					return false
				}
			}
		}
		if t, ok := failedTest(line); ok {
			t = unescaped(t, raw)
			switch {
			case slices.Contains(tests, t):
			case len(tests) > 0 && strings.HasPrefix(t, tests[len(tests)-1]+"/"):
				tests[len(tests)-1] = t // Go names a subtest after its parent
			case len(tests) < failedMax:
				tests = append(tests, t)
			default:
				more++
			}
		}
		if n > failureLines+1 || place != "" {
			return false
		}
		if first == "" {
			first, firstRaw = line, raw
		}
		if _, ok := matchPath(line, "", raw); ok {
			place, placeRaw = line, raw
			return false
		}
		if named == "" && namesFailure(line, raw) {
			named, namedRaw = line, raw
		}
		return false
	})
	var why string
	switch {
	case place != "":
		why = unescaped(place, placeRaw)
	case named != "":
		why = unescaped(named, namedRaw)
	case len(tests) == 0:
		why = unescaped(first, firstRaw)
	}
	if len(tests) == 0 {
		return errorLine(why)
	}
	s := "FAIL " + strings.Join(tests, ", ")
	if more > 0 {
		s += " +" + strconv.Itoa(more) + " more"
	}
	// The line that tells why, unless it only repeats a name.
	if why = errorLine(why); why != "" && !strings.Contains(why, tests[0]) {
		s += "; " + why
	}
	return errorLine(s)
}

// failedTest is the name of the test a line of test output reports failed:
// Go's "--- FAIL: TestX (0.01s)", pytest's "FAILED tests/a.py::test_x -
// …", cargo's "test a::x ... FAILED".
func failedTest(line string) (string, bool) {
	var name string
	switch {
	case strings.HasPrefix(line, "--- FAIL: "):
		name = line[len("--- FAIL: "):]
	case strings.HasPrefix(line, "FAILED "):
		name = line[len("FAILED "):]
	case strings.HasPrefix(line, "test ") && strings.HasSuffix(line, " ... FAILED"):
		name = line[len("test ") : len(line)-len(" ... FAILED")]
	default:
		return "", false
	}
	if i := strings.IndexByte(name, ' '); i >= 0 {
		name = name[:i]
	}
	return name, name != ""
}

// failureByStart lists failureWords by their first byte, in either case.
var failureByStart = func() (t [256][]string) {
	for _, w := range failureWords {
		t[w[0]] = append(t[w[0]], w)
		t[w[0]-'a'+'A'] = append(t[w[0]-'a'+'A'], w)
	}
	return t
}()

// namesFailure reports whether one of failureWords starts a word of line,
// in any case, so that a test named TestInvalidInput does not read as a
// failure; raw when line is still JSON-escaped. An escape stands for a
// character that is neither a letter nor a digit, nor in a word.
func namesFailure(line string, raw bool) bool {
	inWord := false
	for i := 0; i < len(line); i++ {
		b := line[i]
		if raw && b == '\\' {
			i++
			inWord = false
			continue
		}
		if words := failureByStart[b]; words != nil && !inWord && startsWord(line[i:], words) {
			return true
		}
		inWord = isAlnum(b)
	}
	return false
}

// startsWord reports whether s starts with one of words, in any case.
func startsWord(s string, words []string) bool {
next:
	for _, w := range words {
		if len(s) < len(w) {
			continue
		}
		// The words are lower-case ASCII letters, blanks and quotes,
		// which OR-ing 0x20 leaves as they are.
		for j := 1; j < len(w); j++ {
			if s[j]|0x20 != w[j] {
				continue next
			}
		}
		return true
	}
	return false
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// clean is a free text prepared for display: stripped, flattened to one line
// and bounded to max runes.
func clean(s string, max int) string {
	s = privacy.Strip(s)
	// Cut before flattening so a huge field costs one strip, not a copy.
	if lim := 4*max + 16; len(s) > lim {
		// Redacted before the cut: a key cut in two is no longer found.
		s = flatten(prefix(privacy.RedactAssignments(prefix(s, lim+keyMargin)), lim))
		if runeLen(s) < max {
			return s + "…"
		}
		return bound(s, max)
	}
	return bound(flatten(privacy.RedactAssignments(s)), max)
}

// keyMargin is how far past a cut clean reads for a credential that the
// cut would halve: more than the longest key shape but a private key.
const keyMargin = 256

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
	if len(s) <= max {
		return s
	}
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
