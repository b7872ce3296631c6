package render

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"bottle/render/digest"
)

// fold is how far a turn is folded to fit the budget (docs/format.md,
// "The budget").
type fold int

const (
	foldNone     fold = iota
	foldReply         // the assistant's text as one line ([#aN]); the user's words stay
	foldMessages      // user and assistant text as one line each ([#uN], [#aN])
	foldAll           // and its activity as one line of its calls' short forms
	foldGroup         // merged with neighbouring grouped turns into one line of id ranges
)

// Budget limits: a bottle must fit one read of a file by the host's file
// tool (≤ 2,000 lines, ≤ 25,000 tokens); the default leaves headroom.
const (
	MaxLines = 1800
	// foldChars is how much of a folded message its line shows.
	foldChars = 100
)

// EstimateTokens is bottle's conservative token estimate: UTF-8 bytes / 3
// (code and CJK run near 3 bytes per token).
func EstimateTokens(n int) int { return (n + 2) / 3 }

func fits(size, lines, budget int) bool {
	return EstimateTokens(size) <= budget && lines <= MaxLines
}

// fitBudget renders b within budget tokens and MaxLines, folding the oldest
// turns first: their messages to one line each, then their activity lines
// to one line of the calls' short forms (writeFoldedItems), and last runs
// of turns to one line of bare id ranges (writeGroup). The header, the
// Original request, the last turn (the last prompt and the final assistant
// message) are never folded. It returns the markdown, how many turns it
// folded and, when the bottle is still over budget with every fold made, a
// note saying so, which it also adds to b.Notes (a reader would otherwise
// take the budget for met). budget <= 0 renders everything.
//
// The markdown is written first (most bottles fit as they are) and then
// once more only at the end: the folds on the way are measured (see
// measurer). serial writes the markdown on one goroutine.
func fitBudget(b *Bottle, loc *time.Location, budget int, serial bool) ([]byte, int, string) {
	if budget > 0 {
		preFoldLast(b, budget)
	}
	md := writeMarkdown(b, loc, serial)
	if budget <= 0 {
		return md, 0, ""
	}
	m := newMeasurer(b, loc)
	size, lines := len(md), bytes.Count(md, []byte("\n"))
	if shortenDigests(b, loc, size) {
		md = nil
		size, lines = m.total()
	}
	// Details give way before any turn folds.
	if _, dropped := dropDetails(b, size, func(size int) bool { return !fits(size, lines, budget) }, 0); dropped {
		m = newMeasurer(b, loc) // the spans measured so far hold them
		md = nil
		size, lines = m.total()
	}
	if fits(size, lines, budget) {
		if md == nil {
			md = writeMarkdown(b, loc, serial)
		}
		return md, 0, ""
	}
	// Candidates, oldest first: the preamble (-1), then every turn but the
	// last.
	var order []int
	if len(b.Preamble.MidTurn)+len(b.Preamble.Happened)+len(b.Preamble.Reply)+len(b.Preamble.Summaries) > 0 {
		order = append(order, -1)
	}
	for i := 0; i+1 < len(b.Turns); i++ {
		order = append(order, i)
	}
	folded := map[int]bool{}
	// Estimate with per-turn sizes, then measure the whole; time prefixes
	// can differ by a few bytes, so keep folding until it fits.
	// The assistant's replies fold first: the user's words are the
	// scarcest record of what was asked, and a reply is one expand away.
	for _, level := range []fold{foldReply, foldMessages, foldAll, foldGroup} {
		for _, i := range order {
			if fits(size, lines, budget) {
				break
			}
			t := m.turn(i)
			if level == foldGroup && t.N == 0 {
				continue // the preamble sits in the header; it cannot join a group
			}
			s0, l0 := m.estimate(i)
			prev := t.fold
			t.fold = level
			s1, l1 := m.estimate(i)
			if s1 >= s0 && l1 >= l0 {
				t.fold = prev
				continue
			}
			size, lines = size-s0+s1, lines-l0+l1
			folded[i] = true
		}
		size, lines = m.total()
		if fits(size, lines, budget) {
			return writeMarkdown(b, loc, serial), len(folded), ""
		}
	}
	// The estimates were short: group one more turn at a time.
	for _, i := range order {
		if fits(size, lines, budget) {
			break
		}
		t := m.turn(i)
		if t.N == 0 || t.fold == foldGroup {
			continue
		}
		t.fold = foldGroup
		folded[i] = true
		size, lines = m.total()
	}
	if !fits(size, lines, budget) && len(b.Turns) > 0 {
		size, lines = m.foldLast(budget)
	}
	note := ""
	if !fits(size, lines, budget) {
		note = overBudgetNote(size, lines, budget)
		b.Notes = append(b.Notes, note)
	}
	return writeMarkdown(b, loc, serial), len(folded), note
}

