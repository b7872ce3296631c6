package digest

import (
	"strconv"
	"strings"
)

// Kind is what the salient part of a [Line] is: it decides how a short
// form cuts it.
type Kind uint8

// The kinds of a salient part.
const (
	// KindText is free text (a description, a question, a URL, a tool's
	// own wording); a short form keeps its start.
	KindText Kind = iota
	// KindPath is a file path (Subject), a line range and a note after it
	// ("render/bottle.go:120-180", "a.go (replace all)"); a short form
	// keeps the path's end, its file name.
	KindPath
	// KindCommand is a shell command; a short form keeps its start, what a
	// later step may run again.
	KindCommand
	// KindPattern is a search pattern (Subject) in a folder (Scope) with a
	// filter (Note); a short form leaves the folder out before it cuts the
	// pattern.
	KindPattern
)

// Parts are the parts of a tool call's digest, from which [Parts.Line]
// puts its line together. Every part is stripped, flat and bounded. The
// salient part is Subject, then ":"+Range, " in "+Scope and Note, each
// when set; a salient part that had to be cut to fit the line is all
// Subject (the cut left no parts to tell apart).
type Parts struct {
	// Tool is the display name: "Read", "github/create_issue".
	Tool    string
	Kind    Kind
	Subject string
	// Range is a path's line range: "120-180", "14", "40-".
	Range string
	// Scope is the folder a search looked in, when the line shows it.
	Scope string
	// Note follows the rest of the salient part as the line shows it:
	// " (12 lines)", " pages 3", " (*.go)".
	Note string
	// Outcome is what the result says ("61 lines", "exit 1: a.go:3: …",
	// "rejected"); "" when it says nothing.
	Outcome string
	// Status is the start of Outcome a short form keeps when it is not all
	// of it: the exit code of a failed command ("exit 1").
	Status string
	// Paths are the matched paths the line names after its outcome (at
	// most maxPaths), and More how many it leaves out ("+N more").
	Paths []string
	More  int
	// Detail is what the full form may add where a bottle has room, ""
	// for most calls: the code names an edit changed (" — names: Retry,
	// fetch.Do") or the files an agent's report or a command's output
	// cites ("; files: a.go, b.go"). Full()+Detail is one line of at most
	// [MaxRunes] runes.
	Detail string
	// Pending is the salient part as the input gives it, for the pending
	// form ("" when it is the salient part the line shows).
	Pending string
	// Max bounds the full form, in runes (0: [MaxRunes]).
	Max int
}

// Line is one tool call's digest as a value: its full form, which shows
// every part in order, where in it each part lies, its detail and its
// pending form; its methods give the parts ([Line.Subject],
// [Line.Outcome], …) and the forms a bottle writes ([Line.Full],
// [Line.Pending], [Line.Short], [Line.Key]). It is small, one string and
// offsets into it, because a transcript holds one per tool call.
type Line struct {
	// text is the full form, then the detail, then the pending form.
	text         string
	full, detail uint16 // where the full form and the detail end in text
	// Where the parts lie in the full form.
	tool, subject, rng, scope, note, outcome piece
	pathsAt                                  uint16           // where the first matched path starts
	pathEnds                                 [maxPaths]uint16 // where each ends (the next starts after ", ")
	npaths                                   uint8
	kind                                     Kind
	status                                   uint16 // bytes of the outcome a short form keeps (0: all)
	more                                     int32
	max                                      uint16 // the bound of the full form, in runes (0: MaxRunes)
}

// piece is where a part lies in a line's full form: full[a:b].
type piece struct{ a, b uint16 }

// Line puts the line together: "<Tool>: <salient> — <outcome>: <paths>,
// +N more", each part when set, bounded to p.Max runes.
func (p Parts) Line() Line { return p.build(nil, nil) }

