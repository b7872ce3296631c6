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

// Line is one tool call's digest as a value: its parts, which the forms of
// the line put together ([Line.Full], [Line.Pending], [Line.Short],
// [Line.Key]). Every part is stripped, flat and bounded. The salient part
// is Subject, then ":"+Range, " in "+Scope and Note, each when set; a
// salient part that had to be cut to fit the line is all Subject (the cut
// left no parts to tell apart).
type Line struct {
	// Tool is the display name: "Read", "github/create_issue".
	Tool    string
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
	// Status is the part of Outcome a short form keeps when it is not all
	// of it: the exit code of a failed command ("exit 1").
	Status string
	// Paths are the matched paths the line names after its outcome, and
	// More how many it leaves out ("+N more").
	Paths []string
	More  int
	// Detail is what the full form may add where a bottle has room, ""
	// for most calls: the code names an edit changed (" — names: Retry,
	// fetch.Do") or the files an agent's report or a command's output
	// cites ("; files: a.go, b.go"). Full()+Detail is one line of at most
	// [MaxRunes] runes.
	Detail string

	full    string // the full form, once put together
	pending string // the pending form, once put together
	Kind    Kind
	max     uint16 // the bound of the full form, in runes (0: MaxRunes)
}

// Named is the line of a call known by its tool's name alone (its digest
// was not worked out): every form is the name.
func Named(name string) Line {
	return Line{Tool: name, full: name, pending: name}
}

// Max is the bound of the line's full form, in runes: [MaxPathListRunes]
// for a line that names matched paths, else [MaxRunes].
func (l *Line) Max() int {
	if l.max == 0 {
		return MaxRunes
	}
	return int(l.max)
}

// Salient is the salient part as the full form shows it.
func (l *Line) Salient() string {
	return compose(l.Subject, l.Range, l.Scope, l.Note)
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
func (l *Line) Full() string {
	if l.full != "" || l.Tool == "" {
		return l.full
	}
	return l.assemble()
}

// assemble puts the full form together from the parts.
func (l *Line) assemble() string {
	s := join(l.Tool, ": ", l.Salient(), l.Outcome)
	if len(l.Paths) == 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s)
	for i, p := range l.Paths {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(p)
	}
	if l.More > 0 {
		b.WriteString(", +")
		b.WriteString(strconv.Itoa(l.More))
		b.WriteString(" more")
	}
	return bound(b.String(), l.Max())
}

// WithDetail is the full form and the detail, one line of at most
// [MaxRunes] runes (but for lines naming paths, which have no detail).
func (l *Line) WithDetail() string {
	if l.Detail == "" {
		return l.Full()
	}
	return l.Full() + l.Detail
}

// Pending is the form of a call newer than the claude-mem observations, or
// of a call in a folded turn: "<Tool> — <salient input>", the salient part
// as the input gives it (a Read's asked range, not the lines it returned).
func (l *Line) Pending() string {
	if l.pending != "" || l.Tool == "" {
		return l.pending
	}
	return bound(join(l.Tool, " — ", l.Salient(), ""), MaxRunes)
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
	if l.Kind == KindPath && l.Subject != "" {
		return "path " + l.Subject
	}
	head, _ := l.shortParts(Short)
	return head
}

