package digest

import (
	"bytes"
	"slices"
	"strings"

	"bottle/privacy"
)

// namesScan bounds the bytes of one text read for names (of an edit's
// strings, a file written, an agent's report): what a text is about shows
// at its start, and a digest must not cost a scan of every file written.
const namesScan = 16 << 10

// namesText is the start of c's result read for the paths it cites:
// namesScan bytes cut at a line's end, stripped of private text. raw
// reports that it is still JSON-escaped, read in place: a result with no
// \u escape holds its tags and paths as they stand, and most outputs hold
// newlines, which decoding would copy for nothing.
func (c *Call) namesText() (text string, raw bool) {
	if c.ResultRaw.Body == nil || c.decoded || !c.ResultRaw.NoUnicodeEscapes() {
		text, _ = c.strippedHead(namesScan)
		return text, false
	}
	b := c.ResultRaw.Body
	if len(b) > namesScan {
		b = b[:namesScan]
		if i := bytes.LastIndex(b, []byte(`\n`)); i > 0 {
			b = b[:i]
		}
	}
	return stripped(inPlace(b)), true
}

// stripped is s stripped of private text, s itself when it holds none
// (privacy.Strip would copy it).
func stripped(s string) string {
	if privacy.Contains(s) {
		return privacy.Strip(s)
	}
	return s
}

// forNames is s cut to namesScan bytes at a line's end, stripped of private
// text (cut first: a private block opened before the cut is still
// stripped to the end).
func forNames(s string) string {
	if len(s) > namesScan {
		s = s[:namesScan]
		if i := strings.LastIndexByte(s, '\n'); i > 0 {
			s = s[:i]
		}
	}
	return stripped(s)
}

// changedNames lists the code names edits touched, "names: a, b", in at
// most room runes ("" when none fits). Each edit replaces before[i] with
// after[i]; the lines they share at the start and at the end are the
// context the edit was made in. First come the names of the new lines
// between (added or changed), then of the old lines between (removed),
// then of the context; each name once, a bare name left out once the list
// holds it qualified ("fetch.Do" covers "Do"). Texts are stripped of
// private text before they are read.
func changedNames(before, after []string, room int) string {
	const label = "names: "
	if room -= len(label); room < 4 {
		return ""
	}
	type edit struct{ head, added, removed, tail string }
	// Most calls are one edit: its parts and lists live on the stack.
	var editsBuf [1]edit
	var movedBuf [1][]string
	edits, moved := editsBuf[:], movedBuf[:]
	if len(after) > 1 {
		edits, moved = make([]edit, len(after)), make([][]string, len(after))
	}
	edits = edits[:len(after)]
	for i := range after {
		old := ""
		if i < len(before) {
			old = forNames(before[i])
		}
		edits[i] = splitEdit(old, forNames(after[i]))
	}
	// A line between that the other side holds too only moved: context.
	l := nameList{room: room, deferLibrary: true}
	for i, e := range edits {
		moved[i] = l.readLines(e.added, e.removed)
	}
	for _, e := range edits {
		l.readLines(e.removed, e.added)
	}
	for i, e := range edits {
		l.read(e.head)
		for _, line := range moved[i] {
			l.read(line)
		}
		l.read(e.tail)
	}
	l.flushLibrary()
	if l.used == 0 {
		return ""
	}
	return l.labeled(label)
}

// libraryQualifiers are the standard libraries' namespaces that qualify
// names in every program of their language (Go's fmt.Errorf, Python's
// os.path.join, JavaScript's console.log): such a name says little of what
// an edit was about, so it comes after the program's own names.
var libraryQualifiers = map[string]bool{
	// Go
	"fmt": true, "os": true, "strings": true, "errors": true, "context": true, "time": true,
	"filepath": true, "io": true, "bytes": true, "strconv": true, "sort": true, "sync": true,
	"json": true, "http": true, "log": true, "slog": true, "slices": true, "maps": true,
	"reflect": true, "regexp": true, "math": true, "bufio": true, "exec": true, "atomic": true,
	"utf8": true, "unicode": true, "url": true,
	// Python
	"sys": true, "re": true, "logging": true, "typing": true, "subprocess": true, "pathlib": true,
	"datetime": true, "collections": true, "itertools": true, "functools": true, "asyncio": true,
	// JavaScript and TypeScript
	"console": true, "Math": true, "JSON": true, "Object": true, "Array": true, "Promise": true,
	"process": true, "window": true, "document": true, "Number": true, "String": true, "Date": true,
	// Elixir
	"Enum": true, "Map": true, "Logger": true, "Kernel": true,
}

// library reports whether n is qualified by one of libraryQualifiers.
func library(n string) bool {
	q, _, ok := strings.Cut(n, ".")
	return ok && libraryQualifiers[q]
}

