package digest

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"

	"bottle/internal/jsonscan"

	"bottle/privacy"
)

// headBytes is the longest start of a result a describer reads.
const headBytes = 2048

// result returns the whole result text, decoding ResultRaw the first time.
func (c *Call) result() string {
	if c.ResultRaw.Body != nil && !c.decoded {
		c.Result, c.decoded = jsonscan.Decode(c.ResultRaw.Body), true
	}
	return c.Result
}

// resultPrefix returns prefix(c.result(), n), decoding no more of
// ResultRaw than that needs. A start of ResultRaw in plain ASCII is its
// own decoding and is used in place, not copied: what describers take from
// it reaches a digest only through a copy (join).
func (c *Call) resultPrefix(n int) string {
	if c.ResultRaw.Body == nil || c.decoded {
		return prefix(c.Result, n)
	}
	if !c.hasHead || len(c.head) <= n && !c.headAll {
		// One byte more than the prefix: prefix looks at s[n].
		want := max(n, 512) + 1
		raw := c.ResultRaw.Body
		if m := min(len(raw), want); jsonscan.PlainASCII(raw[:m]) {
			c.head, c.headAll = unsafe.String(unsafe.SliceData(raw), m), m == len(raw)
		} else {
			h := jsonscan.DecodePrefix(raw, want)
			c.head, c.headAll = h, len(h) < want
		}
		c.hasHead = true
	}
	return prefix(c.head, n)
}

// headHasPrefix reports whether strings.TrimLeft(c.resultPrefix(n), " \t\r\n")
// starts with marker, which must be ASCII text with no control character,
// backslash, quote or slash: a character no short escape stands for. It
// reads ResultRaw in place where it can: past the blanks, each byte of the
// marker must be there literally.
func (c *Call) headHasPrefix(n int, marker string) bool {
	if c.ResultRaw.Body == nil || c.decoded || c.hasHead {
		return strings.HasPrefix(strings.TrimLeft(c.resultPrefix(n), " \t\r\n"), marker)
	}
	raw := c.ResultRaw.Body
	i, d := 0, 0 // offsets in raw and in the decoded result
blanks:
	for i < len(raw) {
		switch raw[i] {
		case ' ':
			i, d = i+1, d+1
			continue
		case '\\':
			if i+1 < len(raw) {
				switch raw[i+1] {
				case 't', 'r', 'n':
					i, d = i+2, d+1
					continue
				case 'u':
					return strings.HasPrefix(strings.TrimLeft(c.resultPrefix(n), " \t\r\n"), marker)
				}
			}
		}
		break blanks
	}
	// The blanks and the marker are ASCII, so the prefix keeps the marker
	// whole when it ends within n bytes.
	if d+len(marker) > n {
		return false
	}
	for j := 0; j < len(marker); j++ {
		switch {
		case i+j >= len(raw):
			return false
		case raw[i+j] == marker[j]:
		case raw[i+j] == '\\' && i+j+1 < len(raw) && raw[i+j+1] == 'u':
			// The escape may spell marker[j].
			return strings.HasPrefix(strings.TrimLeft(c.resultPrefix(n), " \t\r\n"), marker)
		default:
			// A literal byte, or a short escape for a character the marker
			// has not.
			return false
		}
	}
	return true
}

// headContains reports whether strings.Contains(c.resultPrefix(n), needle),
// needle being ASCII text with no control character, backslash, quote or
// slash. When ResultRaw has no \u escape every character of needle in the
// decoded result is there literally, so a needle missing from the start
// of ResultRaw that decodes to n bytes at least is missing from the
// prefix: then nothing is decoded.
func (c *Call) headContains(n int, needle string) bool {
	if c.ResultRaw.Body != nil && !c.decoded && !c.hasHead && c.ResultRaw.NoUnicodeEscapes() {
		// Every raw byte decodes to at least half a byte (an escape "\x"
		// to one byte), so 2n+2 raw bytes hold the prefix's source.
		raw := c.ResultRaw.Body[:min(len(c.ResultRaw.Body), 2*n+2)]
		if !bytes.Contains(raw, unsafe.Slice(unsafe.StringData(needle), len(needle))) {
			return false
		}
	}
	return strings.Contains(c.resultPrefix(n), needle)
}

// forResultLines is forLines(c.result(), f), reading ResultRaw line by
// line without decoding it where it can. f may then be handed a line
// still JSON-escaped, in place (raw is then true), which it must not keep
// past the call: f may only compare its line with, and test it for
// prefixes of, ASCII text with no control character, backslash, quote or
// slash, whose answers the escaping does not change (see rawLine), or
// decode what it takes from it.
func (c *Call) forResultLines(f func(line string, raw bool)) {
	if c.ResultRaw.Body == nil || c.decoded || !c.ResultRaw.NoUnicodeEscapes() {
		forLines(c.result(), func(line string) { f(line, false) })
		return
	}
	raw := c.ResultRaw.Body
	start := 0
	nl := c.ResultRaw.Newlines()
	for k := nl.Next(); k >= 0; k = nl.Next() {
		rawLine(raw, start, k, f)
		start = k + 2
	}
	rawLine(raw, start, len(raw), f)
}

