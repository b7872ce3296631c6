package digest

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"bottle/internal/jsonscan"

	"bottle/privacy"
)

// description is what a tool's describer reads from a call.
type description struct {
	salient string // the salient input, bounded to salientMax
	success string // the outcome of a normal (not error, not interrupted) result
	// seen stands for salient in a Line with a normal result: the input as
	// the result shows it (the lines a Read returned).
	seen string
	// paths are the first distinct paths a normal result names (Grep,
	// Glob), shown as showPath does, of total matched files.
	paths  [maxPaths]string
	npaths int
	total  int
	// compact, when set, is a shorter salient part for a line that cannot
	// show all of its paths: a shorter pattern, and the folder searched
	// (scope) left out when drop says every path shows it.
	compact func(drop bool) string
	scope   string
	// userWords marks a success that holds the user's words (the answers
	// to AskUserQuestion): it may take an error line's room.
	userWords bool
	// detail, when set, is the call's detail in at most room runes, its
	// label included ("names: a, b"; "" when nothing fits): Forms.Detail.
	detail func(room int) string
}

// describer reads one tool's call. ok reports whether c has a normal
// result to read; describers look at the result and c.Structured only then.
type describer func(c *Call, cwd string, ok bool) description

// describers maps a tool name to its describer. Tools not listed, MCP tools
// included, use describeGeneric.
var describers = map[string]describer{
	"Read":                 describeRead,
	"Write":                describeWrite,
	"Edit":                 describeEdit,
	"MultiEdit":            describeMultiEdit,
	"NotebookEdit":         describeNotebookEdit,
	"NotebookRead":         describeNotebookRead,
	"Bash":                 describeBash,
	"BashOutput":           describeShellOutput,
	"KillShell":            describeShellID,
	"KillBash":             describeShellID,
	"TaskStop":             describeShellID,
	"Grep":                 describeGrep,
	"Glob":                 describeGlob,
	"LS":                   describeLS,
	"Task":                 describeTask,
	"Agent":                describeTask,
	"TaskOutput":           describeShellOutput,
	"TaskCreate":           describeTaskCreate,
	"TaskUpdate":           describeTaskUpdate,
	"TaskGet":              describeTaskGet,
	"TaskList":             describeTaskList,
	"SendMessage":          describeSendMessage,
	"TeamCreate":           describeTeamCreate,
	"TeamDelete":           describeNothing,
	"TodoWrite":            describeTodoWrite,
	"TodoRead":             describeNothing,
	"WebFetch":             describeWebFetch,
	"WebSearch":            describeWebSearch,
	"Skill":                describeSkill,
	"SlashCommand":         describeSlashCommand,
	"ExitPlanMode":         describeExitPlanMode,
	"EnterPlanMode":        describeNothing,
	"AskUserQuestion":      describeAskUserQuestion,
	"LSP":                  describeLSP,
	"ListMcpResourcesTool": describeMcpResources,
	"ReadMcpResourceTool":  describeMcpResources,
}

func describe(c *Call, cwd string, withResult bool) description {
	ok := withResult && c.HasResult && !c.IsError
	f := describers[c.Name]
	if f == nil {
		f = describeGeneric
	}
	d := f(c, cwd, ok)
	d.salient = bound(strings.TrimSpace(d.salient), salientMax)
	return d
}

// decode fills v from a JSON text that may be malformed, such as
// c.Structured, leaving fields of a wrong type or a malformed input at
// their zero values. Inputs go through decodeInput.
func decode(in json.RawMessage, v any) {
	if len(in) > 0 {
		_ = json.Unmarshal(in, v)
	}
}

// head is the start of a result, for reading markers and first lines.
func head(c *Call) string {
	return strings.TrimLeft(c.resultPrefix(512), " \t\r\n")
}

func describeNothing(*Call, string, bool) description { return description{} }

// Files.