// splitEdit splits the replacement of old by new into the whole lines
// both start with (head) and end with (tail), and what lies between in
// each (added in new, removed from old).
func splitEdit(old, new string) (e struct{ head, added, removed, tail string }) {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	if p < len(old) || p < len(new) {
		p = strings.LastIndexByte(new[:p], '\n') + 1 // back to a line's start
	}
	q := 0 // the common end, not reaching into the common start
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	if q < len(old)-p || q < len(new)-p {
		if i := strings.IndexByte(new[len(new)-q:], '\n'); i >= 0 {
			q -= i // forward to a line's end
		} else {
			q = 0
		}
	}
	e.head, e.tail = new[:p], new[len(new)-q:]
	e.added, e.removed = new[p:len(new)-q], old[p:len(old)-q]
	return e
}

// nameList is a list of names within room runes, ", " between them.
type nameList struct {
	names strs
	used  int
	room  int
	full  bool
	seen  strs // names listed, and the last part of qualified ones
	// deferLibrary puts the names of libraryQualifiers met in library,
	// listed last (flushLibrary).
	deferLibrary bool
	library      strs
}

// flushLibrary lists the library names met, in order, while they fit.
func (l *nameList) flushLibrary() {
	if !l.deferLibrary {
		return
	}
	l.deferLibrary = false
	for i := range l.library.len() {
		l.add(*l.library.at(i))
	}
}

// strs is a list of strings held in place up to its array's length (a
// list fills a line: a few names), so that a nameList on the stack
// allocates nothing of its own.
type strs struct {
	a    [24]string
	n    int
	more []string // past a
}

func (s *strs) len() int { return s.n + len(s.more) }

func (s *strs) at(i int) *string {
	if i < len(s.a) {
		return &s.a[i]
	}
	return &s.more[i-len(s.a)]
}

func (s *strs) add(x string) {
	if s.n < len(s.a) {
		s.a[s.n] = x
		s.n++
		return
	}
	s.more = append(s.more, x)
}

// index is the index of x in s, or -1.
func (s *strs) index(x string) int {
	for i := range s.n {
		if s.a[i] == x {
			return i
		}
	}
	if k := slices.Index(s.more, x); k >= 0 {
		return len(s.a) + k
	}
	return -1
}

// labeled is label followed by the list as written, ", " between names.
func (l *nameList) labeled(label string) string {
	n := len(label)
	for i := range l.names.len() {
		if i > 0 {
			n += len(", ")
		}
		n += len(*l.names.at(i))
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(label)
	for i := range l.names.len() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(*l.names.at(i))
	}
	return b.String()
}

// readLines reads the lines of text that other does not hold, looked up
// only until the list is full, and returns those it holds (moved, not
// changed), in order.
func (l *nameList) readLines(text, other string) (moved []string) {
	if other == "" {
		l.read(text)
		return nil
	}
	holds := func(line string) bool { return strings.Contains(other, line) }
	if len(other) > 2<<10 {
		// A long other side: a set of its lines, not a scan per line.
		set := map[string]bool{}
		forLines(other, func(line string) { set[line] = true })
		holds = func(line string) bool { return set[line] }
	}
	scanText(text, namesLines, func(line string, _ bool) bool {
		if holds(line) {
			moved = append(moved, line)
		} else {
			l.read(line)
		}
		return l.full
	})
	return moved
}

// namesLines bounds the lines of one side of an edit read for names: its
// first changed lines say what it is about.
const namesLines = 64

// read adds the names of text, in order, until the list is full. A string
// literal's contents are not names (a key, a password, a message), and
// neither is what a secret's name is assigned nor a word shaped like a
// credential.
func (l *nameList) read(text string) {
	text = privacy.RedactAssignments(text)
	for i := 0; i < len(text) && !l.full; {
		if q := text[i]; q == '"' || q == '\'' && (i == 0 || !nameByte(text[i-1])) {
			i = literalEnd(text, i)
			continue
		}
		if !nameByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && (nameByte(text[j]) || text[j] == '.' && j+1 < len(text) && nameByte(text[j+1])) {
			j++
		}
		if n := strings.Trim(text[i:j], "_"); len(n) >= 4 && len(n) <= 48 && (n[0] < '0' || n[0] > '9') && codeLike(n) &&
			privacy.Redact(text[i:j]) == text[i:j] {
			l.add(n)
		}
		i = j
	}
}

// literalEnd is the index past the string literal that opens at text[i]
// with a quote: past its closing quote (a backslash escapes), or the end of
// its line when it does not close there.
func literalEnd(text string, i int) int {
	q := text[i]
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(text)
}

