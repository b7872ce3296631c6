package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// reference decodes raw with encoding/json; ok is false when raw is not a
// valid JSON string body.
func reference(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '"') >= 0 && !validQuotes(raw) {
		return "", false
	}
	var s string
	if err := json.Unmarshal([]byte(`"`+string(raw)+`"`), &s); err != nil {
		return "", false
	}
	return s, true
}

// validQuotes reports whether every quote in raw is escaped (else the body
// would end early and json.Unmarshal would see trailing data or succeed on a
// different string).
func validQuotes(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return false
		}
	}
	return true
}

// check compares every function of the package with encoding/json on raw.
func check(t *testing.T, raw []byte) {
	t.Helper()
	want, ok := reference(raw)
	if Check(raw) != ok {
		t.Fatalf("Check(%q) = %v, encoding/json says %v", raw, !ok, ok)
	}
	if !ok {
		return
	}
	if got := Decode(raw); got != want {
		t.Fatalf("Decode(%q) = %q, want %q", raw, got, want)
	}
	if got := string(Append([]byte("pre"), raw)); got != "pre"+want {
		t.Fatalf("Append(%q) = %q, want %q", raw, got, "pre"+want)
	}
	var got, ref []int
	for i := range Escapes(raw) {
		got = append(got, i)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' {
			ref = append(ref, i)
			if raw[i+1] == 'u' {
				i += 5
			} else {
				i++
			}
		}
	}
	if !slices.Equal(got, ref) {
		t.Fatalf("Escapes(%q) = %v, want %v", raw, got, ref)
	}
	if got := Len(raw); got != len(want) {
		t.Fatalf("Len(%q) = %d, want %d", raw, got, len(want))
	}
	if got := Plain(raw); got != (want == string(raw)) && got {
		t.Fatalf("Plain(%q) = true, decodes to %q", raw, want)
	}
	for _, n := range []int{0, 1, 2, 3, 5, 8, 13, 64, 257, len(want) - 1, len(want), len(want) + 1} {
		if n < 0 {
			continue
		}
		got := string(appendPrefix([]byte("ab"), raw, n))
		p, ok := strings.CutPrefix(got, "ab")
		if !ok || !strings.HasPrefix(want, p) {
			t.Fatalf("appendPrefix(%q, %d) = %q: not a prefix of %q", raw, n, got, want)
		}
		if dp := DecodePrefix(raw, n); dp != p {
			t.Fatalf("DecodePrefix(%q, %d) = %q, want %q", raw, n, dp, p)
		}
		if len(p) < n && len(p) != len(want) {
			t.Fatalf("appendPrefix(%q, %d) = %q: too short", raw, n, p)
		}
		if len(p) < len(want) && !utf8.RuneStart(want[len(p)]) {
			t.Fatalf("appendPrefix(%q, %d) = %q: cuts a rune", raw, n, p)
		}
	}
}

var seeds = []string{
	``, `a`, `plain ascii text of some length, more than eight bytes`,
	`\n`, `\\`, `\\n`, `\\\n`, `a\"b`, `\/\b\f\n\r\t`, `\u0041`, `\u00e9\u2192`,
	`\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\u0041`, `\ud83d\ud83d\ude00`,
	"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80", "bad \xff byte", "\xed\xa0\x80", "\xe2\x86",
	"     1\xe2\x86\x92package main\\n     2\xe2\x86\x92\\n     3\xe2\x86\x92import \\\"fmt\\\"\\n",
	`\u000a`, `\u000A\\u000a`, `x\\`, strings.Repeat(`ab\"cd\\`, 40), strings.Repeat("é", 100) + `\n`,
	"\xef\xbf\xbd", `\ufffd`, `\uFFFF\u0000`,
}

func TestAgainstEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		if _, ok := reference([]byte(s)); !ok {
			t.Fatalf("seed %q is not a valid JSON string body", s)
		}
		check(t, []byte(s))
	}
	// Every escape and rune at every offset around the 8-byte words.
	pieces := []string{`\n`, `\\`, `\"`, `\u00e9`, `\ud83d\ude00`, `\ud800`, "é", "→", "\xff", "😀", "x"}
	for _, p := range pieces {
		for pad := 0; pad < 20; pad++ {
			s := strings.Repeat("a", pad) + p + strings.Repeat("b", 19-pad) + p
			check(t, []byte(s))
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { check(t, raw) })
}

func BenchmarkLen(b *testing.B) {
	line := "     12\xe2\x86\x92\\tif err := json.Unmarshal(data, \\\"x\\\"); err != nil {\\n"
	raw := []byte(strings.Repeat(line, 2000))
	b.SetBytes(int64(len(raw)))
	b.Run("Len", func(b *testing.B) {
		for b.Loop() {
			Len(raw)
		}
	})
	b.Run("Append", func(b *testing.B) {
		var dst []byte
		for b.Loop() {
			dst = Append(dst[:0], raw)
		}
	})
	b.Run("Prefix", func(b *testing.B) {
		var dst []byte
		for b.Loop() {
			dst = appendPrefix(dst[:0], raw, 2049)
		}
	})
}
