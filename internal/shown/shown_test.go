package shown

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

// oneLineRef is oneLineAlready step by step.
func oneLineRef(s string, max int) bool {
	return !strings.ContainsAny(s, "<\x00") && utf8.ValidString(s) && flat(s) && utf8.RuneCountInString(s) <= max
}

// TestOneLineAlready: the one-pass check, eight bytes at a time where they
// are ASCII, says what its steps say, whatever the word a byte falls in.
func TestOneLineAlready(t *testing.T) {
	base := "abcdefgh ijklmnop qrstuvwx yz012345 6789ABCD"
	for i := range len(base) + 1 {
		for _, ins := range []string{"", " ", "  ", "\t", "<", "\x00", "\x7f", "\n", "é", "\u00a0", "\xff", "~", "!"} {
			s := base[:i] + ins + base[i:]
			for _, max := range []int{10, 44, 60} {
				if got, want := oneLineAlready(s, max), oneLineRef(s, max); got != want {
					t.Errorf("oneLineAlready(%q, %d) = %v, want %v", s, max, got, want)
				}
			}
		}
	}
}

// FuzzFlat: flat agrees with strings.Fields, and Line's one-pass check
// with its steps.
func FuzzFlat(f *testing.F) {
	f.Add("a b")
	f.Add("Edit: a.go — names: x_y")
	f.Add("a\u00a0b <private>")
	f.Fuzz(func(t *testing.T, s string) {
		// Line's one-pass check says s is its own line only when the
		// steps would leave it as it is.
		for _, max := range []int{0, 1, 5, 80, 160} {
			if got, want := oneLineAlready(s, max), oneLineRef(s, max); got != want {
				t.Fatalf("oneLineAlready(%q, %d) = %v, want %v", s, max, got, want)
			}
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