func describeRead(c *Call, cwd string, ok bool) description {
	var in struct {
		FilePath string `json:"file_path"`
		Offset   int64  `json:"offset"`
		Limit    int64  `json:"limit"`
		Pages    string `json:"pages"`
	}
	decodeInput(c, &in)
	path := showPath(in.FilePath, cwd)
	sal := path
	const huge = 1 << 40
	if in.Offset > 0 || in.Limit > 0 {
		start := min(max(in.Offset, 1), huge)
		sal += ":" + strconv.FormatInt(start, 10) + "-"
		if in.Limit > 0 {
			sal += strconv.FormatInt(start+min(in.Limit, huge)-1, 10)
		}
	}
	pages := ""
	if p := clean(in.Pages, 20); p != "" {
		pages = " pages " + p
	}
	d := description{salient: sal + pages}
	if ok {
		var nb numbering
		d.success, nb = readOutcome(c)
		if nb.n > 0 && path != "" {
			// The lines the result holds, which the input's offset and
			// limit only ask for (a file may end sooner).
			first, last := canonicalNumber(nb.first), canonicalNumber(nb.last)
			if first == last {
				d.seen = path + ":" + first + pages
			} else {
				d.seen = path + ":" + first + "-" + last + pages
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
	d := description{salient: showPath(in.FilePath, cwd)}
	if len(in.Content) > 0 && in.Content[0] == '"' {
		d.salient += " (" + plural(countLines(in.Content), "line") + ")"
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
	sal := showPath(in.FilePath, cwd)
	if in.ReplaceAll {
		sal += " (replace all)"
	}
	names := func(room int) string {
		return changedNames([]string{textStart(in.OldString)}, []string{textStart(in.NewString)}, room)
	}
	return description{salient: sal, detail: names}
}

func describeMultiEdit(c *Call, cwd string, _ bool) description {
	var in struct {
		FilePath string            `json:"file_path"`
		Edits    []json.RawMessage `json:"edits"`
	}
	decodeInput(c, &in)
	sal := showPath(in.FilePath, cwd)
	if len(in.Edits) > 0 {
		sal += " (" + plural(len(in.Edits), "edit") + ")"
	}
	names := func(room int) string {
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
	return description{salient: sal, detail: names}
}

func describeNotebookEdit(c *Call, cwd string, _ bool) description {
	var in struct {
		NotebookPath string          `json:"notebook_path"`
		CellID       string          `json:"cell_id"`
		EditMode     string          `json:"edit_mode"`
		NewSource    json.RawMessage `json:"new_source"`
	}
	decodeInput(c, &in)
	sal := showPath(in.NotebookPath, cwd)
	if id := clean(in.CellID, 24); id != "" {
		sal += " cell " + id
	}
	if m := clean(in.EditMode, 12); m != "" && m != "replace" {
		sal += " (" + m + ")"
	}
	names := func(room int) string { return writtenNames(in.NewSource, room) }
	return description{salient: sal, detail: names}
}

func describeNotebookRead(c *Call, cwd string, _ bool) description {
	var in struct {
		NotebookPath string `json:"notebook_path"`
		CellID       string `json:"cell_id"`
	}
	decodeInput(c, &in)
	sal := showPath(in.NotebookPath, cwd)
	if id := clean(in.CellID, 24); id != "" {
		sal += " cell " + id
	}
	return description{salient: sal}
}

func describeLS(c *Call, cwd string, _ bool) description {
	var in struct {
		Path string `json:"path"`
	}
	decodeInput(c, &in)
	return description{salient: showPath(in.Path, cwd)}
}

// Shell.

func describeBash(c *Call, cwd string, ok bool) description {
	var in struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	decodeInput(c, &in)
	d := description{salient: command(in.Command, cwd)}
	if d.salient == "" {
		d.salient = clean(in.Description, salientMax)
	}
	if ok {
		d.success = bashOutcome(c)
		d.detail = func(room int) string { return citedFiles(c, cwd, room) }
	}
	return d
}

// command is a shell command on one line, without a leading "cd <cwd> &&
// ": its lines joined by " ⏎ " (a script's second line, after a comment
// or a variable, is often the command itself), bounded.
func command(cmd, cwd string) string {
	cmd = strings.TrimSpace(privacy.Strip(cmd))
	if dir := trimSeparators(cwd); dir != "" {
		if rest, ok := cutCd(cmd, dir); ok {
			cmd = strings.TrimSpace(rest)
		}
	}
	if !strings.Contains(cmd, "\n") {
		return clean(cmd, salientMax)
	}
	var b strings.Builder
	for line := range strings.Lines(prefix(cmd, 4*salientMax+16)) {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" ⏎ ")
		}
		b.WriteString(line)
	}
	return clean(b.String(), salientMax)
}

// cutCd cuts a leading "cd <dir> && " from cmd, dir bare or quoted.
func cutCd(cmd, dir string) (string, bool) {
	rest, ok := strings.CutPrefix(cmd, "cd ")
	if !ok {
		return cmd, false
	}
	for _, q := range [...]string{"", `"`, "'"} {
		r, ok := strings.CutPrefix(rest, q)
		if !ok {
			continue
		}
		if r, ok = strings.CutPrefix(r, dir); !ok {
			continue
		}
		if r, ok = strings.CutPrefix(r, q+" && "); ok {
			return r, true
		}
	}
	return cmd, false
}

func bashOutcome(c *Call) string {
	if c.headHasPrefix(512, "Command running in background") {
		return "running in background"
	}
	st := c.Structured
	if len(st) > 0 && (bytes.Contains(st, []byte(`"returnCodeInterpretation"`)) ||
		bytes.Contains(st, []byte(`"interrupted":true`)) || bytes.Contains(st, []byte(`"interrupted": true`))) {
		var s struct {
			Interrupted              bool   `json:"interrupted"`
			ReturnCodeInterpretation string `json:"returnCodeInterpretation"`
		}
		decode(st, &s)
		if s.Interrupted {
			return "interrupted"
		}
		if r := clean(s.ReturnCodeInterpretation, 40); r != "" {
			return lowerFirst(r)
		}
	}
	return "ok"
}

func describeShellID(c *Call, _ string, _ bool) description {
	var in struct {
		ShellID string `json:"shell_id"`
		TaskID  string `json:"task_id"`
		BashID  string `json:"bash_id"`
	}
	decodeInput(c, &in)
	return description{salient: clean(firstNonEmpty(in.ShellID, in.TaskID, in.BashID), 40)}
}

// describeShellOutput covers BashOutput and TaskOutput, whose results open
// with status tags: "<retrieval_status>timeout</retrieval_status> …
// <status>running</status>".
func describeShellOutput(c *Call, cwd string, ok bool) description {
	d := describeShellID(c, cwd, false)
	if ok {
		h := c.resultPrefix(headBytes)
		var parts []string
		retrieval, status := tag(h, "retrieval_status"), tag(h, "status")
		if retrieval != "" && retrieval != "success" {
			parts = append(parts, retrieval)
		}
		if status != "" {
			parts = append(parts, status)
		} else if retrieval == "success" {
			parts = append(parts, retrieval)
		}
		if code := tag(h, "exit_code"); code != "" {
			parts = append(parts, "exit "+code)
		}
		d.success = strings.Join(parts, ", ")
	}
	return d
}

// tag is the short text of the first <name>…</name> element in s.
func tag(s, name string) string {
	_, rest, ok := strings.Cut(s, "<"+name+">")
	if !ok {
		return ""
	}
	v, _, ok := strings.Cut(rest, "</"+name+">")
	if !ok || len(v) > 40 {
		return ""
	}
	return clean(v, 20)
}

// Search.

func describeGrep(c *Call, cwd string, ok bool) description {
	var in struct {
		Pattern    string          `json:"pattern"`
		Path       string          `json:"path"`
		Glob       string          `json:"glob"`
		Type       string          `json:"type"`
		OutputMode string          `json:"output_mode"`
		A          json.RawMessage `json:"-A"`
		B          json.RawMessage `json:"-B"`
		C          json.RawMessage `json:"-C"`
		Context    json.RawMessage `json:"context"`
	}
	decodeInput(c, &in)
	scope := showPath(in.Path, cwd)
	filter := clean(firstNonEmpty(in.Glob, in.Type), 30)
	salient := func(pattern string, drop bool) string {
		sal := quoted(pattern)
		if scope != "" && scope != "." && !drop {
			sal += " in " + scope
		}
		if filter != "" {
			sal += " (" + filter + ")"
		}
		return strings.TrimSpace(sal)
	}
	d := description{salient: salient(clean(in.Pattern, 60), false), scope: scope}
	d.compact = func(drop bool) string { return salient(clean(in.Pattern, compactPattern), drop) }
	if ok {
		context := nonZero(in.A) || nonZero(in.B) || nonZero(in.C) || nonZero(in.Context)
		grepOutcome(c, cwd, in.OutputMode, context, &d)
	}
	return d
}

func nonZero(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s != "" && s != "0" && s != "null" && s != "false"
}

// grepOutcome reads a Grep result into d: the count its mode gives and the
// first matched paths.
func grepOutcome(c *Call, cwd, mode string, context bool, d *description) {
	switch {
	case c.headHasPrefix(512, PersistedTag):
		d.success = persistedCount(c)
		return
	case c.headHasPrefix(512, "No matches found"), c.headHasPrefix(512, "No files found"):
		d.success = "no matches"
		return
	}
	switch mode {
	case "content":
		// ripgrep prints a file's lines together, so a file is a run of
		// match lines with one path.
		n, files, prev := 0, 0, ""
		c.forResultLines(func(line string, raw bool) {
			if line == "--" || strings.HasPrefix(line, "[Showing results") {
				return
			}
			n++
			if len(line) > len(prev) && line[len(prev)] == ':' && prev != "" && strings.HasPrefix(line, prev) {
				return // a line of the same file, as matchPath would find
			}
			if p, ok := matchPath(line, prev, raw); ok && p != prev {
				files++
				prev = p
			}
		})
		noun := "matching line"
		if context {
			noun = "line"
		}
		if files > 0 {
			d.success = plural(n, noun) + " in " + plural(files, "file")
			d.total = files
			d.firstPaths(c, cwd, matchPath)
		} else {
			d.success = plural(n, noun)
		}
	case "count":
		// "Found 12 total occurrences across 3 files." closes the result.
		res := c.result()
		tail := res[max(0, len(res)-256):]
		if i := strings.LastIndex(tail, "Found "); i >= 0 {
			d.success = found(tail[i:])
		}
		c.forResultLines(func(line string, raw bool) {
			if _, ok := countPath(line, "", raw); ok {
				d.total++
			}
		})
		d.firstPaths(c, cwd, countPath)
	default: // files_with_matches
		d.success = found(head(c))
		if n := leadingDigits(d.success); n != "" {
			d.total, _ = strconv.Atoi(n)
			d.firstPaths(c, cwd, filePath)
		}
	}
}

// matchPath is the path of a content-mode match line "path:12:text", raw
// when the line is still JSON-escaped. Context lines ("path-12-text"),
// separators and the lines of a search in one file ("12:text", no path)
// have none; prev, the path of the match line before, tells a context line
// whose text holds ":12:" ("path-11-a:12:b"). A path with a blank in it
// is not told from text, and is not read.
func matchPath(line, prev string, raw bool) (string, bool) {
	from := 0
	if len(line) > 2 && line[1] == ':' && (line[2] == '/' || line[2] == '\\') && isAlnum(line[0]) {
		from = 2 // a drive letter
	}
	i := strings.IndexByte(line[from:], ':')
	if i <= 0 {
		return "", false
	}
	i += from
	rest := line[i+1:]
	n := leadingDigits(rest)
	if n == "" || !strings.HasPrefix(rest[len(n):], ":") {
		return "", false
	}
	p := line[:i]
	if leadingDigits(p) == p {
		return "", false // a line number, in a search of one file
	}
	if raw && strings.IndexByte(p, '\\') < 0 {
		// Still escaped, a tab would show as "\t".
		if strings.IndexByte(p, ' ') >= 0 {
			return "", false
		}
	} else if p = unescaped(p, raw); strings.IndexByte(p, ' ') >= 0 || strings.IndexByte(p, '\t') >= 0 {
		return "", false
	}
	if prev != "" && len(p) > len(prev) && p[len(prev)] == '-' && strings.HasPrefix(p, prev) {
		rest := p[len(prev)+1:]
		if n := leadingDigits(rest); n != "" && strings.HasPrefix(rest[len(n):], "-") {
			return "", false
		}
	}
	return p, true
}

// countPath is the path of a count-mode line "path:12", raw when the line
// is still JSON-escaped.
func countPath(line, _ string, raw bool) (string, bool) {
	i := strings.LastIndexByte(line, ':')
	if i <= 0 || i == len(line)-1 || leadingDigits(line[i+1:]) != line[i+1:] {
		return "", false
	}
	return unescaped(line[:i], raw), true
}

// filePath is the path of a files_with_matches or Glob line, raw when the
// line is still JSON-escaped: any line but the "Found N files" header and
// notes.
func filePath(line, _ string, raw bool) (string, bool) {
	if strings.HasPrefix(line, "Found ") || strings.HasPrefix(line, "[Showing results") ||
		strings.HasPrefix(line, "(Results are truncated") {
		return "", false
	}
	return unescaped(line, raw), true
}

// unescaped is s decoded when raw and holding an escape.
func unescaped(s string, raw bool) string {
	if raw && strings.IndexByte(s, '\\') >= 0 {
		return jsonscan.Decode([]byte(s))
	}
	return s
}

// pathLines bounds the lines of a result read for the paths it names.
const pathLines = 200

// firstPaths fills d.paths with the first distinct paths parse finds in
// the first pathLines lines of c's result, at most d.total, read as
// scanLines reads them (stripped of private text: a path's line may sit
// inside a private block). parse is handed the path of the line before
// that had one.
func (d *description) firstPaths(c *Call, cwd string, parse func(line, prev string, raw bool) (string, bool)) {
	want := min(d.total, maxPaths)
	d.npaths = 0
	if want == 0 {
		return
	}
	prev := ""
	reset := func() { d.npaths, prev = 0, "" }
	c.scanLines(pathLines, reset, func(line string, raw bool) bool {
		p, ok := parse(line, prev, raw)
		if !ok {
			return false
		}
		prev = p
		if s := showPath(p, cwd); s != "" && !slices.Contains(d.paths[:d.npaths], s) {
			d.paths[d.npaths] = s
			d.npaths++
		}
		return d.npaths == want
	})
}

// found reads a tool's own summary line "Found 16 files" or "Found 7
// references across 3 files:" as "16 files", "7 references across 3
// files".
func found(s string) string {
	rest, ok := strings.CutPrefix(firstLine(s), "Found ")
	if !ok || leadingDigits(rest) == "" {
		return ""
	}
	return clean(strings.TrimRight(rest, ".: "), 48)
}

func describeGlob(c *Call, cwd string, ok bool) description {
	var in struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	decodeInput(c, &in)
	scope := showPath(in.Path, cwd)
	salient := func(pattern string, drop bool) string {
		if scope != "" && scope != "." && !drop {
			pattern += " in " + scope
		}
		return pattern
	}
	d := description{salient: salient(clean(in.Pattern, 60), false), scope: scope}
	d.compact = func(drop bool) string { return salient(clean(in.Pattern, compactPattern), drop) }
	if ok {
		switch {
		case c.headHasPrefix(512, "No files found"):
			d.success = "no files"
		case c.headHasPrefix(512, PersistedTag):
			d.success = persistedCount(c)
		default:
			n, truncated := 0, false
			c.forResultLines(func(line string, _ bool) {
				if strings.HasPrefix(line, "(Results are truncated") {
					truncated = true
				} else {
					n++
				}
			})
			d.success = plural(n, "file")
			if truncated {
				d.success += ", truncated"
			}
			d.total = n
			d.firstPaths(c, cwd, filePath)
		}
	}
	return d
}

// compactPattern is the runes of a search pattern a compact salient part
// keeps.
const compactPattern = 24

// under reports whether every one of paths (at least one) lies in the
// folder dir, as showPath shows both.
func under(paths []string, dir string) bool {
	if len(paths) == 0 || dir == "" || dir == "." {
		return false
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, dir) || !strings.HasPrefix(p[len(dir):], "/") && !strings.HasSuffix(dir, "/") {
			return false
		}
	}
	return true
}

// forLines calls f with each non-blank line of s, trimmed.
func forLines(s string, f func(string)) {
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = strings.TrimSpace(line); line != "" {
			f(line)
		}
	}
}

// Agents and tasks.

func describeTask(c *Call, cwd string, ok bool) description {
	var in struct {
		Description  string `json:"description"`
		Prompt       string `json:"prompt"`
		SubagentType string `json:"subagent_type"`
	}
	decodeInput(c, &in)
	sal := clean(in.Description, 80)
	if sal == "" {
		sal = clean(firstLine(privacy.Strip(in.Prompt)), 80)
	}
	if t := clean(in.SubagentType, 32); t != "" && t != "general-purpose" {
		sal += " (" + t + ")"
	}
	d := description{salient: strings.TrimSpace(sal)}
	if ok {
		if c.headContains(512, "Async agent launched") ||
			bytes.Contains(c.Structured, []byte(`"async_launched"`)) {
			d.success = "launched in background"
		} else {
			d.success = "agent finished"
			d.detail = func(room int) string { return citedFiles(c, cwd, room) }
		}
	}
	return d
}

func describeTaskCreate(c *Call, _ string, ok bool) description {
	var in struct {
		Subject string `json:"subject"`
	}
	decodeInput(c, &in)
	d := description{salient: clean(in.Subject, salientMax)}
	if ok {
		// "Task #3 created successfully: …"
		if rest, found := strings.CutPrefix(head(c), "Task #"); found {
			if n := leadingDigits(rest); n != "" {
				d.success = "task #" + n
			}
		}
	}
	return d
}

func describeTaskUpdate(c *Call, _ string, _ bool) description {
	var in struct {
		TaskID       json.RawMessage `json:"taskId"`
		Status       string          `json:"status"`
		Subject      json.RawMessage `json:"subject"`
		Description  json.RawMessage `json:"description"`
		Owner        json.RawMessage `json:"owner"`
		AddBlockedBy json.RawMessage `json:"addBlockedBy"`
		AddBlocks    json.RawMessage `json:"addBlocks"`
	}
	decodeInput(c, &in)
	sal := taskID(in.TaskID)
	var parts []string
	if s := clean(in.Status, 20); s != "" {
		parts = append(parts, "→ "+s)
	}
	for _, f := range [...]struct {
		raw  json.RawMessage
		name string
	}{{in.Subject, "subject"}, {in.Description, "description"}, {in.Owner, "owner"},
		{in.AddBlockedBy, "blockedBy"}, {in.AddBlocks, "blocks"}} {
		if len(f.raw) > 0 {
			parts = append(parts, f.name)
		}
	}
	if len(parts) > 0 {
		sal = strings.TrimSpace(sal + " " + strings.Join(parts, ", "))
	}
	return description{salient: sal}
}

func describeTaskGet(c *Call, _ string, _ bool) description {
	var in struct {
		TaskID json.RawMessage `json:"taskId"`
	}
	decodeInput(c, &in)
	return description{salient: taskID(in.TaskID)}
}

// taskID shows a task id, given as a string or a number, as "#3".
func taskID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return ""
		}
		s = n.String()
	}
	if s = clean(s, 24); s != "" {
		return "#" + s
	}
	return ""
}

