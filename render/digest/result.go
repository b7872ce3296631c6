package digest

import (
	"encoding/binary"
	"math/bits"
	"strings"

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
// ResultRaw than that needs.
func (c *Call) resultPrefix(n int) string {
	if c.ResultRaw == nil || c.decoded {
		return prefix(c.Result, n)
	}
	if c.head == nil || len(*c.head) <= n && !c.headAll {
		// One byte more than the prefix: prefix looks at s[n].
		want := max(n, 512) + 1
		h := jsonstr.DecodePrefix(c.ResultRaw, want)
		c.head, c.headAll = &h, len(h) < want
	}
	return prefix(*c.head, n)
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
		return countNumberedLines(raw)
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
// escapes, whose newlines are all spelled "\n". It looks for a backslash
// followed by an n 8 bytes at a time.
func countNumberedLines(raw []byte) int {
	n, start := 0, 0
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
			if escaping(raw, k) {
				if numberedRaw(raw[start:k]) {
					n++
				}
				start = k + 2
			}
		}
	}
	for k := max(w-1, 0); k+1 < len(raw); k++ {
		if k+1 >= w && raw[k] == '\\' && raw[k+1] == 'n' && escaping(raw, k) {
			if numberedRaw(raw[start:k]) {
				n++
			}
			start = k + 2
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
