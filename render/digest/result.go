package digest

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math/bits"
	"strings"
	"unicode/utf8"
	"unsafe"

	"bottle/render/jsonstr"
)

// headBytes is the longest start of a result a describer reads.
const headBytes = 2048

// result returns the whole result text, decoding ResultRaw the first time.
func (c *Call) result() string {
	if c.ResultRaw != nil && !c.decoded {
		c.Result, c.decoded = jsonstr.Decode(c.ResultRaw), true
	}
	return c.Result
}

// resultPrefix returns prefix(c.result(), n), decoding no more of
// ResultRaw than that needs. A start of ResultRaw in plain ASCII is its
// own decoding and is used in place, not copied: what describers take from
// it reaches a digest only through a copy (join).
func (c *Call) resultPrefix(n int) string {
	if c.ResultRaw == nil || c.decoded {
		return prefix(c.Result, n)
	}
	if !c.hasHead || len(c.head) <= n && !c.headAll {
		// One byte more than the prefix: prefix looks at s[n].
		want := max(n, 512) + 1
		raw := c.ResultRaw
		if m := min(len(raw), want); plainASCII(raw[:m]) {
			c.head, c.headAll = unsafe.String(unsafe.SliceData(raw), m), m == len(raw)
		} else {
			h := jsonstr.DecodePrefix(raw, want)
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
	if c.ResultRaw == nil || c.decoded || c.hasHead {
		return strings.HasPrefix(strings.TrimLeft(c.resultPrefix(n), " \t\r\n"), marker)
	}
	raw := c.ResultRaw
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
	if c.ResultRaw != nil && !c.decoded && !c.hasHead && c.ResultNoUnicodeEscapes {
		// Every raw byte decodes to at least half a byte (an escape "\x"
		// to one byte), so 2n+2 raw bytes hold the prefix's source.
		raw := c.ResultRaw[:min(len(c.ResultRaw), 2*n+2)]
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
	if c.ResultRaw == nil || c.decoded || !c.ResultNoUnicodeEscapes {
		forLines(c.result(), f)
		return
	}
	raw := c.ResultRaw
	start := 0
	for k := range c.newlines() {
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
	if l := strings.TrimSpace(jsonstr.Decode(line)); l != "" {
		f(l)
	}
}

// newlines yields the offset of the backslash of each "\n" escape in
// ResultRaw, in order: from ResultEscapes when given, else searched.
func (c *Call) newlines() iter.Seq[int] {
	if c.ResultEscapes == nil {
		return newlines(c.ResultRaw)
	}
	raw, esc, at := c.ResultRaw, c.ResultEscapes, c.ResultEscapesAt
	return func(yield func(int) bool) {
		if len(raw) == 0 {
			return
		}
		a, e := at, at+len(raw)
		for w := a >> 6; w <= (e-1)>>6; w++ {
			for m := spanBits(esc[w], w, a, e); m != 0; m &= m - 1 {
				if k := w<<6 + bits.TrailingZeros64(m) - at; raw[k] == 'n' && !yield(k-1) {
					return
				}
			}
		}
	}
}

// spanBits is word m (word w of a bitmap) with the bits outside [a, e)
// cleared.
func spanBits(m uint64, w, a, e int) uint64 {
	if w == a>>6 {
		m &= ^uint64(0) << (a & 63)
	}
	if w == (e-1)>>6 {
		m &= ^uint64(0) >> (63 - (e-1)&63)
	}
	return m
}

// newlines yields the offset of the backslash of each "\n" escape in raw,
// in order. It looks for a backslash followed by an n 8 bytes at a time.
func newlines(raw []byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		w := 0
		var carry uint64 // bit 7: the previous word ended with a backslash
		for ; w+8 <= len(raw); w += 8 {
			x := binary.LittleEndian.Uint64(raw[w:])
			bs := zeroBytes(x ^ '\\'*lsb)
			// High bit of byte j: an n after a backslash (byte j-1, or the
			// previous word's last byte for j = 0).
			m := (bs<<8 | carry) & zeroBytes(x^'n'*lsb)
			carry = bs >> 63 << 7
			for ; m != 0; m &= m - 1 {
				k := w + bits.TrailingZeros64(m)>>3 - 1 // the backslash
				if escaping(raw, k) && !yield(k) {
					return
				}
			}
		}
		for k := max(w-1, 0); k+1 < len(raw); k++ {
			if k+1 >= w && raw[k] == '\\' && raw[k+1] == 'n' && escaping(raw, k) && !yield(k) {
				return
			}
		}
	}
}

// plainASCII reports whether s is ASCII with no backslash, so a JSON
// string body equal to its value.
func plainASCII(s []byte) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		if (zeroBytes(x^'\\'*lsb)|x)&(0x80*lsb) != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == '\\' {
			return false
		}
	}
	return true
}

// countNumberedResult is countNumbered(c.result()), read from ResultRaw
// line by line where that can be done without decoding it.
func (c *Call) countNumberedResult() int {
	if c.ResultRaw == nil || c.decoded {
		return countNumbered(c.Result)
	}
	raw := c.ResultRaw
	if c.ResultNoUnicodeEscapes {
		// Every decoded newline is a "\n": find them directly.
		if c.ResultEscapes != nil {
			return countNumberedEscaped(raw, c.ResultEscapes, c.ResultEscapesAt)
		}
		return countNumberedLines(raw, newlines(raw))
	}
	n, start := 0, 0
	for i := range jsonstr.Escapes(raw) {
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
// escapes, whose newlines are all spelled "\n" (at the offsets nl yields).
func countNumberedLines(raw []byte, nl iter.Seq[int]) int {
	n, start := 0, 0
	for k := range nl {
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

// countNumberedEscaped is countNumberedLines with the newlines read from
// the escape bitmap esc (as Call.ResultEscapes), in one loop: Read results
// are the largest the reader digests. Escaped characters other than n
// (tabs, quotes in code) are as common as newlines, so a word's newlines
// are gathered without a branch on the character, then tested.
func countNumberedEscaped(raw []byte, esc []uint64, at int) int {
	n, start := 0, 0
	if len(raw) > 0 {
		var nl [64]int
		a, e := at, at+len(raw)
		for w := a >> 6; w <= (e-1)>>6; w++ {
			c := 0
			for m := spanBits(esc[w], w, a, e); m != 0; m &= m - 1 {
				k := w<<6 + bits.TrailingZeros64(m) - at
				nl[c] = k
				c += int((uint32(raw[k]^'n') - 1) >> 31) // 1 for an n
			}
			for _, k := range nl[:c] {
				if numberedRaw(raw[start : k-1]) {
					n++
				}
				start = k + 1
			}
		}
	}
	if start < len(raw) && numberedRaw(raw[start:]) {
		n++
	}
	return n
}

const (
	lsb = 0x0101010101010101
	hi7 = 0x7f7f7f7f7f7f7f7f
)

// zeroBytes has the high bit set in exactly the zero bytes of w.
func zeroBytes(w uint64) uint64 { return ^(((w & hi7) + hi7) | w | hi7) }

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
		s := strings.TrimLeft(jsonstr.Decode(line), " ")
		k := len(leadingDigits(s))
		return k > 0 && (strings.HasPrefix(s[k:], "→") || strings.HasPrefix(s[k:], "\t"))
	case i == d:
		return false
	}
	return len(rest) >= 2 && rest[0] == '\\' && rest[1] == 't' ||
		len(rest) >= 3 && rest[0] == 0xE2 && rest[1] == 0x86 && rest[2] == 0x92
}
