package digest

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"

	"bottle/render/internal/jsonscan"
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
// still JSON-escaped, in place, which it must not keep: f may only compare
// its line with, and test it for prefixes of, ASCII text with no control
// character, backslash, quote or slash, whose answers the escaping does
// not change (see rawLine).
func (c *Call) forResultLines(f func(line string)) {
	if c.ResultRaw.Body == nil || c.decoded || !c.ResultRaw.NoUnicodeEscapes() {
		forLines(c.result(), f)
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

// rawLine hands f the line raw[s:e], a body with no \u escape between two
// "\n" escapes, as forLines would: trimmed, and only if not blank. Trimmed
// in place, the line keeps ASCII ends other than blanks; it decodes to
// the same first and last bytes, is "--" exactly when its decoding is, and
// a literal ASCII prefix without backslash, quote or slash is one of its
// decoding too. A line with a non-ASCII byte at an end (a Unicode space?)
// is decoded.
func rawLine(raw []byte, s, e int, f func(string)) {
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
		f(unsafe.String(&raw[s], e-s))
	}
}

// rawLineDecoded is forLines on one line, decoded.
func rawLineDecoded(line []byte, f func(string)) {
	if l := strings.TrimSpace(jsonscan.Decode(line)); l != "" {
		f(l)
	}
}

// countNumberedResult is countNumbered(c.result()), read from ResultRaw
// line by line where that can be done without decoding it.
func (c *Call) countNumberedResult() int {
	if c.ResultRaw.Body == nil || c.decoded {
		return countNumbered(c.Result)
	}
	raw := c.ResultRaw.Body
	if c.ResultRaw.NoUnicodeEscapes() {
		// Every decoded newline is a "\n": find them directly.
		return countNumberedLines(raw, c.ResultRaw.Newlines())
	}
	n, start := 0, 0
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
		if numberedRaw(raw[start:i]) {
			n++
		}
		start = end
	}
	if start < len(raw) && numberedRaw(raw[start:]) {
		n++
	}
	return n
}

// countNumberedLines is countNumberedResult for a body without \u
// escapes, whose newlines are all spelled "\n" (those nl walks).
func countNumberedLines(raw []byte, nl jsonscan.Newlines) int {
	n, start := 0, 0
	for k := nl.Next(); k >= 0; k = nl.Next() {
		if numberedRaw(raw[start:k]) {
			n++
		}
		start = k + 2
	}
	if start < len(raw) && numberedRaw(raw[start:]) {
		n++
	}
	return n
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

// numberedRaw is countNumbered's test of one line ("     12→…" or "12\t…")
// on the line's JSON string body. Literal spaces, digits and arrow bytes
// decode to themselves; any other escape where the test looks is decoded.
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
		s := strings.TrimLeft(jsonscan.Decode(line), " ")
		k := len(leadingDigits(s))
		return k > 0 && (strings.HasPrefix(s[k:], "→") || strings.HasPrefix(s[k:], "\t"))
	case i == d:
		return false
	}
	return len(rest) >= 2 && rest[0] == '\\' && rest[1] == 't' ||
		len(rest) >= 3 && rest[0] == 0xE2 && rest[1] == 0x86 && rest[2] == 0x92
}