// preFoldLines is how many times the budget the lines of the last turn's
// activity may weigh before they are shortened: more than the ratio rule's
// shortest forms and packed lines can bring under it.
const preFoldLines = 8

// preFoldLast folds at once the oldest activity of a last turn whose lines
// alone weigh over preFoldLines budgets (an autonomous run of thousands of
// calls): the folds would fold it all the same (foldLast), after the ratio
// rule had shortened every one of its lines. The newest lines that weigh
// that much stay for the ratio rule and the folds; each is estimated, not
// written.
func preFoldLast(b *Bottle, budget int) {
	if len(b.Turns) == 0 {
		return
	}
	t := &b.Turns[len(b.Turns)-1]
	room := preFoldLines * 3 * budget // bytes, as EstimateTokens counts them
	for k := len(t.Happened) - 1; k >= 0; k-- {
		it := &t.Happened[k]
		if room -= 8 + len(it.ID) + min(it.textLen(), 4*toolLineMax); room < 0 {
			t.older = min(k+1, max(len(t.Happened)-keepNewest, 0))
			return
		}
	}
}

// keepNewest is how many of the last turn's newest activity lines never
// fold, what the session was doing when it stopped, and keepSaid how many
// of the messages the user typed in it.
const (
	keepNewest = 8
	keepSaid   = 3
)

// foldLast folds the last turn, the other turns folded as far as they go,
// until the bottle fits budget: its oldest activity to the lines a folded
// turn's takes (writeFoldedItems), all but its newest keepNewest lines
// when nothing less fits; if that is not enough, its text before the
// final message to one line; and then what the user typed in it but the
// newest keepSaid messages. Of the folded activity it gives back as many
// of the newest lines as then fit. Its prompt, the user's newest messages
// and its final message stay whole. It returns the bottle's size and
// lines.
func (m *measurer) foldLast(budget int) (int, int) {
	t := &m.b.Turns[len(m.b.Turns)-1]
	items := t.Happened
	// heads are where a line of activity starts (a shortened line and those
	// joined or packed to it are one), oldest first; folds cut only there.
	var heads []int
	for k := range items {
		if !items[k].joined && !items[k].packed {
			heads = append(heads, k)
		}
	}
	most := 0 // the most items that may fold: all but the lines kept
	if len(heads) > keepNewest {
		most = heads[len(heads)-keepNewest]
	}
	type stage struct {
		early bool
		said  int
	}
	var size, lines int
	done := stage{said: -1}
	for _, st := range []stage{{false, 0}, {true, 0}, {true, max(len(t.MidTurn)-keepSaid, 0)}} {
		if st.early = st.early && t.Final > 0; st == done {
			continue // nothing more to fold
		}
		done = st
		t.older, t.early, t.said = most, st.early, st.said
		if size, lines = m.total(); fits(size, lines, budget) {
			break
		}
	}
	if !fits(size, lines, budget) || t.older == 0 {
		return size, lines
	}
	// Give lines back, newest first, while their estimate fits; then
	// measure, and take back a few more while the whole is over.
	var line bytes.Buffer
	tf := &timeFmt{loc: m.loc}
	h := sort.SearchInts(heads, most) // heads[h] == most
	addSize, addLines := 0, 0
	for h > 0 {
		line.Reset()
		writeItems(&line, items[heads[h-1]:heads[h]], tf)
		s, l := addSize+line.Len(), addLines+bytes.Count(line.Bytes(), []byte("\n"))
		if !fits(size+s, lines+l, budget) {
			break
		}
		addSize, addLines = s, l
		h--
	}
	for k, step := h, 1; ; k, step = k+step, 2*step {
		k = min(k, sort.SearchInts(heads, most))
		t.older = heads[k]
		if size, lines = m.total(); fits(size, lines, budget) || heads[k] == most {
			return size, lines
		}
	}
}