func describeTaskList(c *Call, _ string, ok bool) description {
	var d description
	if ok {
		if c.headHasPrefix(512, "No tasks") {
			d.success = "no tasks"
		} else {
			n := 0
			c.forResultLines(func(line string, _ bool) {
				if strings.HasPrefix(line, "#") {
					n++
				}
			})
			d.success = plural(n, "task")
		}
	}
	return d
}

// describeSendMessage names a message to a teammate, the lead or another
// agent: its recipient and its subject (the summary given, else the
// message's first line, else a protocol message's type).
func describeSendMessage(c *Call, _ string, _ bool) description {
	var in struct {
		To      string          `json:"to"`
		Summary string          `json:"summary"`
		Message json.RawMessage `json:"message"`
	}
	decodeInput(c, &in)
	subject := clean(in.Summary, 80)
	if subject == "" {
		var text string
		var proto struct {
			Type string `json:"type"`
		}
		switch {
		case json.Unmarshal(in.Message, &text) == nil:
			subject = clean(firstLine(privacy.Strip(text)), 80)
		case json.Unmarshal(in.Message, &proto) == nil:
			subject = clean(strings.ReplaceAll(proto.Type, "_", " "), 40)
		}
	}
	sal := ""
	if to := clean(in.To, 40); to != "" {
		sal = "to " + to
	}
	if subject != "" {
		if sal != "" {
			sal += ": "
		}
		sal += subject
	}
	return description{salient: sal}
}

