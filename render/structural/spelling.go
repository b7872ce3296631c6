package structural

import (
	"bytes"
	"strings"
	"sync"
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
		if len(out) == 2 && limit == spellMax && (out[0] == '*' || out[0] == '+') && out[1] == ' ' {
			limit = maxOpenBy['-'] // a bullet
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\n' || c == '\r' {
				return bullet(out), at, true
			}
			out = spellByte(out, c)
			i++
			continue
		}
		if lineBreakAt(s[i:]) != 0 {
			return bullet(out), at, true
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		format, space := blankRune(r)
		switch {
		case format:
		case space:
			out = spellByte(out, ' ')
		default:
			if d, ok := foldASCII(s[i : i+n]); ok {
				// A compatibility form of ASCII ("＃", "ｕ").
				for _, b := range d {
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
// structural: one of the openings (ASCII letters compared without regard
// to case: spelling out folded every other form a letter can take), a
// sender's heading, or, when o is the whole line, "---".
func structuralSpelled(o []byte, full bool) bool {
	if len(o) == 0 {
		return false
	}
	for _, f := range structuralByBytes[o[0]] {
		if len(o) >= len(f) && asciiFoldEqual(o[:len(f)], f) {
			return true
		}
	}
	if o[0] == '*' && bytes.Contains(o, []byte("** (")) && SenderHeading(string(o)) {
		return true
	}
	return full && bytes.Equal(bytes.TrimRight(o, " "), []byte("---"))
}

// asciiFoldEqual reports whether a and b, of one length, are equal but for
// the case of ASCII letters.
func asciiFoldEqual(a, b []byte) bool {
	for i := range a {
		if x, y := a[i], b[i]; x != y && (x|0x20 != y|0x20 || y|0x20 < 'a' || y|0x20 > 'z') {
			return false
		}
	}
	return true
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
func structuralPos(s string) (kind, at int) { return structuralIn(s, false) }

// structuralIn is structuralPos of a line, or, quoted, of what follows a
// quote marker: there a rule is the quote's, not a separator of turns.
//
// Most lines are settled by their first bytes: an ASCII byte no opening
// starts with, or a comparison with the openings of that byte that fails
// at a byte spelling out would keep. Only the rest are spelled out.
func structuralIn(s string, quoted bool) (kind, at int) {
	if s == "" {
		return 0, 0
	}
	c := s[0]
	if c < utf8.RuneSelf && !mayOpen[c] {
		return 0, 0
	}
	respell := false
	if rest, ok := strings.CutPrefix(s, "---"); ok {
		if k := strings.IndexAny(rest, "\r\n"); k >= 0 {
			rest = rest[:k]
		}
		if strings.TrimRight(rest, " \t") == "" {
			if quoted {
				return 0, 0
			}
			return 2, 0
		}
		respell = !quoted // "---" and a format character, say
	}
	// The openings the line is compared with: a "*" or "+" bullet's are
	// "-"'s, "_"'s are "*"'s.
	key := c
	switch {
	case (c == '*' || c == '+') && len(s) > 1 && (s[1] == ' ' || s[1] == '\t'):
		key = '-'
	case c == '_':
		key = '*'
	}
	if structuralFirst[key] {
		m, r := rawMatch(s, key)
		if m || c == '*' && SenderHeading(s) {
			return 1, 0
		}
		respell = respell || r || key == '*' && mayBeSender(s)
	}
	spellIt := false
	switch {
	case c >= utf8.RuneSelf:
		r, n := utf8.DecodeRuneInString(s)
		spellIt = respell || foldsOrSkips(r, s[:n])
	case c == '>' && !respell:
		// A plain quote marker: what follows it, its spaces skipped.
		j := 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if k, a := structuralIn(s[j:], true); k != 0 {
			return 1, j + a
		}
		return 0, 0
	case c == '\v' || c == '\f':
		spellIt = true
	default:
		spellIt = respell
	}
	if !spellIt {
		return 0, 0
	}
	var buf [spellMax + 8]byte
	o, at, full := spell(s, buf[:])
	if structuralSpelled(o, full && !quoted) {
		return 1, at
	}
	if len(o) > 0 && o[0] == '>' {
		// A quote marker spelled otherwise ("＞", after a no-break
		// space): what follows it.
		_, n := utf8.DecodeRuneInString(s[at:])
		j := at + n
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if k, a := structuralIn(s[j:], true); k != 0 {
			return 1, j + a
		}
	}
	return 0, 0
}

// respells marks the bytes spelling out changes or may change: spaces
// and tabs (a run collapses), VT and FF, and the first byte of a
// non-ASCII character (a format character, a space, a compatibility
// form).
var respells = func() (t [256]bool) {
	for _, c := range []byte{' ', '\t', '\v', '\f'} {
		t[c] = true
	}
	for c := 0xC0; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// rawMatch compares the line s with the openings that start with key
// (its first byte, or what a bullet or "_" reads as), ASCII letters
// without regard to case, "_" as "*" and a tab as a space: matched says
// one is its start; respell says it parts from one at a character
// spelling out changes, so that spelled out it may match.
func rawMatch(s string, key byte) (matched, respell bool) {
	candidates := structuralBy[key]
	if len(s) > 2 && plainASCII[s[1]] && plainASCII[s[2]] && !(s[1] == ' ' && s[2] == ' ') {
		// An opening it parts from by its third byte at the latest
		// (at a byte spelling out keeps) neither matches nor respells:
		// only those with its third byte are compared.
		i := thirdBy[key][lowerASCII(s[2])]
		if i == 0 {
			return false, false // most lines end here
		}
		candidates = byThird[i-1]
	}
	for _, f := range candidates {
		k := 0
		for k < len(f) && k < len(s) && sameSpelled(s[k], f[k], k) {
			k++
		}
		switch {
		case k == len(f):
			return true, false
		case k == len(s) || respell:
		case s[k] >= 0x80 && s[k] < 0xC0:
			// Inside a character that began as the opening's
			// did: it may be a space or a compatibility form.
			j := k
			for j > 0 && s[j]&0xC0 == 0x80 {
				j--
			}
			r, n := utf8.DecodeRuneInString(s[j:])
			respell = foldsOrSkips(r, s[j:j+n])
		default:
			// A space parts from an opening's letter for good
			// unless it runs on from a space before (and collapses
			// with it).
			c := s[k]
			respell = respells[c] && (c != ' ' || k > 0 && (s[k-1] == ' ' || s[k-1] == '\t'))
		}
	}
	return false, respell
}

// plainASCII marks the printable ASCII bytes spelling out keeps as they
// are ('_' it reads as '*').
var plainASCII = func() (t [256]bool) {
	for c := ' '; c <= '~'; c++ {
		t[c] = c != '_'
	}
	return t
}()

// thirdBy indexes, by first byte and third byte (lower case), the lists
// in byThird of the openings that start so (0: none; an opening of two
// bytes or fewer is in the list of every third byte, and the third bytes
// no longer opening has share the list of the short ones). The table is
// zero memory but for the rows of the first bytes openings have.
var thirdBy, byThird = func() (t *[256][256]uint8, lists [][]string) {
	t = &thirdByTable
	for c, fs := range structuralBy {
		var short []string
		var third [256]bool
		for _, f := range fs {
			if len(f) < 3 {
				short = append(short, f)
			} else {
				third[lowerASCII(f[2])] = true
			}
		}
		shortAt := 0
		if short != nil {
			lists = append(lists, short)
			shortAt = len(lists)
		}
		for b := range 256 {
			if !third[b] {
				if shortAt > 0 {
					t[c][b] = uint8(shortAt)
				}
				continue
			}
			var l []string
			for _, f := range fs {
				if len(f) < 3 || lowerASCII(f[2]) == byte(b) {
					l = append(l, f)
				}
			}
			lists = append(lists, l)
			t[c][b] = uint8(len(lists))
		}
	}
	if len(lists) > 255 {
		panic("render: too many opening lists for thirdBy")
	}
	return t, lists
}()

var thirdByTable [256][256]uint8

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c | 0x20
	}
	return c
}

// sameSpelled reports whether the byte c of a line, at k, spells the byte
// f of an opening: equal, or ASCII letters of either case, "_" for "*", a
// tab for a space, a "*" or "+" bullet for "-".
func sameSpelled(c, f byte, k int) bool {
	switch {
	case c == f:
		return true
	case c|0x20 == f|0x20:
		return 'a' <= f|0x20 && f|0x20 <= 'z'
	case c == '_':
		return f == '*'
	case c == '\t':
		return f == ' '
	}
	return k == 0 && f == '-' && (c == '*' || c == '+')
}

// mayBeSender reports whether the line s, which starts as "**" or "__"
// might, goes on with a sender's word: spelled out, it may be a sender's
// heading.
func mayBeSender(s string) bool {
	if len(s) < 3 || s[1] != '*' && s[1] != '_' {
		return false
	}
	rest := s[2:]
	for _, w := range senderWords {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
			return true
		}
	}
	return rest[0] >= utf8.RuneSelf // a format character or a wide form first
}

// foldsOrSkips reports whether the character r (spelled rs), which starts
// a line, is skipped when spelled out or folds to ASCII. Most scripts'
// letters do neither: the CJK, Hangul and Yi blocks are passed at once.
func foldsOrSkips(r rune, rs string) bool {
	if r < 0x800 {
		return twoByteFoldsOrSkips()[r]
	}
	for _, p := range plainRanges {
		if p[0] <= r && r < p[1] {
			return false
		}
	}
	return foldsOrSkipsSlow(r, rs)
}

// twoByteFoldsOrSkips is foldsOrSkips of every character below U+0800
// (Latin, Greek, Cyrillic, Hebrew, Arabic…), worked out the first time a
// line starts with one.
var twoByteFoldsOrSkips = sync.OnceValue(func() *[0x800]bool {
	var t [0x800]bool
	for r := rune(0x80); r < 0x800; r++ {
		t[r] = foldsOrSkipsSlow(r, string(r))
	}
	return &t
})

func foldsOrSkipsSlow(r rune, rs string) bool {
	if format, space := blankRune(r); format || space {
		return true
	}
	_, ascii := foldASCII(rs)
	return ascii
}

// plainRanges are blocks of characters that are neither spaces nor
// format characters nor compatibility forms of ASCII (TestFoldsOrSkipsRanges
// holds them so): dashes, quotes and bullets; arrows and mathematical and
// technical signs; box drawing, shapes, symbols and dingbats; ideographs,
// Hangul and Yi.
var plainRanges = [...][2]rune{{0x3400, 0xA7F2}, {0x2010, 0x2024}, {0x2190, 0x2460}, {0x2500, 0x2A74}, {0x2A77, 0x2C60},
	{0x2C80, 0x3000}, {0xA7F5, 0xF900}}

// foldASCII is the compatibility decomposition of the character rs when
// it is all ASCII ("＃" is "#", "ﬁ" is "fi"); ok is false otherwise
// (accented letters decompose to a letter and a mark: they stay).
func foldASCII(rs string) (d []byte, ok bool) {
	d = norm.NFKC.PropertiesString(rs).Decomposition()
	if d == nil {
		return nil, false
	}
	for _, b := range d {
		if b >= utf8.RuneSelf {
			return nil, false
		}
	}
	return d, true
}
