package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFlat(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a", "a ", "a b", "a  b", "a\tb", "a\nb", "a\u00a0b", "a\u2028b", "é → ✓", "a \u0085", "x\vy", "\x00 a", "a\u3000b"} {
		got := flat(s)
		want := strings.Join(strings.Fields(s), " ") == s
		if got != want {
			t.Errorf("flat(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzFlat(f *testing.F) {
	f.Add("a b")
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		if got, want := flat(s), strings.Join(strings.Fields(s), " ") == s; got != want {
			t.Fatalf("flat(%q) = %v, want %v", s, got, want)
		}
	})
}
