package render

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"bottle/render/structural"
	"bottle/workstate"
)

// The structure a golden holds is found by its shape, not by a list of
// openings: the test must notice an opening the escaper does not know.
var (
	// fieldShape is a header field or a pointer line that opens with a
	// capitalised phrase and a colon or a parenthesis ("project:", "Last
	// active:", "Current task (…):").
	fieldShape = regexp.MustCompile(`^[A-Za-z][a-z]*(?: [a-z]+){0,3} ?[:(]`)
	// bracketShape is a footer or a pointer heading: "[bottle /b/x.md · …",
	// "[search · …", "[bottle] A verbatim record…".
	bracketShape = regexp.MustCompile(`^\[[a-z]+(?:\]? )`)
)

// structureShape reports whether line (its indentation trimmed) is shaped
// as a line of structure: a heading, a list item, a bold or italic
// heading, a quote heading, a continuation arrow, a footer or a field.
func structureShape(line string) bool {
	l := strings.TrimLeft(line, " \t")
	switch {
	case l == "" || strings.HasPrefix(l, `\`) || strings.HasPrefix(l, "- - -"):
		return false
	case strings.HasPrefix(l, "#"), strings.HasPrefix(l, "- "), strings.HasPrefix(l, "**"), strings.HasPrefix(l, "↳"):
		return true
	case strings.HasPrefix(l, "*") && len(l) > 1 && l[1] != ' ' && l[1] != '*':
		return true
	case strings.HasPrefix(l, "> "):
		r, _ := utf8.DecodeRuneInString(l[2:])
		return 'A' <= r && r <= 'Z'
	}
	return fieldShape.MatchString(l) || bracketShape.MatchString(l)
}

// sourceText is what a golden's transcript says: every line of every
// string in it, trimmed, and every key (its protocol messages are shown as
// "key: value" lines). A golden line found here is a message's, not the
// bottle's.
type sourceText struct{ lines, keys map[string]bool }

func readSource(t *testing.T, path string) sourceText {
	t.Helper()
	src := sourceText{lines: map[string]bool{}, keys: map[string]bool{}}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			// Wrapper tags (<agent-message …>) go, and the text
			// between them may be JSON itself (a teammate's protocol
			// message).
			for _, part := range tag.Split(x, -1) {
				for _, l := range strings.Split(strings.ReplaceAll(part, "\r", "\n"), "\n") {
					src.lines[strings.TrimSpace(l)] = true
				}
				var inner any
				if json.Unmarshal([]byte(part), &inner) == nil {
					if _, isString := inner.(string); !isString {
						walk(inner)
					}
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				src.keys[k] = true
				walk(e)
			}
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v any
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			walk(v)
		}
	}
	return src
}

// tag matches a wrapper tag of a message.
var tag = regexp.MustCompile(`<[^<>\n]*>`)

// fromSource reports whether line is a message's: its text is in src, or
// it is a "key: value" line of a key or a text in src (a protocol
// message's field, a question's header and its answer).
func (src sourceText) fromSource(line string) bool {
	l := strings.TrimSpace(line)
	if src.lines[l] {
		return true
	}
	k, _, ok := strings.Cut(l, ":")
	return ok && (src.keys[k] || src.lines[k])
}

// unprotected lists the lines of a golden bottle that are shaped as
// structure, are not a message's, and which protected does not escape.
func unprotected(md string, src sourceText, protected func(line string) bool) []string {
	var out []string
	for _, l := range strings.Split(md, "\n") {
		if l == "---" || !structureShape(l) || src.fromSource(l) {
			continue
		}
		if !protected(strings.TrimLeft(l, " \t")) {
			out = append(out, l)
		}
	}
	return out
}

// unprotectedPointer lists the lines of a pointer that protected does not
// escape: all but its path line (the third) and indented continuations.
func unprotectedPointer(text string, protected func(line string) bool) []string {
	var out []string
	for i, l := range strings.Split(text, "\n") {
		if i == 2 || l == "" || strings.HasPrefix(l, "  ") {
			continue
		}
		if !protected(l) {
			out = append(out, l)
		}
	}
	return out
}

func escaperProtects(line string) bool { return structural.At(line) != 0 }

// TestEscapeDerived: every line of structure in the golden bottles (the
// bottle's own, the working state's; Claude Code's and Codex's), the
// README's example and the golden pointers is one the escaper protects, so
// no message can forge it.
func TestEscapeDerived(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The Codex bottles' sources are the Codex host's rollouts.
	codexFiles, err := filepath.Glob(filepath.Join("testdata", "codex", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	source := func(f string) string {
		if filepath.Base(filepath.Dir(f)) == "codex" {
			return filepath.Join(codexTestdata, strings.TrimSuffix(filepath.Base(f), ".md")+".jsonl")
		}
		return strings.TrimSuffix(f, ".md") + ".jsonl"
	}
	checked, codexChecked := 0, 0
	for _, f := range append(files, codexFiles...) {
		jsonl := source(f)
		if _, err := os.Stat(jsonl); err != nil {
			continue // a variant of another fixture's golden (-budget, -with-db)
		}
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range unprotected(string(md), readSource(t, jsonl), escaperProtects) {
			t.Errorf("%s: %q reads as structure, and the escaper does not protect it", f, l)
		}
		checked++
		if filepath.Base(filepath.Dir(f)) == "codex" {
			codexChecked++
		}
	}
	ex, err := Example()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ex), workstate.Heading) {
		t.Fatal("the example bottle has no working state to check")
	}
	for _, l := range unprotected(string(ex), readSourceBytes(t, exampleTranscript), escaperProtects) {
		t.Errorf("example bottle: %q reads as structure, and the escaper does not protect it", l)
	}
	pointers, err := filepath.Glob(filepath.Join("..", "pointer", "testdata", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pointers {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range unprotectedPointer(string(text), escaperProtects) {
			t.Errorf("%s: %q is a pointer line the escaper does not protect", f, l)
		}
	}
	if checked < 20 || codexChecked < 5 || len(pointers) < 5 {
		t.Errorf("checked %d golden bottles (%d of Codex) and %d pointers; the goldens moved?", checked, codexChecked, len(pointers))
	}
}

// TestEscapeDerivedCatches: the check finds the working state's lines
// when the escaper lacks the working state's openings, and the pointer's
// when it lacks the pointer's.
func TestEscapeDerivedCatches(t *testing.T) {
	without := func(drop []string) func(string) bool {
		return func(line string) bool {
			for _, f := range structural.Openings() {
				if len(line) >= len(f) && strings.EqualFold(line[:len(f)], f) {
					for _, d := range drop {
						if d == f {
							return false
						}
					}
					return true
				}
			}
			return false
		}
	}
	ex, err := Example()
	if err != nil {
		t.Fatal(err)
	}
	src := readSourceBytes(t, exampleTranscript)
	if got := unprotected(string(ex), src, without(nil)); len(got) != 0 {
		t.Fatalf("with every opening, the check still finds %q", got)
	}
	got := unprotected(string(ex), src, without(workstate.Openings))
	if len(got) == 0 || !strings.HasPrefix(got[0], workstate.Heading) {
		t.Errorf("without the working state's openings, the check finds %q, want the working state's lines", got)
	}
	text, err := os.ReadFile(filepath.Join("..", "pointer", "testdata", "pointer-full.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if got := unprotectedPointer(string(text), without([]string{"Before doing anything else"})); len(got) != 1 {
		t.Errorf("without the pointer's instruction, the check finds %q, want the instruction line", got)
	}
}

// readSourceBytes is readSource of a transcript held in memory.
func readSourceBytes(t *testing.T, data []byte) sourceText {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return readSource(t, p)
}