// build is Line with the detail of call c worked out from its description
// d and the full form's length (detailOf) when c is set, else p.Detail.
func (p Parts) build(c *Call, d *description) Line {
	// The sizes first, so that the text is allocated once, to its size.
	hasSalient := p.Subject != "" || p.Range != "" || p.Scope != "" || p.Note != ""
	salLen := 0
	if hasSalient {
		salLen = len(p.Subject) + len(p.Note)
		if p.Range != "" {
			salLen += len(":") + len(p.Range)
		}
		if p.Scope != "" {
			salLen += len(" in ") + len(p.Scope)
		}
	}
	paths := p.Paths[:min(len(p.Paths), maxPaths)]
	more := ""
	if len(paths) > 0 && p.More > 0 {
		more = strconv.Itoa(p.More)
	}
	fullLen, fullRunes := len(p.Tool), runeLen(p.Tool)
	if hasSalient {
		seps := salLen - len(p.Subject) - len(p.Range) - len(p.Scope) - len(p.Note) // ASCII
		fullLen += len(": ") + salLen
		fullRunes += len(": ") + seps + runeLen(p.Subject) + runeLen(p.Range) + runeLen(p.Scope) + runeLen(p.Note)
	}
	if p.Outcome != "" {
		fullLen, fullRunes = fullLen+len(" — ")+len(p.Outcome), fullRunes+runeLen(" — ")+runeLen(p.Outcome)
	}
	for _, q := range paths {
		fullLen, fullRunes = fullLen+len(", ")+len(q), fullRunes+len(", ")+runeLen(q)
	}
	if more != "" {
		n := len(", +") + len(more) + len(" more")
		fullLen, fullRunes = fullLen+n, fullRunes+n
	}
	lim := p.Max
	if lim == 0 {
		lim = MaxRunes
	}
	detail := p.Detail
	if c != nil {
		detail = detailOf(c, min(fullRunes, lim), d)
	}
	pendLen := len(p.Tool) + len(" — ") + max(len(p.Pending), salLen)
	var b strings.Builder
	b.Grow(fullLen + len(detail) + pendLen)
	l := Line{kind: p.Kind, more: int32(p.More)}
	if p.Max != 0 && p.Max != MaxRunes {
		l.max = uint16(p.Max)
	}
	put := func(prefix, part string) piece {
		b.WriteString(prefix)
		at := b.Len()
		b.WriteString(part)
		return piece{uint16(at), uint16(b.Len())}
	}
	l.tool = put("", p.Tool)
	if p.Subject != "" || p.Range != "" || p.Scope != "" || p.Note != "" {
		l.subject = put(": ", p.Subject)
		if p.Range != "" {
			l.rng = put(":", p.Range)
		}
		if p.Scope != "" {
			l.scope = put(" in ", p.Scope)
		}
		l.note = put("", p.Note)
	}
	if p.Outcome != "" {
		l.outcome = put(" — ", p.Outcome)
		if strings.HasPrefix(p.Outcome, p.Status) {
			l.status = uint16(len(p.Status))
		}
	}
	for i, q := range paths {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		at := put(sep, q)
		if i == 0 {
			l.pathsAt = at.a
		}
		l.pathEnds[i] = at.b
	}
	l.npaths = uint8(len(paths))
	if more != "" {
		b.WriteString(", +")
		b.WriteString(more)
		b.WriteString(" more")
	}
	full := b.String()
	if runeLen(full) > l.Max() {
		// A cut line: the parts past the cut are cut too.
		full = bound(full, l.Max())
		n := uint16(len(full))
		for _, s := range []*piece{&l.tool, &l.subject, &l.rng, &l.scope, &l.note, &l.outcome} {
			s.a, s.b = min(s.a, n), min(s.b, n)
		}
		for i := range l.pathEnds {
			l.pathEnds[i] = min(l.pathEnds[i], n)
		}
		l.pathsAt = min(l.pathsAt, n)
		b.Reset()
		b.WriteString(full)
	}
	l.full = uint16(len(full))
	sal := p.Pending
	if sal == "" {
		sal = full[l.subject.a:l.salientEnd()]
	}
	b.WriteString(detail)
	l.detail = uint16(b.Len())
	switch {
	case sal == "" && l.outcome.b == 0 && detail == "":
		// A line of its tool alone: one text for every form.
		l.text = full
		return l
	case runeLen(p.Tool)+runeLen(" — ")+runeLen(sal) <= MaxRunes:
		b.WriteString(p.Tool)
		if sal != "" {
			b.WriteString(" — ")
			b.WriteString(sal)
		}
	default:
		b.WriteString(bound(join(p.Tool, " — ", sal, ""), MaxRunes))
	}
	l.text = b.String()
	return l
}