// strippedHead is the start of the result, at most n bytes, cut after its
// last whole line when the result goes on (unless that is its first line)
// and stripped of private text. whole reports that it is all the result.
// Cutting before stripping fails closed: a private block the cut leaves
// open hides the rest.
func (c *Call) strippedHead(n int) (s string, whole bool) {
	s = c.resultPrefix(n)
	if c.ResultRaw.Body == nil || c.decoded {
		whole = len(s) == len(c.Result)
	} else {
		whole = c.headAll && len(s) == len(c.head)
	}
	if !whole {
		if i := strings.LastIndexByte(s, '\n'); i > 0 {
			s = s[:i]
		}
	}
	return stripped(s), whole
}

// rawLine hands f the line raw[s:e], a body with no \u escape between two
// "\n" escapes, as forLines would: trimmed, and only if not blank. Trimmed
// in place, the line keeps ASCII ends other than blanks; it decodes to
// the same first and last bytes, is "--" exactly when its decoding is, and
// a literal ASCII prefix without backslash, quote or slash is one of its
// decoding too. A line with a non-ASCII byte at an end (a Unicode space?)
// is decoded.
func rawLine(raw []byte, s, e int, f func(string, bool)) {
	s0, e0 := s, e
	for s < e {
		b := raw[s]
		if b == ' ' {
			s++
			continue
		}
		if b == '\\' && s+1 < e && (raw[s+1] == 't' || raw[s+1] == 'r' || raw[s+1] == 'f') {
			s += 2
			continue
		}
		if b >= utf8.RuneSelf {
			rawLineDecoded(raw[s0:e0], f)
			return
		}
		break
	}
	for e > s {
		b := raw[e-1]
		if b == ' ' {
			e--
			continue
		}
		if (b == 't' || b == 'r' || b == 'f') && e-2 >= s && raw[e-2] == '\\' && escaping(raw, e-2) {
			e -= 2
			continue
		}
		if b >= utf8.RuneSelf {
			rawLineDecoded(raw[s0:e0], f)
			return
		}
		break
	}
	if s < e {
		f(unsafe.String(&raw[s], e-s), true)
	}
}

// scanLines calls f with the first max lines of the result that are not
// blank, trimmed, as forLines gives them, until f returns true, after
// those lines are stripped of private text as a whole: a private block may
// span lines. Lines before any tag privacy.Strip acts on are what
// stripping leaves; they are read as they stand, still JSON-escaped where
// they can be (raw, as forResultLines hands them on), so the common case
// decodes nothing. When a line holds a tag, reset is called and f sees the
// stripped lines from the first.
func (c *Call) scanLines(max int, reset func(), f func(line string, raw bool) (stop bool)) {
	if c.ResultRaw.Body == nil || c.decoded || !c.ResultRaw.NoUnicodeEscapes() {
		window := c.decodedLines(max)
		if privacy.Contains(window) {
			window = privacy.Strip(window)
		}
		scanText(window, max, f)
		return
	}
	raw := c.ResultRaw.Body
	nl := c.ResultRaw.Newlines()
	n, stop, tagged := 0, false, false
	visit := func(line string, raw bool) {
		switch {
		case tagged:
			n++
		case privacy.Contains(line):
			tagged = true
			n++
		case !stop:
			n++
			stop = f(line, raw)
		}
	}
	start, end := 0, 0 // end: the end of the lines read, a "\n" included
	for !stop && n < max && start < len(raw) {
		k := nl.Next()
		if k < 0 {
			k = len(raw)
		}
		rawLine(raw, start, k, visit)
		start = min(k+2, len(raw))
		end = start
	}
	if tagged {
		// Strip the window as the decoded text would have it.
		reset()
		scanText(privacy.Strip(jsonscan.Decode(raw[:end])), max, f)
	}
}

// scanText is scanLines over a decoded text.
func scanText(s string, max int, f func(line string, raw bool) bool) {
	for n := 0; s != "" && n < max; {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = strings.TrimSpace(line); line != "" {
			n++
			if f(line, false) {
				return
			}
		}
	}
}

// decodedLines is the result's text through the end of its first max lines
// that are not blank (all of it when it has fewer), decoding no more of
// ResultRaw than the window's start.
func (c *Call) decodedLines(max int) string {
	for n := 4 * headBytes; ; n *= 8 {
		s := c.resultPrefix(n)
		whole := len(s) == len(c.Result)
		if c.ResultRaw.Body != nil && !c.decoded {
			whole = c.headAll && len(s) == len(c.head)
		}
		if end := linesEnd(s, max); end >= 0 {
			return s[:end]
		}
		if whole {
			return s
		}
	}
}

// linesEnd is the offset just past the newline that ends the max-th line of
// s that is not blank, or -1 when s has fewer such lines ended by one.
func linesEnd(s string, max int) int {
	n := 0
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '\n')
		if k < 0 {
			return -1
		}
		if strings.TrimSpace(s[i:i+k]) != "" {
			if n++; n == max {
				return i + k + 1
			}
		}
		i += k + 1
	}
	return -1
}