// describeTeamCreate names the team an agent team's lead creates.
func describeTeamCreate(c *Call, _ string, _ bool) description {
	var in struct {
		TeamName    string `json:"team_name"`
		Description string `json:"description"`
	}
	decodeInput(c, &in)
	sal := clean(in.TeamName, 40)
	if d := clean(firstLine(privacy.Strip(in.Description)), 80); d != "" {
		if sal == "" {
			sal = d
		} else {
			sal += " (" + d + ")"
		}
	}
	return description{salient: sal}
}

func describeTodoWrite(c *Call, _ string, _ bool) description {
	var in struct {
		Todos []struct {
			Content    string `json:"content"`
			Status     string `json:"status"`
			ActiveForm string `json:"activeForm"`
		} `json:"todos"`
	}
	decodeInput(c, &in)
	done, now := 0, ""
	for _, t := range in.Todos {
		switch t.Status {
		case "completed":
			done++
		case "in_progress":
			if now == "" {
				now = firstNonEmpty(clean(t.ActiveForm, salientMax), clean(t.Content, salientMax))
			}
		}
	}
	sal := plural(len(in.Todos), "todo") + ", " + strconv.Itoa(done) + " done"
	if now != "" {
		sal += ", now: " + now
	}
	return description{salient: sal}
}

