package jsonscan

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkStrLen indexes a line holding body as a string at every offset
// around a block boundary, with both index paths, and compares strLen and
// escapesIn with jsonstr, which decodes byte by byte.
func checkStrLen(t *testing.T, body string) {
	t.Helper()
	for _, avx := range []bool{false, true} {
		withAVX2(avx, func() { checkStrLenAt(t, body, avx) })
	}
}

func checkStrLenAt(t *testing.T, body string, avx bool) {
	t.Helper()
	{
		for pad := 0; pad < 70; pad += 7 {
			line := `{"k":"` + strings.Repeat("x", pad) + `","s":"` + body + `"}`
			var s Scanner
			if !s.Index([]byte(line)) {
				if json.Valid([]byte(line)) {
					t.Fatalf("index rejects the valid line %q", line)
				}
				return
			}
			a := len(`{"k":"`) + pad + len(`","s":"`)
			e := a + len(body)
			raw := []byte(body)
			if got, want := s.ValidUTF8(a, e), utf8.Valid(raw); got != want {
				t.Fatalf("validUTF8(%q) = %v, want %v (avx2 %v)", body, got, want, avx)
			}
			if got, want := s.StrLen(a, e), Len(raw); got != want {
				t.Fatalf("strLen(%q) = %d, want %d (avx2 %v)", body, got, want, avx)
			}
			// The escaped characters handed to digests
			// (digest.Call.ResultEscapes).
			var wantEsc, gotEsc []int
			for i := range Escapes(raw) {
				wantEsc = append(wantEsc, a+i+1)
			}
			for k := a; k < e; k++ {
				if s.esc[k>>6]&(1<<(k&63)) != 0 {
					gotEsc = append(gotEsc, k)
				}
			}
			if !slices.Equal(gotEsc, wantEsc) {
				t.Fatalf("escaped characters of %q: %v, want %v (avx2 %v)", body, gotEsc, wantEsc, avx)
			}
			if got, want := s.HasUnicodeEscape(a, e), hasU(raw); got != want {
				t.Fatalf("hasUnicodeEscape(%q) = %v, want %v (avx2 %v)", body, got, want, avx)
			}
		}
	}
}

var strLenSeeds = []string{
	``, `a`, `\n`, `\\`, `\\\\n`, `\"`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83d\u0041`,
	`\ud83d\ud83d\ude00`, "caf\xc3\xa9 \xe2\x86\x92", "bad \xff", `\u000a\u000A`, `x\\u0041`,
	strings.Repeat(`ab\"cd\\ef\n`, 30), strings.Repeat("é→", 40) + `\t`, strings.Repeat(`\\`, 33) + `n`,
}

// hasU reports whether a valid body has a \u escape, by Escapes.
func hasU(raw []byte) bool {
	for i := range Escapes(raw) {
		if raw[i+1] == 'u' {
			return true
		}
	}
	return false
}

func TestStrLen(t *testing.T) {
	for _, b := range strLenSeeds {
		checkStrLen(t, b)
	}
}

func FuzzStrLen(f *testing.F) {
	for _, b := range strLenSeeds {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !Check([]byte(body)) {
			return
		}
		checkStrLen(t, body)
	})
}
