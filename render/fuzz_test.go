package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"bottle/privacy"
)

// FuzzEscape: an escaped body never holds a line that reads as bottle
// structure, and escaping changes nothing else; structuralAt finds the
// openings it compares by first byte as comparing with them all does.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"**User** (10:41)", "---", "a\r---\r\n- [#1] x", "  ## Original request", "↳ x", "mode: full", "plain",
		"CURRENT TASK", "- open TASKS: x", "last ACTIVE: now", "- ↳ y", "Mode:x\nPROJECT: p",
		"**Teammate team-lead** (14:39)", "**coordinator** (", "**Agent lines:** x", "**Sender x ** (\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range splitKeep(s) {
			l = strings.TrimLeft(l, " \t")
			if got, want := structuralAt(l), structuralAtAll(l); got != want {
				t.Fatalf("structuralAt(%q) = %d, comparing with every opening %d", l, got, want)
			}
		}
		got := Escape(s)
		for _, l := range splitLines(got) {
			trimmed := strings.TrimLeft(l, " \t")
			if structuralAt(trimmed) != 0 {
				t.Fatalf("Escape(%q) keeps structural line %q", s, l)
			}
		}
		// Only structural lines change: every other line is kept byte for byte.
		in, out := splitKeep(s), splitKeep(got)
		if len(in) != len(out) {
			t.Fatalf("Escape(%q) = %q changes the line count", s, got)
		}
		for i := range in {
			if in[i] != out[i] && structuralAt(strings.TrimLeft(in[i], " \t")) == 0 {
				t.Fatalf("Escape(%q) changed the ordinary line %q to %q", s, in[i], out[i])
			}
		}
	})
}

// structuralAtAll is structuralAt comparing the line with every
// structural opening.
func structuralAtAll(s string) int {
	if s == "" {
		return 0
	}
	if k := structuralAt(s); k == 2 {
		return k
	}
	for _, f := range structural {
		if len(s) >= len(f) && strings.EqualFold(s[:len(f)], f) {
			return 1
		}
	}
	if senderHeadingAt(s) {
		return 1
	}
	return 0
}

// splitLines splits at "\n" and at a lone "\r", as Escape does.
func splitLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

// splitKeep splits at "\n" and "\r" keeping empty lines.
func splitKeep(s string) []string {
	return strings.Split(strings.ReplaceAll(s, "\r", "\n"), "\n")
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

// FuzzExitCode: the code leadingExitCode reads from a result's start is
// the one exitCode finds in the whole result stripped.
func FuzzExitCode(f *testing.F) {
	for _, s := range []string{"Exit code 2\nFAIL", "Exit code 1", "Exit code 12<private>x</private>", "Exit code 3 <x>\nExit code 4",
		"ok\nExit code 5\n", "Exit code \n", "Exit code 7<private>\nExit code 8", "<private>a</private>Exit code 9\n"} {
		f.Add(s, uint8(64))
		f.Add(s, uint8(12))
	}
	f.Fuzz(func(t *testing.T, result string, n uint8) {
		head := result[:min(int(n), len(result))]
		code, ok := leadingExitCode(head)
		if !ok {
			return
		}
		m := exitCode.FindStringSubmatch(privacy.Strip(result))
		if m == nil || m[1] != code {
			t.Fatalf("leadingExitCode(%q) = %q, exitCode in the stripped result %q finds %q", head, code, result, m)
		}
	})
}