// The web.

func describeWebFetch(c *Call, _ string, _ bool) description {
	var in struct {
		URL string `json:"url"`
	}
	decodeInput(c, &in)
	return description{salient: showURL(in.URL)}
}

// showURL is a URL's host and path: no scheme, credentials, query or
// fragment, which is where tokens live.
func showURL(raw string) string {
	raw = strings.TrimSpace(privacy.Strip(raw))
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return clean(u.Host+strings.TrimSuffix(u.Path, "/"), salientMax)
	}
	raw, _, _ = strings.Cut(raw, "?")
	raw, _, _ = strings.Cut(raw, "#")
	return clean(raw, salientMax)
}

func describeWebSearch(c *Call, _ string, _ bool) description {
	var in struct {
		Query string `json:"query"`
	}
	decodeInput(c, &in)
	return description{salient: quoted(clean(in.Query, salientMax-2))}
}

// Claude Code itself.

func describeSkill(c *Call, _ string, _ bool) description {
	var in struct {
		Skill string `json:"skill"`
		Args  string `json:"args"`
	}
	decodeInput(c, &in)
	sal := clean(in.Skill, 60)
	if a := clean(firstLine(privacy.Strip(in.Args)), 60); a != "" {
		sal = strings.TrimSpace(sal + " " + a)
	}
	return description{salient: sal}
}

