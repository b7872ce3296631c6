package search

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in            string
		terms, except []string
		err           error
	}{
		{in: "go test", terms: []string{"go", "test"}},
		{in: "  Go   TEST  ", terms: []string{"go", "test"}},
		{in: `"go test" -flaky`, terms: []string{"go test"}, except: []string{"flaky"}},
		{in: `-"very flaky" widget`, terms: []string{"widget"}, except: []string{"very flaky"}},
		{in: `"unclosed phrase`, terms: []string{"unclosed phrase"}},
		{in: `a "" b`, terms: []string{"a", "b"}},
		{in: "- alone", terms: []string{"-", "alone"}},
		{in: "x--y -", terms: []string{"x--y", "-"}},
		{in: `.*[ (a|b) \d+ ^$`, terms: []string{".*[", "(a|b)", `\d+`, "^$"}},
		{in: "nul\x00byte", terms: []string{"nul\uFFFDbyte"}},
		{in: "bad\xffutf8", terms: []string{"bad\uFFFDutf8"}},
		{in: "dup dup DUP", terms: []string{"dup"}},
		{in: "ÉCOLE Straße", terms: []string{"école", "straße"}},
		{in: "", err: ErrEmptyQuery},
		{in: " \t\n", err: ErrEmptyQuery},
		{in: `""`, err: ErrEmptyQuery},
		{in: "-a -b", err: ErrOnlyExcluded},
		{in: strings.Repeat("é", MaxQueryChars+1), err: ErrQueryTooLong},
		{in: strings.Repeat("w ", 33), terms: []string{"w"}},
		{in: strings.Join(strings.Split("abcdefghijklmnopqrstuvwxyz0123456789", ""), " "), err: ErrTooManyTerms},
	} {
		q, err := Parse(tc.in)
		if !errors.Is(err, tc.err) {
			t.Errorf("Parse(%q) error %v, want %v", tc.in, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if !slices.Equal(q.Terms, tc.terms) || !slices.Equal(q.Excluded, tc.except) {
			t.Errorf("Parse(%q) = %q -%q, want %q -%q", tc.in, q.Terms, q.Excluded, tc.terms, tc.except)
		}
	}
}

func TestFoldKeepsLength(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC", "ÀÉÎÕÜ", "İstanbul", "\u212a Kelvin", "ΣΑΣ", "ǅ", "\xff\xfeA", "日本語 ABC"} {
		f := Fold(s)
		if len(f) != len(s) {
			t.Errorf("Fold(%q) = %q: %d bytes, want %d", s, f, len(f), len(s))
		}
	}
	if got := Fold("Hello ÉCOLE"); got != "hello école" {
		t.Errorf("Fold = %q", got)
	}
}