// add lists n, unless the list holds it already; a qualified name
// ("fetch.Do") takes the place of its bare form ("Do") listed before it.
func (l *nameList) add(n string) {
	if l.full || l.seen.index(n) >= 0 {
		return
	}
	if l.deferLibrary && library(n) {
		if l.library.index(n) < 0 {
			l.library.add(n)
		}
		return
	}
	bare := ""
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		bare = n[i+1:]
	}
	if k := l.names.index(bare); bare != "" && k >= 0 {
		if l.used+len(n)-len(bare) > l.room {
			return // the bare form stays
		}
		*l.names.at(k) = n
		l.used += len(n) - len(bare)
		l.seen.add(n)
		return
	}
	cost := len(n) // names are ASCII
	if l.used > 0 {
		cost += len(", ")
	}
	if l.used+cost > l.room {
		// A shorter name may still fit, but the list is in the order of
		// the edit: stop rather than skip.
		l.full = true
		return
	}
	l.names.add(n)
	l.used += cost
	l.seen.add(n)
	if bare != "" {
		l.seen.add(bare)
	}
}

// A code name is a run of ASCII letters, digits and '_' (with '.' between
// such runs), 4 to 48 bytes, not starting with a digit, that reads as an
// identifier rather than a word: it holds a '_' or '.' inside or a
// lower-case letter followed by an upper-case one (retryCount, max_tries,
// fetch.Do).

func nameByte(b byte) bool { return nameBytes[b] }

// nameBytes marks the bytes of names: one load where nameByte is asked
// of every byte of the texts read for names.
var nameBytes = func() (t [256]bool) {
	for b := range 256 {
		t[b] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
	}
	return t
}()

// codeLike reports whether a name holds an inner '_' or '.' or a
// lower-to-upper case change.
func codeLike(n string) bool {
	for i := 1; i < len(n); i++ {
		p, c := n[i-1], n[i]
		if c == '_' || c == '.' || 'a' <= p && p <= 'z' && 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// citedFiles lists the files a result cites (an agent's report, a
// command's output), "files: a.go, cmd/b.go", in at most room runes (""
// when none fits): the paths in the result's text, stripped of private
// text, in order of first mention, each once, inside cwd relative to it.
// The files a report or a git status names are the ones opened next.
func citedFiles(c *Call, cwd string, room int) string {
	const label = "files: "
	if room -= len(label); room < 4 {
		return ""
	}
	text, raw := c.namesText()
	l := nameList{room: room}
	// A path holds a '/': find those, then the token around each.
	for from := 0; from < len(text) && !l.full; {
		k := strings.IndexByte(text[from:], '/')
		if k < 0 {
			break
		}
		i, end := from+k, from+k+1
		for i > from && pathByte(text[i-1]) {
			i--
		}
		if raw && i > 0 && text[i-1] == '\\' {
			// Still JSON-escaped: the run starts with an escape's letters
			// ("\nsrc/a.go"), not the path's.
			i++
			if text[i-1] == 'u' {
				i += 4
			}
			if i > from+k {
				from = end
				continue
			}
		}
		for end < len(text) && pathByte(text[end]) {
			end++
		}
		from = end
		j := end // a sentence's full stop is not the path's
		for j > i && (text[j-1] == '.' || text[j-1] == '-') {
			j--
		}
		// Not a URL's or an address's part ("host:org/repo.git").
		url := i >= 1 && (text[i-1] == '@' || text[i-1] == ':')
		if p := text[i:j]; !url && filePathLike(p) {
			if diffSide(text, i, raw) {
				p = p[2:]
			}
			l.add(showPath(p, cwd))
		}
	}
	if l.used == 0 {
		return ""
	}
	return l.labeled(label)
}

// diffSide reports whether the path at text[i:] is the "a/" or "b/" side
// of a diff's header line ("diff --git a/x.go b/x.go", "--- a/x.go",
// "+++ b/x.go"): the file is x.go. raw says text is still JSON-escaped
// (a line starts after "\n").
func diffSide(text string, i int, raw bool) bool {
	if !strings.HasPrefix(text[i:], "a/") && !strings.HasPrefix(text[i:], "b/") {
		return false
	}
	start := strings.LastIndexByte(text[:i], '\n') + 1
	if k := strings.LastIndex(text[:i], `\n`); raw && k >= 0 {
		start = max(start, k+2)
	}
	line := text[start:i]
	return strings.HasPrefix(line, "diff --git ") || line == "--- " || line == "+++ "
}

func pathByte(b byte) bool { return nameByte(b) || b == '.' || b == '/' || b == '-' }

// filePathLike reports whether p reads as a file's path: a '/' in it, no
// "//", and a last element "name.ext" with a short alphanumeric
// extension holding a letter.
func filePathLike(p string) bool {
	if len(p) < 4 || len(p) > 300 || !strings.Contains(p[1:], "/") || strings.Contains(p, "//") {
		return false // a file at the root ("/x.go") is more often a cut path
	}
	name := p[strings.LastIndexByte(p, '/')+1:]
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || len(name)-dot-1 > 10 || dot == len(name)-1 {
		return false
	}
	letter := false
	for _, b := range []byte(name[dot+1:]) {
		if !nameByte(b) || b == '_' {
			return false
		}
		letter = letter || b > '9'
	}
	return letter
}
