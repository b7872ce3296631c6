package digest

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"bottle/render/jsonstr"
)

// Digests read a result handed over still JSON-escaped (Call.ResultRaw)
// exactly as they read it decoded (Call.Result).

// rawEncodings spell a result as JSON string bodies in different ways: as
// a JSON encoder would, and with \u escapes wherever a reader could trip.
var rawEncodings = map[string]func(string) []byte{
	"minimal": func(s string) []byte { // only what JSON requires; other bytes literal
		var b []byte
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\t':
				b = append(b, `\t`...)
			case c < 0x20:
				b = fmt.Appendf(b, `\u%04x`, c)
			default:
				b = append(b, c)
			}
		}
		return b
	},
	"escaped": func(s string) []byte { // every byte but letters as \u, UTF-16 pairs
		var b []byte
		for _, r := range s {
			switch {
			case r < 0x80 && (r|0x20 >= 'a' && r|0x20 <= 'z'):
				b = append(b, byte(r))
			case r == utf8.RuneError:
				b = append(b, `\ufffd`...)
			case r >= 0x10000:
				r -= 0x10000
				b = fmt.Appendf(b, `\u%04X\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			default:
				b = fmt.Appendf(b, `\u%04X`, r)
			}
		}
		return b
	},
	"newlines": func(s string) []byte { // \u000a newlines, \\ before n
		var b []byte
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\n':
				b = append(b, `\u000A`...)
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = fmt.Appendf(b, `\u%04x`, c)
			default:
				b = append(b, c)
			}
		}
		return b
	},
}

// sameWithRaw checks Both and Line on c with its result raw.
func sameWithRaw(t *testing.T, c Call, cwd string) {
	t.Helper()
	if !c.HasResult {
		return
	}
	for name, enc := range rawEncodings {
		raw := enc(c.Result)
		eager := c
		eager.Result = jsonstr.Decode(raw)
		lazy := c
		lazy.Result, lazy.ResultRaw = "", raw
		wl, wp := Both(eager, cwd)
		gl, gp := Both(lazy, cwd)
		if gl != wl || gp != wp {
			t.Fatalf("%s %s: raw result gives\n%q, %q\nwant\n%q, %q\n(result %q)", c.Name, name, gl, gp, wl, wp, eager.Result)
		}
		if got, want := Line(lazy, cwd), Line(eager, cwd); got != want {
			t.Fatalf("%s %s: Line = %q, want %q", c.Name, name, got, want)
		}
		// With the scanner's promise of no \u escape, where it holds.
		if !hasUnicodeEscape(raw) {
			lazy.ResultNoUnicodeEscapes = true
			if gl, gp := Both(lazy, cwd); gl != wl || gp != wp {
				t.Fatalf("%s %s, no \\u: raw result gives\n%q, %q\nwant\n%q, %q", c.Name, name, gl, gp, wl, wp)
			}
		}
		// And with the escaped characters handed over, as the scanner
		// does, from bit offsets on either side of a word boundary.
		if !hasUnicodeEscape(raw) {
			lazy.ResultNoUnicodeEscapes = true
			for _, at := range []int{0, 5, 63, 64, 200} {
				lazy.ResultEscapes, lazy.ResultEscapesAt = escapeBitmap(raw, at), at
				if gl, gp := Both(lazy, cwd); gl != wl || gp != wp {
					t.Fatalf("%s %s, escapes given at %d: raw result gives\n%q, %q\nwant\n%q, %q", c.Name, name, at, gl, gp, wl, wp)
				}
			}
		}
	}
}

// escapeBitmap marks the escaped characters of raw from bit at on, as
// Call.ResultEscapes wants, with the bits around raw set to show that
// they are ignored.
func escapeBitmap(raw []byte, at int) []uint64 {
	esc := make([]uint64, (at+len(raw))/64+2)
	for k := range at {
		esc[k/64] |= 1 << (k % 64)
	}
	for k := at + len(raw); k < 64*len(esc); k++ {
		esc[k/64] |= 1 << (k % 64)
	}
	for i := range jsonstr.Escapes(raw) {
		k := at + i + 1
		esc[k/64] |= 1 << (k % 64)
	}
	return esc
}

func hasUnicodeEscape(raw []byte) bool {
	for i := range jsonstr.Escapes(raw) {
		if raw[i+1] == 'u' {
			return true
		}
	}
	return false
}

func TestResultRawFixtures(t *testing.T) {
	for _, f := range fixtures() {
		sameWithRaw(t, f.call, f.cwd)
	}
	// Read results whose numbering a reader could miscount.
	for _, res := range []string{
		numbered(3), "     1→a\n  12\tb\n3→\n→4\n 5 →x\n\n6\t\n", "1→", "x\n1→", "\n\n", "1→\n", "   \n7→é\n",
		"1\u2192a\n\u00a02→b", strings.Repeat("123→\\n\n", 50), "1→a\\\n2→b", `1→a\\n2→b`,
	} {
		c := call("Read", `{"file_path":"/home/dev/proj/a.go"}`)
		c.HasResult, c.Result = true, res
		sameWithRaw(t, c, cwd)
	}
	// Grep, Glob and TaskList results whose lines a reader could miscount,
	// and heads whose markers it could misread.
	for _, res := range []string{
		"a.go:1:x\n--\nb.go:2:y\n", " -- \n\t--\t\n-\\-\n--\r\n\r\n", "\u00a0--\u00a0\n\u2003x\n\u0085\n\u3000\n\x85--\xa0\n",
		"[Showing results with pagination = limit: 3]\n  [Showing\n\"[Showing results\n", "\f\fx\f\n\v\vy\v\n\b\n", "é\nx é\n é \n",
		"(Results are truncated. Consider a more specific path.)\n /a\n", " (Results are truncated\r\n", "#1 a\n #2\n\\#3\n\\n#4\n",
		"No files found", " \r\n\tNo matches found", "\u0020No files found", "<persisted-output>x", "  [Request interrupted by user]",
		"[Old tool result content cleared]", "Command running in background with ID: 1", "File unchanged since last read",
		"The file contents are empty.", strings.Repeat(" ", 300) + "[Request interrupted by user", "No tasks found", "\n\n",
		strings.Repeat("a/b.go\n", 40) + "Async agent launched", "x\\", "\\\\t\n\\t",
	} {
		for _, name := range []string{"Grep", "Glob", "TaskList", "Read", "Bash", "Task", "Write"} {
			for _, isError := range []bool{false, true} {
				c := call(name, `{"file_path":"/home/dev/proj/a.go","output_mode":"content"}`)
				c.HasResult, c.Result, c.IsError = true, res, isError
				sameWithRaw(t, c, cwd)
			}
		}
	}
}

func TestResultRawCorpus(t *testing.T) {
	n := 0
	for _, path := range corpusFiles(t) {
		for _, cc := range loadCalls(t, path) {
			sameWithRaw(t, cc.Call, cc.cwd)
			n++
		}
	}
	t.Logf("%d corpus calls digested from raw results", n)
}

func FuzzResultRaw(f *testing.F) {
	f.Add("Read", numbered(4), false)
	f.Add("Grep", "a.go:1:x\n--\nb.go:2:y\n", false)
	f.Add("Bash", "Exit code 2\nboom", true)
	f.Add("BashOutput", "<status>running</status>", false)
	f.Add("Grep", " a.go:1:x \r\n\u00a0--\u2003\n\n  --\n[Showing results x]\n\u0085b\t\n", false)
	f.Add("Glob", "/a/b.go\n\f/c é\n(Results are truncated. x)\n", false)
	f.Add("TaskList", "#1 a\n  #2 b\n\u3000#3\nNo tasks", false)
	f.Add("Read", "  \t\n[image]", false)
	f.Fuzz(func(t *testing.T, name, result string, isError bool) {
		for _, in := range []string{`{}`, `{"file_path":"/a/b.go","output_mode":"content","command":"ls"}`, `{"output_mode":"count"}`} {
			c := call(name, in)
			c.HasResult, c.Result, c.IsError = true, result, isError
			sameWithRaw(t, c, cwd)
		}
	})
}