// inPlace is b as a string, not copied: b must not change while it is used.
func inPlace(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// rawLineDecoded is forLines on one line, decoded.
func rawLineDecoded(line []byte, f func(string, bool)) {
	if l := strings.TrimSpace(jsonscan.Decode(line)); l != "" {
		f(l, false)
	}
}

// numberedResult is numberedLines(c.result()), read from ResultRaw line
// by line where that can be done without decoding it.
func (c *Call) numberedResult() numbering {
	if c.ResultRaw.Body == nil || c.decoded {
		return numberedLines(c.Result)
	}
	raw := c.ResultRaw.Body
	if c.ResultRaw.NoUnicodeEscapes() {
		// Every decoded newline is a "\n": find them directly.
		return numberedLinesRaw(c.ResultRaw)
	}
	var nb numbering
	start := 0
	for i := range jsonscan.Escapes(raw) {
		// A decoded newline is "\n" or "\u000a".
		end := i + 2
		if raw[i+1] == 'u' {
			if i+6 > len(raw) || string(raw[i+2:i+5]) != "000" || raw[i+5]|0x20 != 'a' {
				continue
			}
			end = i + 6
		} else if raw[i+1] != 'n' {
			continue
		}
		nb.addRaw(raw[start:i])
		start = end
	}
	if start < len(raw) {
		nb.addRaw(raw[start:])
	}
	if n := span(nb.first, nb.last); n > 0 {
		nb.n = n // as numberedLines counts
	}
	return nb
}

// addRaw counts a line given as a JSON string body that may hold \u
// escapes. Its number stands literally unless an escape follows the
// literal digits (it may spell one more): then the line is decoded.
func (nb *numbering) addRaw(line []byte) {
	if !numberedRaw(line) {
		return
	}
	d, i := rawDigits(line)
	if i < len(line) && line[i] == '\\' && (i+1 >= len(line) || line[i+1] != 't') {
		d, _ = lineNumber(jsonscan.Decode(line))
	}
	nb.add(d)
}

// numberedLinesRaw is numberedResult for a body without \u escapes,
// whose newlines are all spelled "\n" and whose line numbers stand
// literally. The lines are counted first, in the hot loop; the first and
// the last numbered line are then looked for from either end.
func numberedLinesRaw(str jsonscan.String) numbering {
	raw := str.Body
	var nb numbering
	nl := str.Newlines()
	for start := 0; nb.first == "" && start <= len(raw); {
		k := nl.Next()
		if k < 0 {
			k = len(raw)
		}
		if numberedRaw(raw[start:k]) {
			nb.first, _ = rawDigits(raw[start:k])
		}
		start = k + 2
	}
	if nb.first == "" {
		return numbering{}
	}
	for end := len(raw); nb.last == "" && end >= 0; {
		k := lastNewline(raw[:end])
		if numberedRaw(raw[k+2 : end]) {
			nb.last, _ = rawDigits(raw[k+2 : end])
		}
		end = k
	}
	if nb.n = span(nb.first, nb.last); nb.n > 0 {
		return nb
	}
	start := 0
	nl = str.Newlines()
	for k := nl.Next(); k >= 0; k = nl.Next() {
		if numberedRaw(raw[start:k]) {
			nb.n++
		}
		start = k + 2
	}
	if start < len(raw) && numberedRaw(raw[start:]) {
		nb.n++
	}
	return nb
}

// lastNewline is the offset of the last "\n" escape of a body without \u
// escapes, or -2 when there is none (the line after it starts at the
// offset + 2).
func lastNewline(raw []byte) int {
	for end := len(raw); ; {
		k := bytes.LastIndexByte(raw[:end], '\\')
		if k < 0 {
			return -2
		}
		if k+1 < len(raw) && raw[k+1] == 'n' && escaping(raw, k) {
			return k
		}
		end = k
	}
}

// escaping reports whether the backslash at raw[k] opens an escape: an
// even run of backslashes stands before it.
func escaping(raw []byte, k int) bool {
	run := 0
	for k-run > 0 && raw[k-run-1] == '\\' {
		run++
	}
	return run%2 == 0
}

// numberedRaw is lineNumber's test on the line's JSON string body.
// Literal spaces, digits and arrow bytes decode to themselves; any other
// escape where the test looks is decoded.
func numberedRaw(line []byte) bool {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	d := i
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	rest := line[i:]
	switch {
	case len(rest) > 0 && rest[0] == '\\' && (len(rest) < 2 || rest[1] != 't'):
		// An escape where a space, digit, arrow or tab may be spelled
		// \uXXXX: decode the line.
		_, ok := lineNumber(jsonscan.Decode(line))
		return ok
	case i == d:
		return false
	}
	return len(rest) >= 2 && rest[0] == '\\' && rest[1] == 't' ||
		len(rest) >= 3 && rest[0] == 0xE2 && rest[1] == 0x86 && rest[2] == 0x92
}

// rawDigits is the line number of a numbered line's body, where its spaces
// and digits stand literally (in place), and the offset past it.
func rawDigits(line []byte) (string, int) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	d := i
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	return inPlace(line[d:i]), i
}