// overBudgetNote says which limits a bottle of size bytes and lines
// exceeds with every fold made. The note itself adds a little to the
// bottle, hence "about".
func overBudgetNote(size, lines, budget int) string {
	var over []string
	if tokens := EstimateTokens(size); tokens > budget {
		over = append(over, fmt.Sprintf("about %d estimated tokens against a budget of %d", tokens, budget))
	}
	if lines > MaxLines {
		over = append(over, fmt.Sprintf("about %d lines against at most %d", lines, MaxLines))
	}
	return "over budget: the bottle stays at " + strings.Join(over, " and ") +
		" with every earlier turn folded (the header, the original request, the last prompt, its newest activity and the final assistant message never fold)"
}

// span is what a stretch of markdown (the header, a turn, a run of grouped
// turns) costs, found by writing it once: its size without the dates its
// times print, its lines, and the days of the times it prints. Whether a
// time is printed with its date depends only on the day printed before it,
// so the stretch's size after any day follows without writing it again.
type span struct {
	size, lines int
	first, last string // days of the first and last time printed; "" for none
	changes     int    // day changes from first to last
}

// after is the span's size when day is the last day printed before it, and
// the last day printed after it.
func (s span) after(day string) (int, string) {
	n := s.size + s.changes*dateExtra
	if s.first == "" {
		return n, day
	}
	if s.first != day {
		n += dateExtra
	}
	return n, s.last
}

// unitKey names a stretch of b's markdown as it is under the current folds:
// turns [i, j) as one unit at fold f; i is -1 for the preamble written as a
// turn (for estimates) and -2 for the header.
type unitKey struct {
	i, j  int
	f     fold
	older int  // Turn.older
	early bool // Turn.early
	said  int  // Turn.said
}

// measurer gives the size and lines of markdown(b, loc) without writing
// it. Every stretch is written once (into scratch) by the writer itself and
// kept as a span, so the text of b must not change while it is in use;
// folds only select other spans.
type measurer struct {
	b       *Bottle
	loc     *time.Location
	start   string // the day the turns' time formatter starts with
	spans   map[unitKey]span
	scratch bytes.Buffer
}

func newMeasurer(b *Bottle, loc *time.Location) *measurer {
	return &measurer{b: b, loc: loc, start: newTimeFmt(b, loc).last, spans: map[unitKey]span{}}
}

// turn is candidate i: b.Turns[i], or the preamble for -1.
func (m *measurer) turn(i int) *Turn {
	if i < 0 {
		return &m.b.Preamble
	}
	return &m.b.Turns[i]
}

// span measures the stretch k, written by write.
func (m *measurer) span(k unitKey, write func(w *bytes.Buffer, tf *timeFmt)) span {
	if s, ok := m.spans[k]; ok {
		return s
	}
	m.scratch.Reset()
	tf := &timeFmt{loc: m.loc}
	write(&m.scratch, tf)
	s := span{size: m.scratch.Len() - tf.dated*dateExtra, lines: bytes.Count(m.scratch.Bytes(), []byte("\n")),
		first: tf.first, last: tf.last, changes: max(tf.dated-1, 0)}
	m.spans[k] = s
	return s
}

