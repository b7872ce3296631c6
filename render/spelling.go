package render

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A structural line can be spelled many ways that read the same to a
// model or render the same as Markdown: after a no-break or zero-width
// space, a BOM, VT or FF; with two spaces or a tab after its marker; as
// "__User__"; with a "*" or "+" bullet; inside "> " quotes; in full-width
// forms ("＃"). Escaping compares a line's opening as spelled out here:
// spaces and format characters (Cf) skipped at the start and dropped
// within, runs of spaces collapsed to one, compatibility forms folded
// (NFKC), "_" read as "*", a "*" or "+" bullet as "-", and, on a second
// try, behind each "> " quote marker in turn.

// spellMax bounds the spelled-out opening, in bytes: past the longest
// opening and the longest sender's heading ("**Teammate <name>** (", a
// name of at most 80 characters).
const spellMax = 400

// mayOpen marks the bytes a line whose opening may be structural can
// start with: an opening's first byte in either case, and what spelling
// out skips or reads as one (spaces, quote markers, "_", "+"). A line that
// starts with another ASCII byte is not structural, however it goes on.
var mayOpen = func() (t [256]bool) {
	t = structuralFirst
	for _, c := range []byte{'>', '_', '*', '+', '-', ' ', '\t', '\v', '\f'} {
		t[c] = true
	}
	return t
}()

// maxOpenBy is the length of the longest opening by first byte (either
// case); a sender's heading is long.
var maxOpenBy = func() (t [256]int) {
	for c, fs := range structuralBy {
		for _, f := range fs {
			t[c] = max(t[c], len(f))
		}
	}
	t['*'] = spellMax
	t['-'] = max(t['-'], 3)
	t['+'] = t['-'] // a bullet
	t['>'] = max(t['>'], 2)
	return t
}()

// plainUpTo reports whether the first n bytes of the line s (or all of
// it, when shorter) read as spelled out: printable ASCII without '_' and
// without two spaces in a row. Such a line's opening is its own spelling
// unless it starts with a bullet or a quote marker.
func plainUpTo(s string, n int) bool {
	prevSpace := false
	for i := 0; i < len(s) && i < n; i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\r':
			return true
		case c >= utf8.RuneSelf || c < ' ' || c == '_':
			return false
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		default:
			prevSpace = false
		}
	}
	return true
}

// lineBreakAt reports the length of the line break that starts s: "\n",
// "\r", U+0085, U+2028 or U+2029; 0 when none does.
func lineBreakAt(s string) int {
	switch {
	case s == "":
		return 0
	case s[0] == '\n' || s[0] == '\r':
		return 1
	case strings.HasPrefix(s, "\u0085"):
		return 2
	case strings.HasPrefix(s, "\u2028") || strings.HasPrefix(s, "\u2029"):
		return 3
	}
	return 0
}

// blankRune reports whether r is dropped from an opening as spelled out
// (a format character) or read as a space.
func blankRune(r rune) (format, space bool) {
	if r < utf8.RuneSelf {
		return false, r == ' ' || r == '\t' || r == '\v' || r == '\f'
	}
	if unicode.Is(unicode.Cf, r) {
		return true, false
	}
	return false, unicode.IsSpace(r)
}

// maxQuoteDepth bounds the quote markers looked behind.
const maxQuoteDepth = 16

