package digest

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"bottle/internal/jsonscan"
	"bottle/internal/racemode"
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

// sameWithRaw checks Describe and Line on c with its result raw.
func sameWithRaw(t *testing.T, c Call, cwd string) {
	t.Helper()
	if !c.HasResult {
		return
	}
	for name, enc := range rawEncodings {
		raw := enc(c.Result)
		eager := c
		eager.Result = jsonscan.Decode(raw)
		lazy := c
		lazy.Result, lazy.ResultRaw = "", jsonscan.StringOf(raw)
		want := Describe(eager, cwd)
		if got := Describe(lazy, cwd); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %s: raw result gives\n%+v\nwant\n%+v\n(result %q)", c.Name, name, got, want, eager.Result)
		}
		if got, want := fullLine(lazy, cwd), fullLine(eager, cwd); got != want {
			t.Fatalf("%s %s: Line = %q, want %q", c.Name, name, got, want)
		}
		// As the scanner hands it over, with what its index knows, from
		// offsets on either side of a word boundary, escapes around it.
		for _, at := range []int{1, 5, 63, 64, 65, 200} {
			lazy.ResultRaw = scanned(t, raw, at)
			if got := Describe(lazy, cwd); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s, scanned at %d: raw result gives\n%+v\nwant\n%+v", c.Name, name, at, got, want)
			}
		}
	}
}

// scanned is raw as the scanner finds it at offset at of a line, between
// escapes: a string body the index has measured.
func scanned(tb testing.TB, raw []byte, at int) jsonscan.String {
	tb.Helper()
	var line []byte
	switch {
	case at == 1:
		line = append(append([]byte{'"'}, raw...), '"')
	case at >= 5:
		// ["<pad>","<raw>","\n\n"]: the pad is escapes where it can be.
		pad := bytes.Repeat([]byte(`\n`), (at-5)/2)
		if (at-5)%2 == 1 {
			pad = append(pad, 'x')
		}
		line = append(append(append(append([]byte(`["`), pad...), `","`...), raw...), `","\n\t\n"]`...)
	default:
		tb.Fatalf("no line puts a string body at %d", at)
	}
	var s jsonscan.Scanner
	if !s.Index(line) {
		tb.Fatalf("line %q does not index", line)
	}
	str := s.String(at, at+len(raw))
	if !bytes.Equal(str.Body, raw) {
		tb.Fatalf("scanned body %q, want %q", str.Body, raw)
	}
	return str
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
		// Paths a reader could misread, or read past private text.
		"a.go:1:x\n<private>\nb.go:2:y\n</private>\nc.go:3:z\n", strings.Repeat("d/a.go:1:x\n", 250) + "e.go:1:y\n",
		"C:\\src\\a.go:1:x\nC:\\src\\b.go:2:\\y\n\"q\".go:3:z\n", "/p/a\n/p/b\n/p/c\n/p/d\n/p/e\n<private>/p/f</private>\n/p/g",
		"/p/a\n<Private >\n/p/b\n", "x.go-1-a:2:b\nx.go:2:c\nx.go-3-d:4:e\ny.go:1:f\n", " /p/é \n\t/p/b\t\n\u00a0/p/c\n",
		strings.Repeat("/p/x\n", 199) + "<private>\n/p/y", strings.Repeat("/p/x\n", 200) + "<private>\n/p/y",
		"Exit code 1\n=== RUN T\n\tx_test.go:3: boom\nFAIL", "Exit code 2\n<private>\nerror: s\n</private>\nerror: t",
		"Exit code 1\tx.go:1: a\nb", "Exit code 3\n\"error\" \\error\n\terror\n", "Exit code 1\n\traceback\nTraceback (most recent call last):",
		"Exit code 1\n" + strings.Repeat("ok\n", 40) + "FAIL", "Exit code 1\n" + strings.Repeat("ok\n", 39) + "FAIL", "Exit code 1\n" + strings.Repeat("\n \n", 50) + "é: panic",
		"Exit code 1\nlong " + strings.Repeat("x", 3000) + " error\n<private>", "Exit code 1\nx\n<PRIVATE>a.go:1: s\nb.go:2: t", "Exit code 2\r\n\u00a0err\u00a0\nCannot go",
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

// TestResultRawCounts covers Grep's count mode, whose lines end in counts.
func TestResultRawCounts(t *testing.T) {
	for _, res := range []string{
		"a.go:3\nb.go:9\n\nFound 12 total occurrences across 2 files.", "C:\\x\\a.go:3\n<private>b.go:1</private>\nc:d:2\n", "a.go:\nb:x\n:3\n",
	} {
		c := call("Grep", `{"pattern":"p","output_mode":"count"}`)
		c.HasResult, c.Result = true, res
		sameWithRaw(t, c, cwd)
	}
}

func TestResultRawCorpus(t *testing.T) {
	n := 0
	for _, path := range corpusFiles(t) {
		for i, cc := range loadCalls(t, path) {
			if racemode.Enabled && i%4 != 0 {
				continue // a sample: .ci/run compares every call without the detector
			}
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