// estimate is the size and lines of candidate i written alone as a turn,
// after the day the turns start with; a grouped turn counts nothing, as its
// run shares one line.
func (m *measurer) estimate(i int) (int, int) {
	t := m.turn(i)
	if t.fold == foldGroup {
		return 0, 0
	}
	s := m.span(unitKey{i, i + 1, t.fold, t.older, t.early, t.said}, func(w *bytes.Buffer, tf *timeFmt) { writeTurn(w, t, m.b.Mode, tf) })
	size, _ := s.after(m.start)
	return size, s.lines
}

// total is the size and lines of markdown(b, loc) under the current folds.
func (m *measurer) total() (size, lines int) {
	b := m.b
	h := m.span(unitKey{i: -2, f: b.Preamble.fold}, func(w *bytes.Buffer, _ *timeFmt) { writeHeader(w, b, m.loc) })
	size, lines = h.size, h.lines
	day := m.start
	for i := 0; i < len(b.Turns); {
		j := unitEnd(b.Turns, i)
		unit := b.Turns[i:j]
		s := m.span(unitKey{i, j, unit[0].fold, unit[0].older, unit[0].early, unit[0].said}, func(w *bytes.Buffer, tf *timeFmt) { writeUnit(w, unit, b.Mode, tf) })
		n, next := s.after(day)
		size, lines, day = size+n, lines+s.lines, next
		i = j
	}
	return size, lines
}

// writeGroup writes a run of grouped turns as one line of id ranges.
func writeGroup(w *bytes.Buffer, run []Turn, mode Mode, tf *timeFmt) {
	first, last := &run[0], &run[len(run)-1]
	var tools, obs []string
	for i := range run {
		for _, it := range run[i].Happened {
			switch it.Kind {
			case ItemTool, ItemPending:
				tools = append(tools, it.ID)
			case ItemObservation:
				obs = append(obs, it.ID)
			}
		}
	}
	span := func(p string) string {
		if first.N == last.N {
			return "#" + p + strconv.Itoa(first.N)
		}
		return "#" + p + strconv.Itoa(first.N) + "–#" + p + strconv.Itoa(last.N)
	}
	parts := []string{"user " + span("u")}
	if mode != ModeReconstructed {
		parts = append(parts, "assistant "+span("a"))
	}
	if len(tools) > 0 {
		parts = append(parts, fmt.Sprintf("%d tool calls %s", len(tools), idRanges(tools)))
	}
	if len(obs) > 0 {
		parts = append(parts, fmt.Sprintf("%d observations %s", len(obs), idRanges(obs)))
	}
	from := tf.format(first.Time)
	to := tf.format(last.Time)
	fmt.Fprintf(w, "\n- ↳ folded: turns %d–%d (%s–%s): %s\n\n---\n", first.N, last.N, from, to, strings.Join(parts, "; "))
}

// writeFolded writes a folded turn: a line for the user's words, its
// activity (or one line of ids), and a line for the assistant's reply.
func writeFolded(w *bytes.Buffer, t *Turn, mode Mode, tf *timeFmt) {
	n := strconv.Itoa(t.N)
	if user := userText(t); user != "" || t.N > 0 {
		if user == "" {
			user = "_(private or empty)_"
		}
		w.WriteString("- [#u" + n + "] " + speaker(t) + " (" + tf.format(t.Time) + "): " + oneLine(user, foldChars) + "\n")
	}
	if t.fold >= foldAll {
		writeFoldedItems(w, t.Happened)
	} else {
		writeItems(w, t.Happened, tf)
	}
	if mode == ModeReconstructed {
		for _, s := range t.Summaries {
			w.WriteString("- ↳ summary (generated): " + oneLine(s.Request+" → "+s.Completed, foldChars) + "\n")
		}
		return
	}
	writeFoldedReply(w, t, tf)
}

// writeFoldedReply writes a turn's reply as its folded line, if it has one.
func writeFoldedReply(w *bytes.Buffer, t *Turn, tf *timeFmt) {
	writeReplyLine(w, t, t.Reply, "", tf)
}

// writeEarlier writes the text of the last turn before its final message
// as one folded line ("- [#a4] Assistant, 212 earlier texts (10:41): …");
// [#aN] expands to all of it.
func writeEarlier(w *bytes.Buffer, t *Turn, tf *timeFmt) {
	writeReplyLine(w, t, t.Reply[:t.Final], fmt.Sprintf(", %d earlier texts", t.Final), tf)
}