// spell writes into buf the opening of the line s as spelled out (at most
// spellMax bytes) and returns it with the offset in s of the line's first
// character that is not skipped: where an escape goes. full reports that
// the whole line was spelled out.
func spell(s string, buf []byte) (out []byte, at int, full bool) {
	out = buf[:0]
	i := 0
	// Skip the start: spaces and format characters.
	for i < len(s) && lineBreakAt(s[i:]) == 0 {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if format, space := blankRune(r); format || space {
			i += n
			continue
		}
		break
	}
	at = i
	limit := spellMax
	for i < len(s) && len(out) < limit {
		if len(out) > 0 && limit == spellMax {
			// The first character says which openings can follow
			// and how long the longest is.
			if !mayOpen[out[0]] {
				return out, at, false
			}
			limit = maxOpenBy[out[0]]
		}
		if lineBreakAt(s[i:]) != 0 {
			return bullet(out), at, true
		}
		c := s[i]
		if c < utf8.RuneSelf {
			out = spellByte(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		format, space := blankRune(r)
		switch {
		case format:
		case space:
			out = spellByte(out, ' ')
		default:
			p := norm.NFKC.PropertiesString(s[i : i+n])
			if d := p.Decomposition(); d != nil && d[0] < utf8.RuneSelf {
				// A compatibility form of ASCII ("＃", "ｕ"):
				// its ASCII reading. Other decompositions
				// (accents) cannot make an opening.
				for _, b := range d {
					if b >= utf8.RuneSelf {
						break
					}
					out = spellByte(out, b)
				}
			} else {
				out = append(out, s[i:i+n]...)
			}
		}
		i += n
	}
	return bullet(out), at, i >= len(s)
}

// spellByte appends the ASCII byte c to an opening as spelled out: a run
// of spaces as one, "_" as "*".
func spellByte(out []byte, c byte) []byte {
	switch c {
	case ' ', '\t', '\v', '\f':
		if len(out) == 0 || out[len(out)-1] == ' ' {
			return out
		}
		c = ' '
	case '_':
		c = '*'
	}
	return append(out, c)
}

// bullet reads a "*" or "+" bullet as "-".
func bullet(out []byte) []byte {
	if len(out) >= 2 && (out[0] == '*' || out[0] == '+') && out[1] == ' ' {
		out[0] = '-'
	}
	return out
}

// structuralSpelled reports whether the opening spelled out as o is
// structural: one of the openings, a sender's heading, or, when o is the
// whole line, "---".
func structuralSpelled(o []byte, full bool) bool {
	if len(o) == 0 {
		return false
	}
	for _, f := range structuralByBytes[o[0]] {
		if len(o) >= len(f) && bytes.EqualFold(o[:len(f)], f) {
			return true
		}
	}
	if o[0] == '*' && senderHeadingAt(string(o)) {
		return true
	}
	return full && bytes.Equal(bytes.TrimRight(o, " "), []byte("---"))
}

// structuralByBytes is structuralBy as bytes.
var structuralByBytes = func() (t [256][][]byte) {
	for c, fs := range structuralBy {
		for _, f := range fs {
			t[c] = append(t[c], []byte(f))
		}
	}
	return t
}()

// structuralPos reports whether the line starting at s (its leading spaces
// and tabs skipped by the caller) is structural however it is spelled: 1
// for a form escaped with a backslash at s[at:], 2 for the "---"
// separator.
func structuralPos(s string) (kind, at int) {
	if s == "" || s[0] < utf8.RuneSelf && !mayOpen[s[0]] {
		return 0, 0
	}
	if k := structuralAt(s); k != 0 {
		return k, 0
	}
	c := s[0]
	if c < utf8.RuneSelf && structuralFirst[c] && c != '>' && c != '*' && plainUpTo(s, maxOpenBy[c]) {
		return 0, 0 // spelled as it stands: structuralAt said no
	}
	if c == '*' && len(s) > 1 && s[1] != ' ' && s[1] != '\t' && plainUpTo(s, spellMax) {
		return 0, 0 // "**" as it stands
	}
	var buf [spellMax + 8]byte
	o, at, full := spell(s, buf[:])
	if structuralSpelled(o, full) {
		return 1, at
	}
	// Inside quotes, at every depth: a rule there is the quote's, not a
	// separator of turns, so only openings count.
	off := 0
	for depth := 0; depth < maxQuoteDepth && len(o) > 0 && o[0] == '>'; depth++ {
		_, n := utf8.DecodeRuneInString(s[off+at:])
		off += at + n
		if o, at, _ = spell(s[off:], buf[:]); structuralSpelled(o, false) {
			return 1, off + at
		}
	}
	return 0, 0
}
