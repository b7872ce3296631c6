package jsonscan

import (
	"bytes"
	"math/bits"
)

// String is the body of a JSON string (the bytes between its quotes, still
// escaped and known to be valid) with what the scanner that found it
// knows about it, so that a reader can answer questions about the decoded
// text without decoding it. The zero String is an absent body.
type String struct {
	// Body is the string's content between its quotes, still escaped.
	Body []byte
	noU  bool     // Body holds no \uXXXX escape
	esc  []uint64 // with noU: the escape bitmap of the line Body lies in
	at   int      // the offset of Body in that line
}

// StringOf is a String for a valid body about which nothing else is known.
func StringOf(body []byte) String { return String{Body: body} }

// String returns the string body s.Bytes()[a:e] of the line just indexed,
// with what the index knows of it. Its Body points into the line and its
// escape bitmap into s: it is valid until the next Index.
func (s *Scanner) String(a, e int) String {
	str := String{Body: s.b[a:e], noU: !s.HasUnicodeEscape(a, e)}
	if str.noU {
		str.esc, str.at = s.esc, a
	}
	return str
}

// NoUnicodeEscapes reports whether the body is known to hold no \uXXXX
// escape: then every newline of the decoded text is a "\n" escape, and
// every ASCII character other than a quote, backslash or control byte
// stands in the body literally.
func (s String) NoUnicodeEscapes() bool { return s.noU }

// Newlines returns a walk over the "\n" escapes of the body, in order.
// (With [String.NoUnicodeEscapes] those are all the decoded newlines.)
func (s String) Newlines() Newlines {
	n := Newlines{body: s.Body, esc: s.esc, at: s.at}
	if n.esc != nil && len(s.Body) > 0 {
		n.w, n.end = s.at>>6, (s.at+len(s.Body)-1)>>6+1
	}
	return n
}

// Newlines walks the "\n" escapes of a string body (see [String.Newlines]).
// From a scanner's String it reads them off the escape bitmap a word at a
// time: in code, escaped tabs and quotes are as common as newlines, so a
// word's newlines are gathered without a branch on the escaped character.
type Newlines struct {
	body []byte
	esc  []uint64
	at   int
	w    int // the next bitmap word; without a bitmap, the next body byte
	end  int // one past the body's last bitmap word
	buf  [64]int32
	n, i int // buf[i:n] are found and not yet returned
}

// Next returns the offset in the body of the backslash of the next "\n"
// escape, or -1 when there is none left.
func (c *Newlines) Next() int {
	if c.i < c.n {
		k := c.buf[c.i]
		c.i++
		return int(k)
	}
	return c.fill()
}

// fill finds the newlines of the next bitmap word that has any and returns
// the first.
func (c *Newlines) fill() int {
	if c.esc == nil {
		return c.search()
	}
	a, e := c.at, c.at+len(c.body)
	for c.w < c.end {
		w := c.w
		c.w++
		n := 0
		for m := spanBits(c.esc, w, a, e); m != 0; m &= m - 1 {
			k := w<<6 + bits.TrailingZeros64(m) - a // the escaped character
			c.buf[n] = int32(k - 1)
			n += int((uint32(c.body[k]^'n') - 1) >> 31) // 1 for an n
		}
		if n > 0 {
			c.n, c.i = n, 1
			return int(c.buf[0])
		}
	}
	return -1
}

// search finds the next "\n" escape without a bitmap, escape by escape
// (a valid body's every backslash starts a whole escape).
func (c *Newlines) search() int {
	b := c.body
	for c.w < len(b) {
		i := bytes.IndexByte(b[c.w:], '\\')
		if i < 0 || c.w+i+1 >= len(b) {
			break
		}
		k := c.w + i
		switch b[k+1] {
		case 'n':
			c.w = k + 2
			return k
		case 'u':
			c.w = k + 6
		default:
			c.w = k + 2
		}
	}
	c.w = len(b)
	return -1
}
