package render

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"bottle/host/claudecode/transcript"
	"bottle/privacy"
)

// structural are the line openings the bottle itself writes. A message line
// that starts with one of them (after optional indentation, compared without
// regard to case) is escaped, so no message can forge bottle structure.
var structural = []string{
	"# Session bottle",
	"## Original request",
	"## Before the first prompt",
	"## Notes",
	"## Working state",
	"- Open tasks:",
	"- Plan:",
	"- Files changed:",
	"- Checks:",
	"- Commits:",
	"- Pushed:",
	"- Pull request",
	"**User** (",
	"**Assistant** (",
	// Other parties' messages are headed by their sender
	// ("**Teammate team-lead** (14:39)"): senderHeadingAt.
	"*What happened:*",
	"- [#",
	"- ⏳",
	"- ↳",
	"↳ ",
	"> Session summary",
	"project:",
	"mode:",
	"Current task",
	// The pointer's lines (it stands above the bottle in the model's
	// context), read_bottle's footer and expansion record headers.
	"# [bottle]",
	"Before doing anything else, Read this file",
	"Last active:",
	"It is longer than one Read allows",
	"- It is the authoritative session record",
	"- It is a partial reconstruction",
	"- The final assistant message in it",
	"- The last session summary describes",
	"- The newest tool activity may",
	"- Lines tagged [#id]",
	"- This record is",
	"[bottle ",
	// search_history's and list_sessions' footers (their hit lines start
	// with "- [#").
	"[search ",
	"[sessions ",
	steerOpening, // the PreCompact instruction
	"## #",
	"## [#",
}

// senderWords start the headings of other parties' messages, with the
// "Sender" a nameless one falls back to (senderName).
var senderWords = append(slices.Clone(transcript.SenderWords), "Sender")

// senderHeadingAt reports whether the line starting at s reads as the
// heading of another party's message: "**", a sender word, perhaps a
// name, then "** (" ("**Teammate team-lead** (14:39)", "**Coordinator**
// (…)"). The whole form is matched, not its opening alone: "**Agent
// lines:** …" is common bold prose.
func senderHeadingAt(s string) bool {
	if !strings.HasPrefix(s, "**") {
		return false
	}
	if k := strings.IndexAny(s, "\r\n"); k >= 0 {
		s = s[:k]
	}
	rest := s[2:]
	for _, w := range senderWords {
		if len(rest) < len(w) || !strings.EqualFold(rest[:len(w)], w) {
			continue
		}
		r := rest[len(w):]
		if !strings.HasPrefix(r, "**") && !strings.HasPrefix(r, " ") {
			continue
		}
		if j := strings.Index(r, "**"); j >= 0 && strings.HasPrefix(r[j+2:], " (") {
			return true
		}
	}
	return false
}

// structuralFirst marks the bytes a structural opening can start with, its
// first byte in either case (no other rune folds to these letters).
var structuralFirst = func() (t [256]bool) {
	for _, f := range structural {
		t[f[0]] = true
		t[strings.ToUpper(f[:1])[0]] = true
		t[strings.ToLower(f[:1])[0]] = true
	}
	t['-'] = true // "---"
	return t
}()

// structuralBy lists the structural openings by their first byte in either
// case: a line is compared only with those it can match (most message
// lines start with a byte few or none of them do).
var structuralBy = func() (t [256][]string) {
	for _, f := range structural {
		c := f[0]
		t[c] = append(t[c], f)
		if 'a' <= c|0x20 && c|0x20 <= 'z' {
			t[c^0x20] = append(t[c^0x20], f)
		}
	}
	return t
}()

// Escape makes a message body safe to embed in a bottle while keeping it as
// close to verbatim as possible: only lines that would read as bottle
// structure change. A "---" line (our turn separator) becomes "- - -", which
// Markdown still renders as a rule; any other structural line gets a
// backslash before its first character, which Markdown hides. Lines are
// split at "\n" and at a lone "\r".
func Escape(s string) string {
	var b strings.Builder
	last := 0
	// nl and cr are the next "\n" and "\r" at or after i (-1: none left),
	// each looked up again only once passed.
	nl, cr := strings.IndexByte(s, '\n'), strings.IndexByte(s, '\r')
	for i := 0; i <= len(s); {
		// i is the start of a line.
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if kind := structuralAt(s[j:]); kind != 0 {
			if b.Len() == 0 && last == 0 {
				b.Grow(len(s) + 8)
			}
			b.WriteString(s[last:j])
			if kind == 2 {
				b.WriteString("- - -")
				last = j + 3
			} else {
				b.WriteByte('\\')
				last = j
			}
		}
		if nl >= 0 && nl < i {
			if nl = strings.IndexByte(s[i:], '\n'); nl >= 0 {
				nl += i
			}
		}
		if cr >= 0 && cr < i {
			if cr = strings.IndexByte(s[i:], '\r'); cr >= 0 {
				cr += i
			}
		}
		k := nl
		if cr >= 0 && (k < 0 || cr < k) {
			k = cr
		}
		if k < 0 {
			break
		}
		i = k + 1
	}
	if last == 0 && b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// structuralAt reports whether the line starting at s is structural: 1 for a
// form escaped with a backslash, 2 for the "---" separator.
func structuralAt(s string) int {
	if s == "" || !structuralFirst[s[0]] {
		return 0
	}
	if strings.HasPrefix(s, "---") {
		rest := s[3:]
		k := strings.IndexAny(rest, "\r\n")
		if k >= 0 {
			rest = rest[:k]
		}
		if strings.TrimRight(rest, " \t") == "" {
			return 2
		}
		return 0
	}
	for _, f := range structuralBy[s[0]] {
		if len(s) >= len(f) && strings.EqualFold(s[:len(f)], f) {
			return 1
		}
	}
	if s[0] == '*' && senderHeadingAt(s) {
		return 1
	}
	return 0
}

// clean prepares any source text for output: private blocks removed, invalid
// UTF-8 replaced, NUL bytes replaced (Claude Code's Read treats a file with
// NUL bytes as binary).
func clean(s string) string {
	s = privacy.Strip(s)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// Verbatim is how a message body appears in a bottle: cleaned, then escaped.
// Tests compare source text through it.
func Verbatim(s string) string { return Escape(clean(s)) }

// oneLine flattens s to a single line of at most max runes, for list items
// and headers. It cleans s first.
func oneLine(s string, max int) string {
	if oneLineAlready(s, max) {
		return s
	}
	return oneLineClean(s, max)
}

// oneLineClean is oneLine step by step: cleaned, flattened, bounded.
func oneLineClean(s string, max int) string {
	s = clean(s)
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

// oneLineAlready reports, in one pass, that oneLine(s, max) is s: no '<'
// (nothing to strip), no NUL, valid UTF-8, flat, at most max runes. Most
// lines are (a digest's above all), and the steps of oneLine each read s.
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

// isBlank reports whether s is empty or only white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
