package shown

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"bottle/privacy"
)

// Clean prepares any source text for output: private blocks removed, invalid
// UTF-8 replaced, NUL bytes replaced (Claude Code's Read treats a file with
// NUL bytes as binary).
func Clean(s string) string {
	s = privacy.Strip(s)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// Line flattens s to a single line of at most max runes, for list items
// and headers. It cleans s first.
func Line(s string, max int) string {
	if oneLineAlready(s, max) {
		return s
	}
	return oneLineClean(s, max)
}

// oneLineClean is Line step by step: cleaned, flattened, bounded.
func oneLineClean(s string, max int) string {
	s = Clean(s)
	if !flat(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// oneLineAlready reports, in one pass, that Line(s, max) is s: no '<'
// (nothing to strip), no NUL, valid UTF-8, flat, at most max runes. Most
// lines are (a digest's above all), and the steps of Line each read s.
func oneLineAlready(s string, max int) bool {
	const (
		low7 = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
	)
	// eq marks the bytes of x (all ASCII) equal to those of y, exactly
	// (no carry crosses a byte).
	eq := func(x, y uint64) uint64 { z := x ^ y; return ^((z&low7 + low7) | z) & high }
	prevSpace, runes := true, 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			// Eight ASCII bytes at once: none '<' or below '!' but
			// single spaces.
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if x&high == 0 {
				below := ^(x + 0x5f5f5f5f5f5f5f5f) & high // bytes < '!'
				sp := eq(x, 0x2020202020202020)
				if below == sp && eq(x, 0x3c3c3c3c3c3c3c3c) == 0 && sp&(sp<<8) == 0 && !(prevSpace && sp&0x80 != 0) {
					prevSpace = sp>>63 != 0
					i += 8
					runes += 8
					continue
				}
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '<' || c == 0:
				return false
			case asciiSpace[c]:
				if c != ' ' || prevSpace {
					return false
				}
				prevSpace = true
			default:
				prevSpace = false
			}
			i++
			runes++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unicode.IsSpace(r) {
			return false
		}
		prevSpace = false
		i += n
		runes++
	}
	return (s == "" || !prevSpace) && runes <= max
}

// flat reports whether s is already what strings.Join(strings.Fields(s),
// " ") makes of it: no white space but single spaces between words.
func flat(s string) bool {
	prevSpace := true // so a leading space is caught
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				if c != ' ' || prevSpace {
					return false
				}
				prevSpace = true
			} else {
				prevSpace = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return false
		}
		prevSpace = false
		i += n
	}
	return s == "" || !prevSpace
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