func describeSlashCommand(c *Call, _ string, _ bool) description {
	var in struct {
		Command string `json:"command"`
	}
	decodeInput(c, &in)
	return description{salient: clean(in.Command, salientMax)}
}

func describeExitPlanMode(c *Call, _ string, ok bool) description {
	var in struct {
		Plan string `json:"plan"`
	}
	decodeInput(c, &in)
	title := strings.TrimSpace(strings.TrimLeft(firstLine(privacy.Strip(in.Plan)), "#"))
	d := description{salient: clean(title, salientMax)}
	if ok && c.headHasPrefix(512, "User has approved") {
		d.success = "approved"
	}
	return d
}

// question is one question of an AskUserQuestion call.
type question struct {
	Question string `json:"question"`
	Header   string `json:"header"`
}

func describeAskUserQuestion(c *Call, _ string, ok bool) description {
	var in struct {
		Questions []question `json:"questions"`
	}
	decodeInput(c, &in)
	var d description
	if len(in.Questions) > 0 {
		q := in.Questions[0]
		d.salient = firstNonEmpty(clean(q.Question, salientMax), clean(q.Header, salientMax))
		if len(in.Questions) > 1 {
			d.salient = bound(d.salient, salientMax-10) + " (+" + strconv.Itoa(len(in.Questions)-1) + " more)"
		}
	}
	if ok && strings.Contains(prefix(head(c), 80), "answered") {
		d.success = "answered"
		if a := answers(c, in.Questions); a != "" {
			d.success, d.userWords = d.success+": "+a, true
		}
	}
	return d
}