// shortParts is a short form in two: "<Tool>: <salient>" and the outcome
// (" — exit 1", or "").
func (l *Line) shortParts(level ShortLevel) (head, outcome string) {
	if l.Subject == "" && l.Range == "" && l.Scope == "" && l.Note == "" {
		return bound(l.Full(), shortNoSalient), ""
	}
	limit := ShortRunes + 1
	if level >= Shortest {
		limit = ShortestRunes
	}
	out := l.Outcome
	if l.Status != "" {
		out = l.Status
	}
	var salient string
	switch l.Kind {
	case KindPath:
		rng := l.Range
		if firstLines(rng) {
			rng = ""
		}
		loc := l.Subject
		if rng != "" {
			loc += ":" + rng
		}
		salient = shortPath(loc, level) + l.Note
		if rng != "" && rangeCounted(rng, l.Outcome) {
			out = ""
		}
	case KindPattern:
		salient = l.Salient()
		if l.Scope != "" && runeLen(salient) > limit {
			salient = l.Subject + l.Note
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
	return l.Tool + ": " + salient, outcome
}

// shortPath shortens a path: to its last ShortPathRunes runes from a
// separator on, "…/" before them, and at the shortest level to its last
// element.
func shortPath(p string, level ShortLevel) string {
	if level >= Shortest {
		return p[strings.LastIndex(p, "/")+1:]
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

// Own replaces every text of the line by own(text): a caller whose buffer
// a text may point into (a result decoded in place) copies it out.
func (l *Line) Own(own func(string) string) {
	for _, s := range []*string{&l.Tool, &l.Subject, &l.Range, &l.Scope, &l.Note, &l.Outcome, &l.Status, &l.Detail, &l.full, &l.pending} {
		*s = own(*s)
	}
	for i := range l.Paths {
		l.Paths[i] = own(l.Paths[i])
	}
}

// detach makes the line's parts its own: they may be pieces of the call's
// input or result, which the caller reuses or unmaps. The full form holds
// them all in a line of its own making, so they become pieces of it; a
// line whose full form was cut to its bound copies them into one string.
func (l *Line) detach() {
	if !l.partsOfFull() {
		l.copyParts()
	}
}

// partsOfFull points the parts into the full form, which shows them in
// order (assemble), and reports whether it does: else it changes nothing.
func (l *Line) partsOfFull() bool {
	f, at := l.full, 0
	var got [8]string
	n, ok := 0, true
	take := func(prefix, part string) {
		if !ok || part == "" {
			return
		}
		end := at + len(prefix) + len(part)
		if end > len(f) || f[at:at+len(prefix)] != prefix || f[at+len(prefix):end] != part {
			ok = false
			return
		}
		got[n], n, at = f[at+len(prefix):end], n+1, end
	}
	take("", l.Tool)
	if l.Subject != "" || l.Range != "" || l.Scope != "" || l.Note != "" {
		take(": ", l.Subject)
		if l.Subject == "" {
			at += len(": ")
		}
		take(":", l.Range)
		take(" in ", l.Scope)
		take("", l.Note)
	}
	take(" — ", l.Outcome)
	if !ok || !strings.HasPrefix(l.Outcome, l.Status) {
		return false
	}
	pathsAt := at
	for i, p := range l.Paths {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		end := at + len(sep) + len(p)
		if end > len(f) || f[at:at+len(sep)] != sep || f[at+len(sep):end] != p {
			return false
		}
		at = end
	}
	// Every part matched: point them in.
	n = 0
	for _, s := range [...]*string{&l.Tool, &l.Subject, &l.Range, &l.Scope, &l.Note, &l.Outcome} {
		if *s != "" {
			*s, n = got[n], n+1
		}
	}
	l.Status = l.Outcome[:len(l.Status)]
	at = pathsAt
	for i := range l.Paths {
		at += len(", ")
		l.Paths[i], at = f[at:at+len(l.Paths[i])], at+len(l.Paths[i])
	}
	return true
}

// copyParts copies the parts into one string.
func (l *Line) copyParts() {
	parts := [...]*string{&l.Tool, &l.Subject, &l.Range, &l.Scope, &l.Note, &l.Outcome, &l.Status}
	n := 0
	for _, s := range parts {
		n += len(*s)
	}
	for _, p := range l.Paths {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range parts {
		b.WriteString(*s)
	}
	for _, p := range l.Paths {
		b.WriteString(p)
	}
	all, at := b.String(), 0
	take := func(s *string) {
		*s, at = all[at:at+len(*s)], at+len(*s)
	}
	for _, s := range parts {
		take(s)
	}
	for i := range l.Paths {
		take(&l.Paths[i])
	}
}