// writeEarlierSaid writes what the user typed in the last turn before its
// newest keepSaid messages as one folded line ("- [#u4] User, 37 earlier
// messages (10:41): …"); [#uN] expands to all of it.
func writeEarlierSaid(w *bytes.Buffer, t *Turn, tf *timeFmt) {
	var b strings.Builder
	for _, s := range t.MidTurn[:t.said] {
		if b.Len() > 8*foldChars {
			break
		}
		b.WriteString(s.Text + " ")
	}
	w.WriteString("\n- [#u" + strconv.Itoa(t.N) + "] User, " + strconv.Itoa(t.said) + " earlier messages (" +
		tf.format(t.MidTurn[0].Time) + "): " + oneLine(b.String(), foldChars) + "\n")
}

// writeReplyLine writes reply blocks of t as one folded line: their first
// foldChars characters and the code spans the rest holds.
func writeReplyLine(w *bytes.Buffer, t *Turn, reply []string, what string, tf *timeFmt) {
	if len(reply) > 0 {
		// The first blocks are enough for the line's characters.
		head, n := reply, 0
		for k, r := range reply {
			if n += len(r); n > 8*foldChars {
				head = reply[:k+1]
				break
			}
		}
		text := oneLine(strings.Join(head, " "), foldChars)
		w.WriteString("- [#a" + strconv.Itoa(t.N) + "] Assistant" + what + " (" + tf.format(t.replyTime()) + "): " + text + codeSpans(reply, text) + "\n")
	}
}

// foldedSpanRunes bounds the code spans a folded reply keeps.
const foldedSpanRunes = 160

// codeSpan matches a backtick pair and what lies between on one line;
// compiled on first use, as most runs of the binary fold no reply.
var codeSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`\n]{2,80}`") })

// codeSpans lists the distinct code spans of a folded reply that its shown
// text does not hold, " · `a` `b`", within foldedSpanRunes: the names and
// commands the reply was about outlive its words.
func codeSpans(reply []string, shown string) string {
	var b strings.Builder
	seen := map[string]bool{}
	used := 0
	for _, r := range reply {
		for _, m := range codeSpan().FindAllString(r, -1) {
			m = oneLine(m, 82)
			if seen[m] || strings.Contains(shown, m) {
				continue
			}
			seen[m] = true
			n := utf8.RuneCountInString(m) + 1
			if used+n > foldedSpanRunes {
				break
			}
			if used == 0 {
				b.WriteString(" ·")
			}
			b.WriteString(" " + m)
			used += n
		}
	}
	return b.String()
}

// userText is everything the user wrote in a turn: the prompt, then text
// typed mid-turn and slash commands, in order. [#uN] expands to it.
func userText(t *Turn) string {
	parts := make([]string, 0, 1+len(t.MidTurn))
	if strings.TrimSpace(t.Prompt) != "" {
		parts = append(parts, t.Prompt)
	}
	for _, s := range t.MidTurn {
		if s.From != "" {
			// Another party's message says whose it is.
			parts = append(parts, s.From+":\n"+s.Text)
			continue
		}
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, "\n\n")
}

// A folded turn's activity lists its calls' short forms in at most
// foldedCallRunes runes (the ids before them not counted), each cut to
// foldedCallChars: enough to keep what the turn worked on (a command's
// start, a path), bounded however many calls it made.
const (
	foldedCallRunes = 300
	foldedCallChars = 80
)

