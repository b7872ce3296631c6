package jsonscan

import (
	"math/bits"
	"sort"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// String bodies measured from the index: the escape bitmap of the line just
// indexed tells where every escape is, so a body's decoded length is its
// raw length less one byte per escape (a popcount), corrected for the rare
// \uXXXX escapes — no pass over the bytes but the UTF-8 check.

// strLen is Len of the string body s.b[a:e] of the line just
// indexed.
func (s *Scanner) StrLen(a, e int) int {
	b := s.b
	if !s.ValidUTF8(a, e) {
		return Len(b[a:e])
	}
	n := e - a - s.escCount(a, e) // every escape: two bytes for one
	// A \uXXXX escape is six bytes (a surrogate pair twelve) for a rune.
	for i := sort.SearchInts(s.uesc, a); i < len(s.uesc) && s.uesc[i] < e; i++ {
		p := s.uesc[i] // b[p-1:p+5] is the escape
		r := Unit(b[p-1:])
		if utf16.IsSurrogate(r) {
			if i+1 < len(s.uesc) && s.uesc[i+1] == p+6 && p+6 < e {
				if dec := utf16.DecodeRune(r, Unit(b[p+5:])); dec != unicode.ReplacementChar {
					n -= 12 - utf8.RuneLen(dec) - 2
					i++
					continue
				}
			}
			r = unicode.ReplacementChar
		}
		n -= 6 - utf8.RuneLen(r) - 1
	}
	return n
}

// escCount counts the escaped characters in s.b[a:e].
func (s *Scanner) escCount(a, e int) int {
	n := 0
	for w := a >> 6; a < e && w <= (e-1)>>6; w++ {
		n += bits.OnesCount64(spanBits(s.esc, w, a, e))
	}
	return n
}

// spanBits is word w of the bitmap bm with only the bits of bytes a..e-1.
func spanBits(bm []uint64, w, a, e int) uint64 {
	m := bm[w]
	if w == a>>6 {
		m &= ^uint64(0) << (a & 63)
	}
	if w == (e-1)>>6 {
		m &= ^uint64(0) >> (63 - (e-1)&63)
	}
	return m
}

// hasUnicodeEscape reports whether s.b[a:e] holds a \uXXXX escape.
func (s *Scanner) HasUnicodeEscape(a, e int) bool {
	i := sort.SearchInts(s.uesc, a)
	return i < len(s.uesc) && s.uesc[i] < e
}

// validUTF8 is utf8.Valid(s.b[a:e]), looking only at the bytes >= 0x80
// the index marked: ASCII needs no check.
func (s *Scanner) ValidUTF8(a, e int) bool {
	if a >= e {
		return true
	}
	b := s.b
	next := a // the first byte not yet checked
	for w := a >> 6; w <= (e-1)>>6; w++ {
		for m := spanBits(s.hi, w, a, e); m != 0; m &= m - 1 {
			p := w<<6 + bits.TrailingZeros64(m)
			if p < next {
				continue // a continuation byte of the rune just checked
			}
			// p starts a rune: the common 2- and 3-byte forms inline.
			size := 0
			if c := b[p]; p+2 < e && c >= 0xE1 && c <= 0xEF && c != 0xED && b[p+1]&0xC0 == 0x80 && b[p+2]&0xC0 == 0x80 {
				size = 3
			} else if p+1 < e && c >= 0xC2 && c <= 0xDF && b[p+1]&0xC0 == 0x80 {
				size = 2
			} else {
				var r rune
				if r, size = utf8.DecodeRune(b[p:e]); r == utf8.RuneError && size == 1 {
					return false
				}
			}
			next = p + size
			// Drop the rune's continuation bytes in this word at once.
			m &^= (1<<(size-1) - 1) << (p&63 + 1)
		}
	}
	return true
}