// answersScan bounds the bytes of an AskUserQuestion result read for the
// answers.
const answersScan = 8 << 10

// answers is the digest's form of the user's answers in an AskUserQuestion
// result (parseAnswers, read from the result stripped of private text):
// the answer alone for one question, "<header>: <answer>" joined by " · "
// for several; "" when the result does not hold every question as asked.
// The answers are the user's words: the line gives them what room it has
// (the turn shows them whole, see [Answers]).
func answers(c *Call, qs []question) string {
	res, _ := c.strippedHead(answersScan)
	as := parseAnswers(res, qs)
	if as == nil {
		return ""
	}
	parts := make([]string, len(as))
	for k, a := range as {
		parts[k] = clean(a, salientMax)
		if len(qs) > 1 {
			parts[k] = answerLabel(qs[k], k) + ": " + parts[k]
		}
	}
	return strings.Join(parts, " · ")
}

// answerLabel names q, question k, in a digest line: its header, else its
// number.
func answerLabel(q question, k int) string {
	if label := clean(q.Header, 24); label != "" {
		return label
	}
	return "#" + strconv.Itoa(k+1)
}

// Answers returns the user's answers to an AskUserQuestion call as they
// wrote them, from its input and its result: a "<header>: <answer>"
// paragraph each (the question where it has no header), but for answers
// that are private text alone; "" when the result, stripped of private
// text, is not the answers to those questions. Only the result is
// stripped: strip the text before use, as every transcript event's.
func Answers(input json.RawMessage, result string) string {
	var in struct {
		Questions []question `json:"questions"`
	}
	if json.Unmarshal(input, &in) != nil || !strings.Contains(prefix(result, 80), "answered") {
		return ""
	}
	// Stripped before it is cut into answers: a private block may span two.
	as := parseAnswers(privacy.Strip(prefix(result, answersScan)), in.Questions)
	if as == nil {
		return ""
	}
	parts := make([]string, 0, len(as))
	for k, a := range as {
		if strings.TrimSpace(a) == "" {
			continue // private text alone
		}
		label := strings.TrimSpace(in.Questions[k].Header)
		if label == "" {
			label = strings.TrimSpace(in.Questions[k].Question)
		}
		parts = append(parts, label+": "+a)
	}
	return strings.Join(parts, "\n\n")
}

// parseAnswers reads the answers to qs, in order, from Claude Code's
// AskUserQuestion result `…: "<question>"="<answer>", "<question>"=
// "<answer>". You can now continue…`, each found by its question as
// asked; nil unless every question has one.
func parseAnswers(res string, qs []question) []string {
	if len(qs) == 0 {
		return nil
	}
	as := make([]string, 0, len(qs))
	pos := 0
	for k, q := range qs {
		key := `"` + q.Question + `"="`
		i := strings.Index(res[pos:], key)
		if q.Question == "" || i < 0 {
			return nil
		}
		start := pos + i + len(key)
		var j int
		if k+1 < len(qs) {
			j = strings.Index(res[start:], `", "`+qs[k+1].Question+`"="`)
		} else if j = strings.LastIndex(res[start:], `". `); j < 0 {
			j = strings.LastIndex(res[start:], `"`)
		}
		if j < 0 {
			return nil
		}
		as = append(as, res[start:start+j])
		pos = start + j
	}
	return as
}