// writeFoldedItems writes a folded turn's activity: one line for its tool
// calls, their ids and then each distinct pending form (digest.Line.Pending)
// once, in order of first use, "×N" when repeated ("- [#t3–#t7] <call A>
// ×2 · <call B> ×2 · <call C>"), as
// many as fit foldedCallRunes and "+N more" for the calls left out; then one
// line of the ids of its observations and the count of its notes.
func writeFoldedItems(w *bytes.Buffer, items []Item) {
	var ids, calls, obs []string
	notes := 0
	// A long run repeats few calls: each is flattened once.
	forms := map[string]string{}
	for i := range items {
		it := &items[i]
		switch it.Kind {
		case ItemTool, ItemPending:
			ids = append(ids, it.ID)
			key := it.pendingText()
			f, ok := forms[key]
			if !ok {
				f = callForm(it)
				forms[key] = f
			}
			calls = append(calls, f)
		case ItemObservation:
			obs = append(obs, it.ID)
		default:
			notes++
		}
	}
	if len(ids) > 0 {
		w.WriteString("- [")
		w.WriteString(idRanges(ids))
		w.WriteString("] ")
		writeCalls(w, calls)
		w.WriteByte('\n')
	}
	var parts []string
	if len(obs) > 0 {
		parts = append(parts, fmt.Sprintf("%d observations %s", len(obs), idRanges(obs)))
	}
	if notes > 0 {
		parts = append(parts, fmt.Sprintf("%d notes", notes))
	}
	if len(parts) > 0 {
		w.WriteString("- ↳ folded: " + strings.Join(parts, "; ") + "\n")
	}
}

// callForm is the pending form of a tool call, one line of at most
// foldedCallChars runes.
func callForm(it *Item) string {
	c := oneLine(it.pendingText(), foldedCallChars)
	if c == "" {
		return "tool"
	}
	return c
}

// writeCalls writes calls deduplicated and bounded as writeFoldedItems
// describes.
func writeCalls(w *bytes.Buffer, calls []string) {
	type entry struct {
		form string
		n    int
	}
	var distinct []entry
	index := make(map[string]int, len(calls))
	for _, c := range calls {
		if k, ok := index[c]; ok {
			distinct[k].n++
			continue
		}
		index[c] = len(distinct)
		distinct = append(distinct, entry{c, 1})
	}
	const sep = " · "
	used, listed := 0, 0
	for i, e := range distinct {
		n := utf8.RuneCountInString(e.form)
		count := ""
		if e.n > 1 {
			count = " ×" + strconv.Itoa(e.n)
			n += utf8.RuneCountInString(count)
		}
		if i > 0 {
			n += utf8.RuneCountInString(sep)
		}
		// Leave room for "+N more" unless this entry is the last.
		reserve := 0
		if rest := len(calls) - listed - e.n; rest > 0 {
			reserve = utf8.RuneCountInString(sep + "+" + strconv.Itoa(rest) + " more")
		}
		if i > 0 && used+n+reserve > foldedCallRunes {
			break
		}
		if i > 0 {
			w.WriteString(sep)
		}
		w.WriteString(e.form)
		w.WriteString(count)
		used += n
		listed += e.n
	}
	if listed < len(calls) {
		w.WriteString(sep + "+" + strconv.Itoa(len(calls)-listed) + " more")
	}
}

// idRanges writes ids compactly, runs of consecutive numbers as ranges:
// "#t3–#t7 #t9", "#101–#104 #120".
func idRanges(ids []string) string {
	var out []string
	for i := 0; i < len(ids); {
		p, n := idNumber(ids[i])
		j := i
		for j+1 < len(ids) {
			q, m := idNumber(ids[j+1])
			if q != p || m != n+(j+1-i) {
				break
			}
			j++
		}
		if j > i {
			out = append(out, "#"+ids[i]+"–#"+ids[j])
		} else {
			out = append(out, "#"+ids[i])
		}
		i = j + 1
	}
	return strings.Join(out, " ")
}

// keepFullDigests is how many of the newest digest lines the ratio rule
// never shortens.
const keepFullDigests = 8

// shortLevel is how far the ratio rule shortened a digest line.
type shortLevel = digest.ShortLevel

// The levels, mildest first (digest.Line.Short).
const (
	shortened = digest.Short
	shortest  = digest.Shortest
)

