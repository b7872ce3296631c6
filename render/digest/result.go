package digest

import (
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
		h := string(jsonstr.AppendPrefix(nil, c.ResultRaw, want))
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
	n, start := 0, 0
	escapes := c.ResultEscapes
	if escapes == nil {
		escapes = jsonstr.Escapes(raw)
	}
	for i := range escapes {
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