func describeLSP(c *Call, cwd string, ok bool) description {
	var in struct {
		Operation string `json:"operation"`
		FilePath  string `json:"filePath"`
		Line      int64  `json:"line"`
	}
	decodeInput(c, &in)
	sal := showPath(in.FilePath, cwd)
	if sal != "" && in.Line > 0 {
		sal += ":" + strconv.FormatInt(in.Line, 10)
	}
	if op := clean(in.Operation, 32); op != "" {
		sal = strings.TrimSpace(op + " " + sal)
	}
	d := description{salient: sal}
	if ok {
		d.success = found(head(c))
	}
	return d
}

func describeMcpResources(c *Call, _ string, _ bool) description {
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	decodeInput(c, &in)
	sal := clean(in.Server, 40)
	if u := clean(in.URI, 80); u != "" {
		sal = strings.TrimSpace(sal + " " + u)
	}
	return description{salient: sal}
}

// Anything else.

// preferred ranks the input fields describeGeneric shows, best first; a
// field not listed ranks below all of them, and among those the first in
// the input wins.
var preferred = [...]string{
	"file_path", "notebook_path", "filePath", "path", "url", "uri", "command",
	"query", "pattern", "skill", "subject", "title", "name", "description",
	"id", "issue_id", "identifier",
}

// isPathKey reports whether a field names a path to show relative to cwd.
func isPathKey(k string) bool {
	return k == "file_path" || k == "notebook_path" || k == "filePath" || k == "path"
}

// describeGeneric covers MCP and unknown tools: it shows the best-ranked
// string field of the input, preferring short strings over long texts.
func describeGeneric(c *Call, cwd string, _ bool) description {
	dec := json.NewDecoder(bytes.NewReader(c.Input))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return description{}
	}
	const short = 400 // bytes; longer strings are texts, shown only as a last resort
	var best, bestKey, long string
	bestRank := len(preferred) + 1
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			break
		}
		if len(raw) == 0 || raw[0] != '"' {
			continue
		}
		rank := len(preferred)
		for i, p := range preferred {
			if key == p {
				rank = i
				break
			}
		}
		if rank >= bestRank {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
			continue
		}
		if len(s) > short && rank == len(preferred) {
			if long == "" {
				long = s
			}
			continue
		}
		best, bestKey, bestRank = s, key, rank
	}
	switch {
	case best == "":
		return description{salient: clean(firstLine(privacy.Strip(long)), salientMax)}
	case isPathKey(bestKey):
		return description{salient: showPath(best, cwd)}
	case bestKey == "url" || bestKey == "uri":
		return description{salient: showURL(best)}
	}
	return description{salient: clean(best, salientMax)}
}

// Helpers.

// showPath is a path for display: stripped, relative to cwd when inside it,
// and cut from the left when long so the file name stays.
func showPath(p, cwd string) string {
	p = Rel(privacy.Strip(p), cwd)
	return boundTail(flatten(prefix(p, 4096)), pathMax)
}

// Rel makes p relative to cwd when p is cwd or inside it, as digests show
// paths. Either may use '/' or '\' separators; a cwd with a drive letter
// compares case-insensitively.
func Rel(p, cwd string) string {
	dir := trimSeparators(cwd)
	if dir == "" || len(p) < len(dir) {
		return p
	}
	// Most paths spell cwd as cwd does; others may differ in separators
	// and, with a drive letter, in case.
	if !strings.HasPrefix(p, dir) {
		windows := len(dir) >= 2 && dir[1] == ':'
		for i := 0; i < len(dir); i++ {
			a, b := p[i], dir[i]
			if a == '\\' {
				a = '/'
			}
			if b == '\\' {
				b = '/'
			}
			if windows {
				a, b = lowerASCII(a), lowerASCII(b)
			}
			if a != b {
				return p
			}
		}
	}
	rest := p[len(dir):]
	if rest != "" && rest[0] != '/' && rest[0] != '\\' {
		return p
	}
	if rest = strings.TrimLeft(rest, `/\`); rest == "" {
		return "."
	}
	return rest
}

// trimSeparators is dir without its trailing slashes and backslashes.
func trimSeparators(dir string) string {
	for dir != "" && (dir[len(dir)-1] == '/' || dir[len(dir)-1] == '\\') {
		dir = dir[:len(dir)-1]
	}
	return dir
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return `"` + s + `"`
}

func lowerFirst(s string) string {
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
