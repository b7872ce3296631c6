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

// FuzzFlat: flat agrees with strings.Fields, and oneLine's one-pass check
// with its steps.
func FuzzFlat(f *testing.F) {
	f.Add("a b")
	f.Add("Edit: a.go — names: x_y")
	f.Add("a\u00a0b <private>")
	f.Fuzz(func(t *testing.T, s string) {
		// oneLine's one-pass check says s is its own line only when the
		// steps would leave it as it is.
		for _, max := range []int{0, 1, 5, 80, 160} {
			if oneLineAlready(s, max) && oneLineClean(s, max) != s {
				t.Fatalf("oneLineAlready(%q, %d), but the steps make %q", s, max, oneLineClean(s, max))
			}
		}
		if !utf8.ValidString(s) {
			return
		}
		if got, want := flat(s), strings.Join(strings.Fields(s), " ") == s; got != want {
			t.Fatalf("flat(%q) = %v, want %v", s, got, want)
		}
	})
}
