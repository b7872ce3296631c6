package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEscape: an escaped body never holds a line that reads as bottle
// structure, and escaping changes nothing else.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"**User** (10:41)", "---", "a\r---\r\n- [#1] x", "  ## Original request", "↳ x", "mode: full", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		for _, l := range splitLines(got) {
			trimmed := strings.TrimLeft(l, " \t")
			if structuralAt(trimmed) != 0 {
				t.Fatalf("Escape(%q) keeps structural line %q", s, l)
			}
		}
		// Undo the two escapes: the text is otherwise unchanged.
		if undo := unescape(got); undo != s {
			t.Fatalf("Escape(%q) = %q changes more than structural lines (undo %q)", s, got, undo)
		}
	})
}

// splitLines splits at "\n" and at a lone "\r", as Escape does.
func splitLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

// unescape reverses Escape for the test: "- - -" lines that Escape wrote and
// backslashes before structural forms.
func unescape(s string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '\n' && s[i] != '\r' {
			continue
		}
		line := s[start:i]
		j := len(line) - len(strings.TrimLeft(line, " \t"))
		rest := line[j:]
		switch {
		case strings.HasPrefix(rest, "- - -") && structuralAt("---"+rest[5:]) == 2:
			line = line[:j] + "---" + rest[5:]
		case strings.HasPrefix(rest, `\`) && structuralAt(rest[1:]) != 0:
			line = line[:j] + rest[1:]
		}
		b.WriteString(line)
		if i < len(s) {
			b.WriteByte(s[i])
		}
		start = i + 1
	}
	return b.String()
}

// FuzzParseID: ParseID never panics, and a canonical id parses to itself.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"102401", "#t17", "u0", "a3", "#", "t", "x1", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, canon, n := ParseID(s)
		if kind == IDInvalid {
			return
		}
		if n < 0 || !utf8.ValidString(canon) {
			t.Fatalf("ParseID(%q) = %v, %q, %d", s, kind, canon, n)
		}
		k2, c2, n2 := ParseID(canon)
		if k2 != kind || c2 != canon || n2 != n {
			t.Fatalf("ParseID(%q) = %q, which parses to %v %q %d", s, canon, k2, c2, n2)
		}
	})
}