// shortenDigests keeps tool digests from outweighing the conversation they
// replace: while the bottle (size bytes) is over a tenth of the conversation
// (or, when the verbatim text alone is more, over 125 % of that text), the
// lines' details go first (dropDetails), then the oldest digest lines are
// shortened — tool, a short salient part and the
// outcome (a plain "ok" left out) — and when every one of them is and the
// bottle is still over, packed several to a line (pack), and last the lines
// whose command or path a later line shows again are shortened once more
// (when that does not meet the target, the budget alone bounds the bottle).
// Verbatim text is never touched here; every id still expands. It reports
// whether it changed any line.
func shortenDigests(b *Bottle, loc *time.Location, size int) bool {
	if b.ConvTokens == 0 {
		return false
	}
	target := max(b.ConvTokens/10, b.TextTokens*5/4)
	if EstimateTokens(size) <= target {
		return false
	}
	// Details go first, oldest first; the newest lines keep theirs unless
	// nothing else meets the target.
	over := func(size int) bool { return EstimateTokens(size) > target }
	size, changed := dropDetails(b, size, over, keepFullDigests)
	if !over(size) {
		return changed
	}
	// The tool lines in order, each as its turn's activity from that line
	// on, so that a line can look at the one before it.
	var items [][]Item
	collect := func(t *Turn) {
		for k := t.older; k < len(t.Happened); k++ { // a folded line has no digest
			if t.Happened[k].Kind == ItemTool {
				items = append(items, t.Happened[k:])
			}
		}
	}
	collect(&b.Preamble)
	for i := range b.Turns {
		collect(&b.Turns[i])
	}
	// A line is measured by writing it, so the measure is the line.
	tf := newTimeFmt(b, loc)
	var line bytes.Buffer
	runLen := func(run []Item) int {
		line.Reset()
		writeItems(&line, run, tf)
		return line.Len()
	}
	n := max(len(items)-keepFullDigests, 0)
	// Oldest first, each line shortened joins the line before it when that
	// is shortened to the same text (run is the line's run so far).
	// A run's line grows by a few bytes per line it joins (joinedLen):
	// writing it again each time would cost a run of many repeats (a
	// polling loop) time quadratic in its length.
	var run []Item
	runSize, runText := 0, ""
	for i := 0; i < n && EstimateTokens(size) > target; i++ {
		it := &items[i][0]
		before := runLen(items[i][:1])
		it.short = shortened
		changed = true
		text := it.Line.Short(shortened)
		if len(run) > 0 && &run[len(run)-1] == &items[i-1][0] && len(items[i-1]) > 1 && &items[i-1][1] == it && runText == text {
			it.joined = true
			run = run[:len(run)+1]
			after := joinedLen(runSize, run)
			size -= before + runSize - after
			runSize = after
			continue
		}
		run, runText = items[i][:1], text
		runSize = runLen(run)
		size -= before - runSize
	}
	if EstimateTokens(size) <= target {
		return changed
	}
	// Lines that follow one another share a line; that cuts nothing.
	if size = pack(items[:n], size, target, runLen); EstimateTokens(size) <= target {
		return changed
	}
	// The shortest forms cut a command below what a later step can reuse,
	// so they go only to runs whose command or path a later line shows
	// again (the later line keeps it), oldest first; when that does not
	// meet the target, the budget alone bounds the bottle.
	lastSeen := make(map[string]int, len(items))
	for i := range items {
		lastSeen[items[i][0].Line.Key()] = i
	}
	for i := 0; i < n && EstimateTokens(size) > target; i++ {
		if items[i][0].joined {
			continue
		}
		k := 1
		for k < len(items[i]) && items[i][k].joined {
			k++
		}
		if lastSeen[items[i][0].Line.Key()] < i+k {
			continue
		}
		r := items[i][:k]
		before := runLen(r)
		for k := range r {
			r[k].short = shortest
		}
		size -= before - runLen(r)
	}
	// Last, the newest lines' details.
	_, dropped := dropDetails(b, size, over, 0)
	return changed || dropped
}