// Named is the line of a call known by its tool's name alone (its digest
// was not worked out): every form is the name.
func Named(name string) Line {
	return Parts{Tool: name}.Line()
}

func (l *Line) part(s piece) string { return l.text[s.a:s.b] }

// Tool is the display name of the line's tool.
func (l *Line) Tool() string { return l.part(l.tool) }

// Kind is what the salient part is.
func (l *Line) Kind() Kind { return l.kind }

// Subject is the path, command, pattern or text the salient part opens with.
func (l *Line) Subject() string { return l.part(l.subject) }

// Range is a path's line range ("120-180"), or "".
func (l *Line) Range() string { return l.part(l.rng) }

// Scope is the folder a search looked in, when the line shows it.
func (l *Line) Scope() string { return l.part(l.scope) }

// Note is what follows the rest of the salient part (" (12 lines)").
func (l *Line) Note() string { return l.part(l.note) }

// Outcome is what the result says, "" when it says nothing.
func (l *Line) Outcome() string { return l.part(l.outcome) }

// Status is the start of the outcome a short form keeps ("exit 1"), the
// whole outcome when it keeps all of it.
func (l *Line) Status() string {
	if l.status == 0 {
		return l.Outcome()
	}
	return l.text[l.outcome.a : l.outcome.a+l.status]
}

// Paths are the matched paths the line names.
func (l *Line) Paths() []string {
	out := make([]string, l.npaths)
	at := l.pathsAt
	for i := range out {
		out[i] = l.text[at:l.pathEnds[i]]
		at = l.pathEnds[i] + uint16(len(", "))
	}
	return out
}

// More is how many matched paths the line leaves out.
func (l *Line) More() int { return int(l.more) }

// Detail is what the full form may add where a bottle has room, "" for
// most calls ([Parts].Detail).
func (l *Line) Detail() string { return l.text[l.full:l.detail] }

// Max is the bound of the line's full form, in runes: [MaxPathListRunes]
// for a line that may name matched paths, else [MaxRunes].
func (l *Line) Max() int {
	if l.max == 0 {
		return MaxRunes
	}
	return int(l.max)
}

// Salient is the salient part as the full form shows it.
func (l *Line) Salient() string { return l.text[l.subject.a:l.salientEnd()] }

func (l *Line) salientEnd() uint16 {
	return max(l.subject.b, l.rng.b, l.scope.b, l.note.b)
}

// compose is a salient part from its parts.
func compose(subject, rng, scope, note string) string {
	if rng == "" && scope == "" && note == "" {
		return subject
	}
	var b strings.Builder
	b.Grow(len(subject) + len(rng) + len(scope) + len(note) + 5)
	b.WriteString(subject)
	if rng != "" {
		b.WriteByte(':')
		b.WriteString(rng)
	}
	if scope != "" {
		b.WriteString(" in ")
		b.WriteString(scope)
	}
	b.WriteString(note)
	return b.String()
}

// Full is the line as a bottle shows it whole: "<Tool>: <salient> —
// <outcome>: <paths>, +N more", each part when set.
func (l *Line) Full() string { return l.text[:l.full] }

// WithDetail is the full form and the detail, one line of at most
// [MaxRunes] runes (but for lines naming paths, which have no detail).
func (l *Line) WithDetail() string { return l.text[:l.detail] }

// Pending is the form of a call newer than the claude-mem observations, or
// of a call in a folded turn: "<Tool> — <salient input>", the salient part
// as the input gives it (a Read's asked range, not the lines it returned).
func (l *Line) Pending() string {
	if int(l.detail) == len(l.text) {
		return l.text[:l.full]
	}
	return l.text[l.detail:]
}

// ShortLevel is how far a short form cuts a line: [Short] keeps a command
// or a text's first [ShortRunes] runes and a path's last [ShortPathRunes]
// from a separator on; [Shortest] a command's first [ShortestRunes] and a
// path's file name.
type ShortLevel int8

// The short levels, mildest first; 0 is the full form.
const (
	Short ShortLevel = 1 + iota
	Shortest
)

