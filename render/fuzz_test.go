package render

import (
	"strings"
	"testing"
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
