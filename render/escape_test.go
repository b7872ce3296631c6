package render

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// escapeRef is a plain reference for Escape: it finds lines with IndexAny.
func escapeRef(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i <= len(s); {
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if kind := structuralAt(s[j:]); kind != 0 {
			b.WriteString(s[last:j])
			if kind == 2 {
				b.WriteString("- - -")
				last = j + 3
			} else {
				b.WriteByte('\\')
				last = j
			}
		}
		k := strings.IndexAny(s[i:], "\r\n")
		if k < 0 {
			break
		}
		i += k + 1
	}
	if last == 0 && b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func TestEscapeLines(t *testing.T) {
	parts := []string{"\n", "\r", "\r\n", "\n\r", " ", "\t", "---", "--- ", "- [#", "**user** (", "## Notes", "x", "é", "↳ ", "mode:"}
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 20000; iter++ {
		var sb strings.Builder
		for k := r.IntN(12); k > 0; k-- {
			sb.WriteString(parts[r.IntN(len(parts))])
		}
		s := sb.String()
		if got, want := Escape(s), escapeRef(s); got != want {
			t.Fatalf("Escape(%q) = %q, want %q", s, got, want)
		}
	}
}
