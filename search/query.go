package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Query bounds.
const (
	// MaxQueryChars bounds a query, in characters.
	MaxQueryChars = 1000
	// maxTerms bounds the words and phrases of a query.
	maxTerms = 32
)

// Errors of [Parse]; the messages say what to do.
var (
	ErrEmptyQuery = errors.New("the query is empty: give one or more words to look for, " +
		`e.g. "go test" or auth -oauth`)
	ErrQueryTooLong = fmt.Errorf("the query is longer than %d characters: search for a few distinctive words", MaxQueryChars)
	ErrOnlyExcluded = errors.New("the query only excludes (-word): add a word or phrase to look for")
	ErrTooManyTerms = fmt.Errorf("the query has more than %d words and phrases: keep the most distinctive ones", maxTerms)
)

// Query is a parsed query. Terms and Excluded are folded (see [Fold]).
type Query struct {
	// Terms must all occur in a record; a phrase is one term.
	Terms []string
	// Excluded must not occur.
	Excluded []string
}

// Parse reads a query: white-space separated words, all of which must
// occur; "quoted phrases" (an unclosed quote runs to the end), which must
// occur as written, spaces included; and -word or -"phrase", which must not
// occur. Matching ignores case and nothing else: every other character,
// regular-expression metacharacters, backslashes and NUL bytes included,
// stands for itself. A lone "-" is a word. Invalid UTF-8 is replaced by
// U+FFFD, as records are.
func Parse(s string) (Query, error) {
	if utf8.RuneCountInString(s) > MaxQueryChars {
		return Query{}, ErrQueryTooLong
	}
	s = cleanText(s)
	var q Query
	seen := map[string]bool{}
	add := func(term string, exclude bool) {
		term = Fold(term)
		if strings.TrimSpace(term) == "" {
			return
		}
		key := fmt.Sprint(exclude, term)
		if seen[key] {
			return
		}
		seen[key] = true
		if exclude {
			q.Excluded = append(q.Excluded, term)
		} else {
			q.Terms = append(q.Terms, term)
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		exclude := false
		if s[i] == '-' && i+1 < len(s) && !isSpaceAt(s, i+1) {
			exclude = true
			i++
		}
		if s[i] == '"' {
			end := strings.IndexByte(s[i+1:], '"')
			var phrase string
			if end < 0 {
				phrase, i = s[i+1:], len(s)
			} else {
				phrase, i = s[i+1:i+1+end], i+2+end
			}
			add(phrase, exclude)
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += size
		}
		add(s[i:j], exclude)
		i = j
	}
	switch {
	case len(q.Terms) == 0 && len(q.Excluded) == 0:
		return Query{}, ErrEmptyQuery
	case len(q.Terms) == 0:
		return Query{}, ErrOnlyExcluded
	case len(q.Terms)+len(q.Excluded) > maxTerms:
		return Query{}, ErrTooManyTerms
	}
	return q, nil
}

func isSpaceAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// String is the query as Parse would read it back.
func (q Query) String() string {
	var parts []string
	quote := func(t string) string {
		if strings.ContainsFunc(t, unicode.IsSpace) || strings.HasPrefix(t, "-") || strings.HasPrefix(t, `"`) {
			return `"` + t + `"`
		}
		return t
	}
	for _, t := range q.Terms {
		parts = append(parts, quote(t))
	}
	for _, t := range q.Excluded {
		parts = append(parts, "-"+quote(t))
	}
	return strings.Join(parts, " ")
}

// Fold lower-cases s without changing its length in bytes: ASCII letters,
// and every other rune whose lower case has the same UTF-8 length (a few
// such as 'İ' and the Kelvin sign stay as they are). Offsets into a folded
// text are offsets into the text.
func Fold(s string) string {
	i := foldStart(s)
	if i == len(s) {
		return s
	}
	b := []byte(s) // a copy, not zeroed first: folded in place below
	foldFrom(b, s, i)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is ours alone
}

// foldInto is Fold(s) made in buf's storage when it differs from s: the
// result is good until buf is used again.
func foldInto(buf []byte, s string) (string, []byte) {
	i := foldStart(s)
	if i == len(s) {
		return s, buf
	}
	buf = append(buf[:0], s...)
	foldFrom(buf, s, i)
	return unsafe.String(unsafe.SliceData(buf), len(buf)), buf
}

// foldStart is where Fold first changes s (len(s): nowhere), or the first
// byte that is not ASCII.
func foldStart(s string) int {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	return i
}

// foldFrom folds b, a copy of s, from byte i on.
func foldFrom(b []byte, s string, i int) {
	for i < len(s) {
		// Eight ASCII bytes at a time: the upper-case letters among them
		// get their 0x20 bit.
		for i+8 <= len(s) {
			w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
			if w&0x8080808080808080 != 0 {
				break
			}
			// 0x80 in each byte that is >= 'A', and in each that is > 'Z'
			// (no byte carries into the next: all are below 0x80).
			ge := w + 0x3f3f3f3f3f3f3f3f // 0x80 - 'A'
			gt := w + 0x2525252525252525 // 0x80 - 'Z' - 1
			upper := ge &^ gt & 0x8080808080808080
			binary.LittleEndian.PutUint64(b[i:], w|upper>>2)
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[i] = c
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); l != r && r != utf8.RuneError && utf8.RuneLen(l) == size {
			utf8.EncodeRune(b[i:], l)
		}
		i += size
	}
}

// cleanText replaces invalid UTF-8 and NUL bytes by U+FFFD, as every text
// bottle shows.
func cleanText(s string) string {
	if !utf8.ValidString(s) { // its ASCII path is much faster than ToValidUTF8's
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}
