package digest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"bottle/internal/jsonscan"
)

// fileTools are the describers of the tools that read and write files.
var fileTools = map[string]describer{
	"Read":         describeRead,
	"Write":        describeWrite,
	"Edit":         describeEdit,
	"MultiEdit":    describeMultiEdit,
	"NotebookEdit": describeNotebookEdit,
	"NotebookRead": describeNotebookRead,
	"LS":           describeLS,
}

func describeRead(c *Call, cwd string, ok bool) description {
	var in struct {
		FilePath string `json:"file_path"`
		Offset   int64  `json:"offset"`
		Limit    int64  `json:"limit"`
		Pages    string `json:"pages"`
	}
	decodeInput(c, &in)
	path := showPath(in.FilePath, cwd)
	d := description{kind: KindPath, subject: path}
	const huge = 1 << 40
	if in.Offset > 0 || in.Limit > 0 {
		start := min(max(in.Offset, 1), huge)
		d.rng = strconv.FormatInt(start, 10) + "-"
		if in.Limit > 0 {
			d.rng += strconv.FormatInt(start+min(in.Limit, huge)-1, 10)
		}
	}
	if p := clean(in.Pages, 20); p != "" {
		d.note = " pages " + p
	}
	if ok {
		var nb numbering
		d.success, nb = readOutcome(c)
		if nb.n > 0 && path != "" {
			// The lines the result holds, which the input's offset and
			// limit only ask for (a file may end sooner).
			first, last := canonicalNumber(nb.first), canonicalNumber(nb.last)
			if first == last {
				d.seenRng = first
			} else {
				d.seenRng = first + "-" + last
			}
		}
	}
	return d
}

// readOutcome reads a Read result: the count of its numbered lines
// ("     12→…" or, in newer releases, "12\t…") and their numbers, or a word
// for a result without them. Counts and line numbers reveal no text, so
// they are taken from the raw result: stripping first would let a
// "<private>" inside the file's own source cut the count short.
func readOutcome(c *Call) (string, numbering) {
	switch {
	case c.headHasPrefix(512, "File unchanged since last read"):
		return "unchanged", numbering{}
	case c.headContains(512, "contents are empty"):
		return "empty file", numbering{}
	}
	if nb := c.numberedResult(); nb.n > 0 {
		return plural(nb.n, "line"), nb
	}
	if c.headHasPrefix(512, "[image]") {
		return "image", numbering{}
	}
	if bytes.Contains(c.Structured, []byte(`"numLines"`)) {
		var s struct {
			File struct {
				NumLines *int `json:"numLines"`
			} `json:"file"`
		}
		decode(c.Structured, &s)
		if s.File.NumLines != nil {
			return plural(*s.File.NumLines, "line"), numbering{}
		}
	}
	return "", numbering{}
}

// numbering is what the numbered lines of a Read result tell: how many
// there are and the numbers (their digits) of the first and the last.
type numbering struct {
	n           int
	first, last string
}

func (nb *numbering) add(digits string) {
	if nb.n == 0 {
		nb.first = digits
	}
	nb.last = digits
	nb.n++
}

// canonicalNumber is a line number's digits without leading zeros.
func canonicalNumber(digits string) string {
	if d := strings.TrimLeft(digits, "0"); d != "" {
		return d
	}
	return "0"
}

// lineNumber reads a numbered line of a Read result: optional spaces,
// digits, then '→' or a tab. It returns the digits.
func lineNumber(line string) (string, bool) {
	line = strings.TrimLeft(line, " ")
	i := 0
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	d := line[:i]
	if d == "" || !strings.HasPrefix(line[len(d):], "→") && !strings.HasPrefix(line[len(d):], "\t") {
		return "", false
	}
	return d, true
}

// numberedLines reads the numbered lines of s: it counts them, then looks
// for the first and the last from either end.
func numberedLines(s string) numbering {
	var nb numbering
	for rest, more := s, true; nb.first == "" && more; {
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		nb.first, _ = lineNumber(line)
	}
	if nb.first == "" {
		return nb
	}
	for rest, i := s, len(s); nb.last == "" && i >= 0; rest = rest[:max(i, 0)] {
		i = strings.LastIndexByte(rest, '\n')
		nb.last, _ = lineNumber(rest[i+1:])
	}
	if nb.n = span(nb.first, nb.last); nb.n > 0 {
		return nb
	}
	for rest := s; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if _, ok := lineNumber(line); ok {
			nb.n++
		}
	}
	return nb
}

// span is how many lines a Read's first and last line numbers enclose,
// last-first+1: a Read returns consecutive lines, so its numbered lines
// need not be counted one by one. It is 0 when the numbers do not read
// as such a range (then they are counted).
func span(first, last string) int {
	a, errA := strconv.Atoi(first)
	b, errB := strconv.Atoi(last)
	if errA != nil || errB != nil || b < a || b-a >= 1<<30 {
		return 0
	}
	return b - a + 1
}