// The runes a short form keeps of a salient part.
const (
	ShortRunes     = 40
	ShortestRunes  = 28
	ShortPathRunes = 60
	// shortNoSalient bounds the short form of a line without a salient
	// part: its tool and outcome.
	shortNoSalient = 48
	// shortOutcome bounds a short form's outcome, its " — " included.
	shortOutcome = 32
)

// Short is the line shortened to level: "<Tool>: <short salient> —
// <outcome>", where the outcome keeps only its count or exit code, the
// paths a search matched and a plain "ok" go (a short line says only what
// went wrong), and so do a path's range from its first line (the count
// tells it) and an outcome that only counts the lines of the range kept.
// Level 0 is [Line.Full].
func (l *Line) Short(level ShortLevel) string {
	if level <= 0 {
		return l.Full()
	}
	head, outcome := l.shortParts(level)
	return head + outcome
}

// Key is what the shortest form cuts: a path (without its range), whoever's
// call, or the tool and the short salient part. Lines of one key show one
// thing again.
func (l *Line) Key() string {
	if l.kind == KindPath && l.subject.b > l.subject.a {
		return "path " + l.Subject()
	}
	head, _ := l.shortParts(Short)
	return head
}

// shortParts is a short form in two: "<Tool>: <salient>" and the outcome
// (" — exit 1", or "").
func (l *Line) shortParts(level ShortLevel) (head, outcome string) {
	if l.Salient() == "" {
		return bound(l.Full(), shortNoSalient), ""
	}
	limit := ShortRunes + 1
	if level >= Shortest {
		limit = ShortestRunes
	}
	out := l.Status()
	var salient string
	switch l.kind {
	case KindPath:
		rng := l.Range()
		if firstLines(rng) {
			rng = ""
		}
		loc := l.Subject()
		if rng != "" {
			loc += ":" + rng
		}
		salient = shortPath(loc, level) + l.Note()
		if rng != "" && rangeCounted(rng, l.Outcome()) {
			out = ""
		}
	case KindPattern:
		salient = l.Salient()
		if l.scope.b > l.scope.a && runeLen(salient) > limit {
			salient = l.Subject() + l.Note()
		}
		salient = bound(salient, limit)
	default:
		salient = bound(l.Salient(), limit)
	}
	if out == "ok" {
		out = ""
	}
	if out != "" {
		outcome = " " + bound("— "+out, shortOutcome)
	}
	return l.Tool() + ": " + salient, outcome
}

// shortPath shortens a path: to its last ShortPathRunes runes from a
// separator on, "…/" before them, and at the shortest level to its last
// element.
func shortPath(p string, level ShortLevel) string {
	if level >= Shortest {
		// A folder's path may end in "/"; the root has no last element.
		trimmed := strings.TrimRight(p, "/")
		if trimmed == "" {
			return p
		}
		return trimmed[strings.LastIndex(trimmed, "/")+1:]
	}
	n := runeLen(p)
	if n <= ShortPathRunes {
		return p
	}
	for i, c := range p {
		if c == '/' && n <= ShortPathRunes {
			return "…" + p[i:]
		}
		n--
	}
	return p[strings.LastIndex(p, "/")+1:]
}

// firstLines reports whether a range starts at the file's first line, "1"
// or "1-N": the count of lines tells as much.
func firstLines(rng string) bool {
	rest, ok := strings.CutPrefix(rng, "1")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	rest, ok = strings.CutPrefix(rest, "-")
	return ok && rest != "" && allDigits(rest)
}

// rangeCounted reports whether an outcome "N lines" only counts the lines
// of a range "a-b" (N = b-a+1).
func rangeCounted(rng, outcome string) bool {
	n, ok := strings.CutSuffix(outcome, " lines")
	if !ok {
		return false
	}
	from, to, ok := strings.Cut(rng, "-")
	if !ok {
		return false
	}
	a, errA := strconv.Atoi(from)
	b, errB := strconv.Atoi(to)
	c, errC := strconv.Atoi(n)
	return errA == nil && errB == nil && errC == nil && c == b-a+1
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Own replaces the line's texts by own(text): a caller whose buffer a
// text may point into (a result decoded in place) copies it out.
func (l *Line) Own(own func(string) string) { l.text = own(l.text) }
