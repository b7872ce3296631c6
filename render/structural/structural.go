package structural

import (
	"slices"
	"strings"

	"bottle/host/claudecode/transcript"
	"bottle/pointer"
	"bottle/workstate"
)

// openings are the line openings the bottle itself writes, but for the
// working state's (package workstate writes them).
var openings = []string{
	"# Session bottle",
	"## Original request",
	"## Before the first prompt",
	"## Notes",
	"**User** (",
	"**Assistant** (",
	// Other parties' messages are headed by their sender
	// ("**Teammate team-lead** (14:39)"): SenderHeading.
	"*What happened:*",
	"- [#",
	"- ⏳",
	"- ↳",
	"↳ ",
	"> Session summary",
	"project:",
	"mode:",
}

// structural are the line openings a message must not be able to forge: a
// message line that starts with one of them (after optional indentation,
// compared without regard to case) is escaped. They are the bottle's own
// openings, the working state's, and those of the text around the bottle
// in the model's context: the pointer, the PreCompact instruction, the
// tools' footers and the headings of expanded records.
var structural = slices.Concat(openings, workstate.Openings, pointer.Openings,
	[]string{pointer.SteerOpening}, pointer.FooterOpenings, pointer.RecordHeadings)

// senderWords start the headings of other parties' messages, with the
// "Sender" a nameless one falls back to (senderName).
var senderWords = append(slices.Clone(transcript.SenderWords), "Sender")

// SenderHeading reports whether the line starting at s reads as the
// heading of another party's message: "**", a sender word, perhaps a
// name, then "** (" ("**Teammate team-lead** (14:39)", "**Coordinator**
// (…)"). The whole form is matched, not its opening alone: "**Agent
// lines:** …" is common bold prose.
func SenderHeading(s string) bool {
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
// structure, however spelled (see spell), change. A "---" line (our turn
// separator) becomes "- - -", which Markdown still renders as a rule; any
// other structural line gets a backslash before its first character that
// is not a space, a format character or (for a quoted line) a quote
// marker, which Markdown hides. Lines are split at "\n", at a lone "\r" and
// at U+0085, U+2028 and U+2029, which some readers break lines at.
func Escape(s string) string {
	var b strings.Builder
	last := 0
	// nl, cr and the others are the next "\n", "\r", U+0085, U+2028 and
	// U+2029 at or after i (-1: none left), each looked up again only once
	// passed.
	nl, cr := strings.IndexByte(s, '\n'), strings.IndexByte(s, '\r')
	var ub unicodeBreaks
	ub.init(s)
	for i := 0; i <= len(s); {
		// i is the start of a line.
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if kind, at := structuralPos(s[j:]); kind != 0 {
			if b.Len() == 0 && last == 0 {
				b.Grow(len(s) + 8)
			}
			if kind == 2 {
				b.WriteString(s[last:j])
				b.WriteString("- - -")
				last = j + 3
			} else {
				b.WriteString(s[last : j+at])
				b.WriteByte('\\')
				last = j + at
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
		if u := ub.next(s, i); u >= 0 && (k < 0 || u < k) {
			k = u
		}
		if k < 0 {
			break
		}
		i = k + lineBreakAt(s[k:])
	}
	if last == 0 && b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// unicodeBreaks finds the line breaks other than "\n" and "\r" in a
// text: U+0085 (C2 85) and U+2028, U+2029 (E2 80 A8, E2 80 A9), each
// looked up again only once passed. Their first bytes are searched for
// (other characters share them: "—", "’", "…" start with E2), not the
// whole sequences, whose search falls back to a slow scan in text full of
// those.
type unicodeBreaks struct {
	c2, e2 int // the next of each kind at or after the last i; -1: none
}

func (u *unicodeBreaks) init(s string) {
	u.c2, u.e2 = nextBreak(s, 0, 0xC2), nextBreak(s, 0, 0xE2)
}

// nextBreak is the index of the first line break at or after i that
// starts with lead; -1 when there is none.
func nextBreak(s string, i int, lead byte) int {
	for i < len(s) {
		k := strings.IndexByte(s[i:], lead)
		if k < 0 {
			return -1
		}
		i += k
		if lineBreakAt(s[i:]) != 0 {
			return i
		}
		i++
	}
	return -1
}

// next is the first of them at or after i; -1 when there is none.
func (u *unicodeBreaks) next(s string, i int) int {
	if u.c2 >= 0 && u.c2 < i {
		u.c2 = nextBreak(s, i, 0xC2)
	}
	if u.e2 >= 0 && u.e2 < i {
		u.e2 = nextBreak(s, i, 0xE2)
	}
	if u.c2 >= 0 && (u.e2 < 0 || u.c2 < u.e2) {
		return u.c2
	}
	return u.e2
}

// At reports whether the line starting at s is structural: 1 for a
// form escaped with a backslash, 2 for the "---" separator.
func At(s string) int {
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
	if s[0] == '*' && SenderHeading(s) {
		return 1
	}
	return 0
}

// Openings are every line opening the escaper protects, a copy.
func Openings() []string { return slices.Clone(structural) }
