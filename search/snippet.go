package search

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// SnippetChars bounds a snippet, in characters, marks included.
const SnippetChars = 200

// Snippet marks.
const (
	markOpen  = "«"
	markClose = "»"
	ellipsis  = "…"
)

// snippet is the part of text around the first match of any term in low
// (text folded), on one line: white space collapsed, the match marked, "…"
// where it was cut, at most SnippetChars characters.
func snippet(text, low string, terms []string) string {
	pos, n := -1, 0
	for _, t := range terms {
		if i := strings.Index(low, t); i >= 0 && (pos < 0 || i < pos) {
			pos, n = i, len(t)
		}
	}
	if pos < 0 {
		return oneLine(text, SnippetChars)
	}
	// The match itself, cut when it alone is long.
	match := collapse(text[pos : pos+n])
	const maxMatch = 120
	if utf8.RuneCountInString(match) > maxMatch {
		match = string([]rune(match)[:maxMatch-1]) + ellipsis
	}
	budget := SnippetChars - utf8.RuneCountInString(match) - 2 // the marks
	// Up to a third of what is left goes before the match.
	beforeRunes := budget / 3
	start := max(pos-4*beforeRunes-64, 0)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	before := []rune(collapse(text[start:pos]))
	if strings.TrimSpace(text[start:pos]) == "" {
		before = nil
	}
	cutBefore := start > 0
	if len(before) > beforeRunes {
		before, cutBefore = before[len(before)-beforeRunes:], true
	}
	if cutBefore {
		budget--
	}
	budget -= len(before)
	end := min(pos+n+4*budget+64, len(text))
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	after := []rune(collapse(text[pos+n : end]))
	cutAfter := end < len(text)
	if len(after) > budget {
		after, cutAfter = after[:budget-1], true
	} else if cutAfter && len(after) == budget {
		after = after[:budget-1]
	}
	var b strings.Builder
	if cutBefore {
		b.WriteString(ellipsis)
	}
	b.WriteString(strings.TrimLeft(string(before), " "))
	b.WriteString(markOpen + match + markClose)
	b.WriteString(strings.TrimRight(string(after), " "))
	if cutAfter {
		b.WriteString(ellipsis)
	}
	return b.String()
}

// collapse turns every run of white space and control characters into one
// space.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// oneLine is s collapsed and cut to max characters.
func oneLine(s string, max int) string {
	s = strings.TrimSpace(collapse(s))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + ellipsis
}

// Line is a hit as search_history and hookbin search show it, one line:
// "- [#t17] <session> · 2026-03-14 09:02 · tool Bash — <snippet>", the
// session only when withSession. It starts like a bottle's activity line,
// which the bottle's escaping covers.
func Line(h Hit, withSession bool, loc *time.Location) string {
	var b strings.Builder
	b.WriteString("- [#" + h.ID + "] ")
	if withSession {
		b.WriteString(h.Session + " · ")
	}
	if h.Time.IsZero() {
		b.WriteString("(no time)")
	} else {
		b.WriteString(h.Time.In(loc).Format("2006-01-02 15:04"))
	}
	b.WriteString(" · " + string(h.Kind))
	if h.Label != "" {
		b.WriteString(" " + oneLine(h.Label, 80))
	}
	b.WriteString(" — " + h.Snippet)
	return b.String()
}