func describeWrite(c *Call, cwd string, ok bool) description {
	var in struct {
		FilePath string          `json:"file_path"`
		Content  json.RawMessage `json:"content"`
	}
	decodeInput(c, &in)
	d := description{kind: KindPath, subject: showPath(in.FilePath, cwd)}
	if len(in.Content) > 0 && in.Content[0] == '"' {
		d.note = " (" + plural(countLines(in.Content), "line") + ")"
		d.detail = func(room int) string { return writtenNames(in.Content, room) }
	}
	if ok {
		h := head(c)
		switch {
		case strings.HasPrefix(h, "File created"):
			d.success = "created"
		case strings.Contains(h, "has been updated"), strings.Contains(h, "has been overwritten"):
			d.success = "updated"
		}
	}
	return d
}

// countLines counts the lines of a text given as a JSON string (quotes
// included), a final newline ending the last one: a text's newlines are
// its "\n" escapes, so it is not decoded.
func countLines(raw json.RawMessage) int {
	body := raw[1:max(len(raw)-1, 1)]
	if len(body) == 0 {
		return 0
	}
	n, last := 0, -2
	for i := range jsonscan.Escapes(body) {
		if i+1 < len(body) && body[i+1] == 'n' {
			n, last = n+1, i
		}
	}
	if last != len(body)-2 {
		n++
	}
	return n
}

// textStart is a JSON string's text (quotes included in raw), decoded as
// far as names are read from it (namesScan bytes and a little more); ""
// for any other value.
func textStart(raw json.RawMessage) string { return textPrefix(raw, namesScan+1) }

// textPrefix is a JSON string's text decoded to at least n bytes, or
// whole; "" for any other value.
func textPrefix(raw json.RawMessage, n int) string {
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	return jsonscan.DecodePrefix(raw[1:len(raw)-1], n)
}

// writtenNames are the names of a text written whole (a file, a cell),
// changedNames of nothing before: read from its first 2 KB, and further
// only when those leave room (most texts name enough at their start).
func writtenNames(raw json.RawMessage, room int) string {
	const first = 2 << 10
	text := textPrefix(raw, first)
	if len(text) < first {
		return changedNames(nil, []string{text}, room)
	}
	// Its last line may be cut: left to the second reading.
	names := changedNames(nil, []string{text[:strings.LastIndexByte(text, '\n')+1]}, room)
	if runeLen(names) > room-16 {
		return names
	}
	return changedNames(nil, []string{textStart(raw)}, room)
}

func describeEdit(c *Call, cwd string, _ bool) description {
	var in struct {
		FilePath   string          `json:"file_path"`
		ReplaceAll bool            `json:"replace_all"`
		OldString  json.RawMessage `json:"old_string"`
		NewString  json.RawMessage `json:"new_string"`
	}
	decodeInput(c, &in)
	d := description{kind: KindPath, subject: showPath(in.FilePath, cwd)}
	if in.ReplaceAll {
		d.note = " (replace all)"
	}
	d.detail = func(room int) string {
		return changedNames([]string{textStart(in.OldString)}, []string{textStart(in.NewString)}, room)
	}
	return d
}

func describeMultiEdit(c *Call, cwd string, _ bool) description {
	var in struct {
		FilePath string            `json:"file_path"`
		Edits    []json.RawMessage `json:"edits"`
	}
	decodeInput(c, &in)
	d := description{kind: KindPath, subject: showPath(in.FilePath, cwd)}
	if len(in.Edits) > 0 {
		d.note = " (" + plural(len(in.Edits), "edit") + ")"
	}
	d.detail = func(room int) string {
		var before, after []string
		for _, e := range in.Edits {
			var ed struct {
				OldString json.RawMessage `json:"old_string"`
				NewString json.RawMessage `json:"new_string"`
			}
			decode(e, &ed)
			before, after = append(before, textStart(ed.OldString)), append(after, textStart(ed.NewString))
		}
		return changedNames(before, after, room)
	}
	return d
}

func describeNotebookEdit(c *Call, cwd string, _ bool) description {
	var in struct {
		NotebookPath string          `json:"notebook_path"`
		CellID       string          `json:"cell_id"`
		EditMode     string          `json:"edit_mode"`
		NewSource    json.RawMessage `json:"new_source"`
	}
	decodeInput(c, &in)
	d := description{kind: KindPath, subject: showPath(in.NotebookPath, cwd)}
	if id := clean(in.CellID, 24); id != "" {
		d.note = " cell " + id
	}
	if m := clean(in.EditMode, 12); m != "" && m != "replace" {
		d.note += " (" + m + ")"
	}
	d.detail = func(room int) string { return writtenNames(in.NewSource, room) }
	return d
}

func describeNotebookRead(c *Call, cwd string, _ bool) description {
	var in struct {
		NotebookPath string `json:"notebook_path"`
		CellID       string `json:"cell_id"`
	}
	decodeInput(c, &in)
	d := description{kind: KindPath, subject: showPath(in.NotebookPath, cwd)}
	if id := clean(in.CellID, 24); id != "" {
		d.note = " cell " + id
	}
	return d
}

func describeLS(c *Call, cwd string, _ bool) description {
	var in struct {
		Path string `json:"path"`
	}
	decodeInput(c, &in)
	return description{kind: KindPath, subject: showPath(in.Path, cwd)}
}
