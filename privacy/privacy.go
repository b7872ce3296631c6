// Package privacy removes the text a user marked private, and the blocks
// claude-mem treats as machine context, before any of it is rendered,
// returned or written.
//
// It follows claude-mem's tag list but is stricter where claude-mem leaks
// (docs/format.md, "Privacy"): tag names match case-insensitively,
// nested same-name tags are removed whole, and an opening <private> that is
// never closed removes everything after it (fail closed).
//
// It also replaces well-known credential shapes (cloud and API keys, tokens,
// private keys, a URL's password) with "[redacted: <kind>]" ([Redact]), so
// that a secret a session printed or typed is not copied into a bottle, a
// search record or a tool result; the caller decides where it runs.
//
// It is a leaf: it imports only the standard library.
package privacy

import "strings"

// tags are the element names whose blocks are removed, open tag to close tag.
var tags = []string{
	"private",
	"claude-mem-context",
	"system_instruction",
	"system-instruction",
	"persisted-output",
	"system-reminder",
}

// maxPasses bounds how often Strip re-scans text whose removals joined the
// text around them into a new tag ("<pri<private>x</private>vate>").
const maxPasses = 4

// Strip returns s with every tagged block removed. Whitespace around a removed
// block is kept as it was, so the rest of the text stays verbatim. Removing a
// block can join its neighbours into a new tag, so Strip repeats until nothing
// changes; if a private tag still opens after maxPasses, everything from it on
// is removed (fail closed).
//
// Private blocks are removed in a pass of their own before the other tags:
// a machine-context block must not take a <private> opening with it and
// leave what follows the private block's close as plain text ("<system-
// reminder>x <private>a</system-reminder> SECRET</private>").
func Strip(s string) string {
	for pass := 0; ; pass++ {
		out, others := stripOnce(s, true)
		if others {
			out, _ = stripOnce(out, false)
		}
		if out == s || !Contains(out) {
			return out
		}
		if pass == maxPasses-1 {
			return cutAtPrivate(out)
		}
		s = out
	}
}

// cutAtPrivate removes everything from the first opening private tag on.
func cutAtPrivate(s string) string {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return s
		}
		i += j
		if name, _ := openTag(s, i); name == "private" {
			return s[:i]
		}
	}
}

// stripOnce removes the tagged blocks of s in one left-to-right scan; with
// privateOnly, only private blocks. others reports that, with privateOnly,
// it passed the opening tag of another element: only then is a second scan
// needed.
func stripOnce(s string, privateOnly bool) (out string, others bool) {
	if strings.IndexByte(s, '<') < 0 {
		return s, false
	}
	var b strings.Builder
	last := 0 // s[last:i] is pending output
	i := 0
	for {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			break
		}
		i += j
		name, openEnd := openTag(s, i)
		if name == "" {
			i++
			continue
		}
		if privateOnly && name != "private" {
			others = true
			i++
			continue
		}
		if openEnd < 0 {
			// "<private" with no closing '>' at all.
			if name == "private" {
				b.WriteString(s[last:i])
				return b.String(), others
			}
			i++
			continue
		}
		end := closeOf(s, openEnd, name)
		if end < 0 {
			if name == "private" {
				b.WriteString(s[last:i])
				return b.String(), others
			}
			i++
			continue
		}
		b.WriteString(s[last:i])
		last, i = end, end
	}
	if last == 0 {
		return s, others
	}
	b.WriteString(s[last:])
	return b.String(), others
}

// Contains reports whether s holds any opening tag Strip would act on.
func Contains(s string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		if name, _ := openTag(s, i); name != "" {
			return true
		}
	}
}

// openTag reports whether s[i:] starts an opening tag of a stripped element.
// It returns the tag name and the index just past its '>' (-1 when the tag
// never closes). Like claude-mem's `<name\b[^>]*>`, the name must be followed
// by a character that cannot continue a word.
func openTag(s string, i int) (name string, end int) {
	if i+1 >= len(s) || s[i] != '<' {
		return "", 0
	}
	rest := s[i+1:]
	for _, t := range tags {
		if len(rest) < len(t) || !strings.EqualFold(rest[:len(t)], t) {
			continue
		}
		if len(rest) > len(t) && isWordByte(rest[len(t)]) {
			continue
		}
		gt := strings.IndexByte(rest[len(t):], '>')
		if gt < 0 {
			return t, -1
		}
		return t, i + 1 + len(t) + gt + 1
	}
	return "", 0
}

// closeOf finds the close tag matching an open tag of name whose content
// starts at from, counting nested same-name open tags. It returns the index
// just past the matching close tag, or -1.
func closeOf(s string, from int, name string) int {
	depth := 1
	i := from
	for {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return -1
		}
		i += j
		if end := closeTag(s, i, name); end > 0 {
			depth--
			if depth == 0 {
				return end
			}
			i = end
			continue
		}
		if n, end := openTag(s, i); n == name {
			if end < 0 {
				return -1
			}
			depth++
			i = end
			continue
		}
		i++
	}
}

// closeTag reports whether s[i:] starts "</name>" (case-insensitive, spaces
// allowed before '>'), returning the index past it, or 0.
func closeTag(s string, i int, name string) int {
	if i+2+len(name) > len(s) || s[i+1] != '/' || !strings.EqualFold(s[i+2:i+2+len(name)], name) {
		return 0
	}
	k := i + 2 + len(name)
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
		k++
	}
	if k < len(s) && s[k] == '>' {
		return k + 1
	}
	return 0
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