func TestNeedle(t *testing.T) {
	for _, tc := range []struct{ s, n string }{
		{"the quick brown fox", "fox"}, {"aaaaab", "ab"}, {"zq", "q"}, {"", "x"}, {"x", "xy"},
		{"go test ./... go test", "go test"}, {"ab.*[cd", ".*["}, {"needle needle needle", "needle"},
		{"abcxyzq", "xyzq"}, {"qqqq", "qq"},
	} {
		if got, want := newNeedle(tc.n).index(tc.s), strings.Index(tc.s, tc.n); got != want {
			t.Errorf("index(%q, %q) = %d, want %d", tc.s, tc.n, got, want)
		}
		if got, want := newNeedle(tc.n).count(tc.s), strings.Count(tc.s, tc.n); got != want {
			t.Errorf("count(%q, %q) = %d, want %d", tc.s, tc.n, got, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("lorem ipsum\n\tdolor ", 50)
	for _, tc := range []struct {
		text, term, want string
	}{
		{"short MATCH one", "match", "short «MATCH» one"},
		{"MATCH at start " + long, "match", ""},
		{long + "MATCH in the middle " + long, "match", ""},
		{long + " ends with MATCH", "match", ""},
		{long + strings.Repeat("MATCH", 100), "match" + strings.Repeat("match", 60), ""},
		{"日本語のテキスト" + long + "一致" + long, "一致", ""},
	} {
		got := snippet(tc.text, Fold(tc.text), []string{tc.term})
		if n := utf8.RuneCountInString(got); n > SnippetChars {
			t.Errorf("snippet of %d characters: %q", n, got)
		}
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\n\t\r") {
			t.Errorf("snippet not one valid line: %q", got)
		}
		if !strings.Contains(Fold(got), "«"+tc.term[:min(len(tc.term), 5)]) {
			t.Errorf("snippet lacks the mark: %q", got)
		}
		if tc.want != "" && got != tc.want {
			t.Errorf("snippet = %q, want %q", got, tc.want)
		}
	}
}

func TestWalkJSON(t *testing.T) {
	var got []string
	walkJSON([]byte(`{"file_path":"/a/b.go","n":12,"edits":[{"old_string":"x\ny","new_string":"\u00e9"}],"ok":true,"z":null,"k":"v\"q"}`),
		func(k, v string) { got = append(got, k+"="+v) })
	want := []string{"file_path=/a/b.go", "n=12", "old_string=x\ny", "new_string=é", "k=v\"q"}
	if !slices.Equal(got, want) {
		t.Errorf("walkJSON = %q, want %q", got, want)
	}
	walkJSON([]byte(`{"a":"unterminated`), func(k, v string) {}) // no panic
}

// FuzzParse: any query parses or fails with one of the documented errors;
// a parsed query has terms, each folded and non-blank, and its String
// parses back to the same terms.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"go test", `"a b" -c`, `-"x`, "\x00", `"""`, "- -", `.*[(`, "é É"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrEmptyQuery) && !errors.Is(err, ErrOnlyExcluded) && !errors.Is(err, ErrQueryTooLong) && !errors.Is(err, ErrTooManyTerms) {
				t.Fatalf("Parse(%q): unexpected error %v", s, err)
			}
			return
		}
		if len(q.Terms) == 0 {
			t.Fatalf("Parse(%q): no terms", s)
		}
		for _, term := range append(slices.Clone(q.Terms), q.Excluded...) {
			if strings.TrimSpace(term) == "" || Fold(term) != term || !utf8.ValidString(term) || strings.IndexByte(term, 0) >= 0 {
				t.Fatalf("Parse(%q): bad term %q", s, term)
			}
		}
		if !strings.Contains(q.String(), `"`) {
			back, err := Parse(q.String())
			if err != nil || !slices.Equal(back.Terms, q.Terms) || !slices.Equal(back.Excluded, q.Excluded) {
				t.Fatalf("Parse(%q) = %q; its String %q parses to %q, %v", s, q.Terms, q.String(), back.Terms, err)
			}
		}
	})
}

// FuzzSearch: the rare-byte finder agrees with strings.Index, and a
// snippet is one valid line of at most SnippetChars characters.
func FuzzSearch(f *testing.F) {
	f.Add("the quick brown fox", "fox")
	f.Add("aaaaaa", "aa")
	f.Add("Ünïcödé TEXT here", "text")
	f.Fuzz(func(t *testing.T, text, term string) {
		low := Fold(cleanText(text))
		term = Fold(cleanText(term))
		if term == "" {
			return
		}
		if got, want := newNeedle(term).index(low), strings.Index(low, term); got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", low, term, got, want)
		}
		if got, want := newNeedle(term).count(low), strings.Count(low, term); got != want {
			t.Fatalf("count(%q, %q) = %d, want %d", low, term, got, want)
		}
		s := snippet(cleanText(text), low, []string{term})
		if utf8.RuneCountInString(s) > SnippetChars || !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r") {
			t.Fatalf("snippet(%q, %q) = %q", text, term, s)
		}
	})
}

// foldRef is Fold rune by rune, for TestFoldMatchesReference.
func foldRef(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); l != r && r != utf8.RuneError && utf8.RuneLen(l) == size {
			b.WriteRune(l)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// TestFoldMatchesReference: the eight-bytes-at-a-time path folds every
// ASCII byte, at every offset and length, as the rune-by-rune one does.
func TestFoldMatchesReference(t *testing.T) {
	var ascii []byte
	for c := range 128 {
		ascii = append(ascii, byte(c))
	}
	inputs := []string{string(ascii), "Hello ÉCOLE, WORLD@[`{Zz", strings.Repeat("AZaz@[`{", 9) + "Ä" + strings.Repeat("QRST", 5)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = ascii[r.IntN(len(ascii))]
			if r.IntN(30) == 0 {
				b[i] = 0xc3 // a broken or a real two-byte rune with the next
			}
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		for off := 0; off < min(len(in), 9); off++ {
			if got, want := Fold(in[off:]), foldRef(in[off:]); got != want {
				t.Fatalf("Fold(%q) = %q, want %q", in[off:], got, want)
			}
		}
	}
}