// dropDetails takes the details of tool lines back (Item.lean), oldest
// first but for the newest keep tool lines, while over reports the bottle
// of size bytes over its bound. It returns the size and whether it took
// any.
func dropDetails(b *Bottle, size int, over func(size int) bool, keep int) (int, bool) {
	var tools []*Item
	collect := func(t *Turn) {
		for k := t.older; k < len(t.Happened); k++ {
			if t.Happened[k].Kind == ItemTool {
				tools = append(tools, &t.Happened[k])
			}
		}
	}
	collect(&b.Preamble)
	for i := range b.Turns {
		collect(&b.Turns[i])
	}
	dropped := false
	for _, it := range tools[:max(len(tools)-keep, 0)] {
		if !over(size) {
			break
		}
		if it.Line.Detail() != "" && !it.lean && it.short == 0 {
			it.lean, dropped = true, true
			size -= len(it.Line.Detail())
		}
	}
	return size, dropped
}

// joinedLen is the length of the line of run (writeRun), a shortened line
// and the lines joined to it, when prev is that of the line without its
// last: the last id extends the ids' last range ("#t3–#t7" to "#t3–#t8",
// "#t3" to "#t3–#t4") or starts one (" #t9"), and the count grows (" ×2",
// " ×10").
func joinedLen(prev int, run []Item) int {
	n := len(run)
	id := run[n-1].ID
	switch {
	case !follows(run[n-2].ID, id):
		prev += len(" #") + len(id)
	case n > 2 && follows(run[n-3].ID, run[n-2].ID):
		prev += len(id) - len(run[n-2].ID)
	default:
		prev += len("–#") + len(id)
	}
	if n == 2 {
		return prev + len(" ×2")
	}
	return prev + len(strconv.Itoa(n)) - len(strconv.Itoa(n-1))
}

// follows reports whether id b is the one after a in a range of idRanges
// ("t12" after "t11", "102402" after "102401").
func follows(a, b string) bool {
	p, x := idNumber(a)
	q, y := idNumber(b)
	return p == q && y == x+1
}

// packRuns is how many runs of shortened lines one packed line holds.
const packRuns = 8

// pack writes shortened lines of a turn that follow one another, their ids
// consecutive, on one line, oldest first while the bottle (size bytes) is
// over target: "- [#t8–#t11] <short line A> · <short line B> · <short line
// C> ×2", the ids in the order of the calls. Nothing is cut: the line drops only
// the ids and line breaks that the range stands for, so a command keeps its
// shortened form. items are the ratio rule's lines that may shorten
// (shortenDigests); it returns the size.
func pack(items [][]Item, size, target int, runLen func([]Item) int) int {
	var line []Item // the line so far: the items from its first on
	runs := 0
	lineLen := -1 // the line's length once written (-1: not yet)
	for i := 0; i < len(items) && EstimateTokens(size) > target; i++ {
		it := &items[i][0]
		if it.joined {
			continue // in line already, with the line it joins
		}
		if it.short == 0 {
			line, runs = nil, 0
			continue
		}
		k := 1
		for k < len(items[i]) && items[i][k].joined {
			k++
		}
		adjacent := line != nil && len(items[i-1]) > 1 && &items[i-1][1] == it && consecutive(items[i-1][0].ID, it.ID)
		if !adjacent || runs == packRuns {
			line, runs, lineLen = items[i], 1, -1
			line = line[:k]
			continue
		}
		if lineLen < 0 {
			lineLen = runLen(line)
		}
		before := lineLen + runLen(items[i][:k])
		it.packed = true
		line = line[:len(line)+k]
		runs++
		lineLen = runLen(line)
		size -= before - lineLen
	}
	return size
}

// consecutive reports whether tool id b ("t12") follows a ("t11").
func consecutive(a, b string) bool {
	p, x := idNumber(a)
	q, y := idNumber(b)
	return p == "t" && q == "t" && y == x+1
}

// idNumber splits an id into its kind's letters and its number: "t12" is
// "t", 12; "102401" is "", 102401.
func idNumber(id string) (string, int) {
	p := strings.TrimRight(id, "0123456789")
	n, _ := strconv.Atoi(id[len(p):])
	return p, n
}
