package render

import (
	"bytes"
	"strings"
	"time"

	"bottle/workstate"
)

// markdown writes a bottle. loc is the zone of the times shown.
func markdown(b *Bottle, loc *time.Location) []byte { return writeMarkdown(b, loc, false) }

// writeMarkdown is markdown, on one goroutine when serial.
func writeMarkdown(b *Bottle, loc *time.Location, serial bool) []byte {
	if !serial {
		if md, ok := markdownPar(b, loc); ok {
			return md
		}
	}
	return markdownSerial(b, loc)
}

// markdownSerial is markdown on one goroutine.
func markdownSerial(b *Bottle, loc *time.Location) []byte {
	var w bytes.Buffer
	w.Grow(b.sizeHint())
	writeHeader(&w, b, loc)
	writeTurns(&w, b.Turns, b.Mode, newTimeFmt(b, loc))
	return w.Bytes()
}

// writeTurns writes a run of turns, a run of grouped turns as one line. A
// run of grouped turns must not continue past the end of turns.
func writeTurns(w *bytes.Buffer, turns []Turn, mode Mode, tf *timeFmt) {
	for i := 0; i < len(turns); {
		j := unitEnd(turns, i)
		writeUnit(w, turns[i:j], mode, tf)
		i = j
	}
}

// unitEnd is the end of the unit of markdown that starts at turns[i]: a
// run of grouped turns is one line, any other turn stands alone.
func unitEnd(turns []Turn, i int) int {
	j := i + 1
	if turns[i].fold == foldGroup {
		for j < len(turns) && turns[j].fold == foldGroup {
			j++
		}
	}
	return j
}

// writeUnit writes a unit of turns as unitEnd delimits it.
func writeUnit(w *bytes.Buffer, unit []Turn, mode Mode, tf *timeFmt) {
	if unit[0].fold == foldGroup {
		writeGroup(w, unit, mode, tf)
		return
	}
	writeTurn(w, &unit[0], mode, tf)
}

// sizeHint is about the size of the bottle's markdown, a little more when
// nothing is folded, so that the buffer is allocated once.
func (b *Bottle) sizeHint() int {
	n := 4096 + len(b.Notes)*128 + turnHint(&b.Preamble)
	for i := range b.Turns {
		n += turnHint(&b.Turns[i])
	}
	return n + n/16
}

// turnHint is about the size of a turn's markdown.
func turnHint(t *Turn) int {
	n := 160 + len(t.Prompt)
	for _, s := range t.MidTurn {
		n += 48 + len(s.Text)
	}
	for _, it := range t.Happened {
		n += 24 + min(len(it.line()), 400)
	}
	for _, r := range t.Reply {
		n += 2 + len(r)
	}
	n += len(t.Summaries) * 1024
	return n
}

func newTimeFmt(b *Bottle, loc *time.Location) *timeFmt {
	tf := &timeFmt{loc: loc}
	if !b.Started.IsZero() {
		tf.last = b.Started.In(loc).Format("2006-01-02")
	}
	return tf
}

func writeHeader(w *bytes.Buffer, b *Bottle, loc *time.Location) {
	w.WriteString("# Session bottle — " + oneLine(b.SessionID, 128) + "\n")
	project := oneLine(b.Project, 300)
	if project == "" {
		project = "unknown"
	}
	w.WriteString("project: " + project + " · started: " + stamp(b.Started, loc))
	if !b.LastActive.IsZero() {
		w.WriteString(" · last active: " + stamp(b.LastActive, loc))
	}
	w.WriteString(" · rendered: " + stamp(b.Rendered, loc) + "\n")
	switch b.Mode {
	case ModeReconstructed:
		w.WriteString(reconstructedLine + "\n")
	case ModeFull:
		w.WriteString("mode: full")
		if b.Host != "" {
			w.WriteString(" · recorded by " + oneLine(b.Host, 40))
		}
		w.WriteString("\n")
	default:
		w.WriteString("mode: full\n")
	}
	if len(b.Notes) > 0 {
		w.WriteString("\n## Notes\n\n")
		for _, n := range b.Notes {
			w.WriteString("- " + oneLine(n, 300) + "\n")
		}
	}
	if len(b.State) > 0 {
		w.WriteString("\n" + workstate.Heading + "\n\n")
		for _, l := range b.State {
			w.WriteString(l + "\n")
		}
	}
	w.WriteString("\n## Original request\n\n")
	if len(b.Turns) == 0 {
		w.WriteString("_(no prompt in this session yet)_\n")
	} else {
		writeOriginal(w, &b.Turns[0], newTimeFmt(b, loc))
	}
	p := &b.Preamble
	if len(p.MidTurn)+len(p.Happened)+len(p.Reply)+len(p.Summaries) > 0 {
		w.WriteString("\n## Before the first prompt\n")
		tf := newTimeFmt(b, loc)
		if p.fold != foldNone {
			writeFolded(w, p, b.Mode, tf)
			w.WriteString("\n---\n")
			return
		}
		writeSaid(w, p, tf)
		writeHappened(w, p, tf)
		if len(p.Reply) > 0 {
			w.WriteString("\n↳ assistant (" + tf.format(p.ReplyTime) + "):\n")
			writeReply(w, p.Reply)
		}
		for _, s := range p.Summaries {
			writeSummary(w, s)
		}
	}
	w.WriteString("\n---\n")
}

func writeSaid(w *bytes.Buffer, t *Turn, tf *timeFmt) {
	if t.said > 0 {
		writeEarlierSaid(w, t, tf)
	}
	for _, s := range t.MidTurn[t.said:] {
		switch {
		case s.From != "":
			w.WriteString("\n**" + senderName(s.From) + "** (" + tf.format(s.Time) + ")\n\n")
		case s.Command:
			w.WriteString("\n↳ slash command (" + tf.format(s.Time) + "):\n")
		case s.Answer != "":
			w.WriteString("\n↳ answered [#" + s.Answer + "] (" + tf.format(s.Time) + "):\n")
		default:
			w.WriteString("\n↳ typed mid-turn (" + tf.format(s.Time) + "):\n")
		}
		w.WriteString(strings.TrimRight(Verbatim(s.Text), "\n"))
		w.WriteByte('\n')
	}
}

// writeHappened writes a turn's activity: its folded oldest part and
// earlier messages, if the budget folded them (Turn.older, Turn.early),
// then the rest line by line.
func writeHappened(w *bytes.Buffer, t *Turn, tf *timeFmt) {
	if len(t.Happened) == 0 && !t.early {
		return
	}
	w.WriteString("\n*What happened:*\n")
	if t.older > 0 {
		if t.foldedText == nil || t.foldedAt != t.older {
			var f bytes.Buffer
			writeFoldedItems(&f, t.Happened[:t.older])
			t.foldedText, t.foldedAt = f.Bytes(), t.older
		}
		w.Write(t.foldedText)
	}
	if t.early {
		writeEarlier(w, t, tf)
	}
	writeItems(w, t.Happened[t.older:], tf)
}

func writeReply(w *bytes.Buffer, reply []string) {
	for i, r := range reply {
		if i > 0 {
			w.WriteByte('\n')
		}
		w.WriteString(strings.TrimRight(Verbatim(r), "\n"))
		w.WriteByte('\n')
	}
}

// A first prompt longer than longFirstPrompt bytes is not repeated in turn
// 1: it stands verbatim under Original request, and writing it twice would
// cost more than the rest of many bottles.
const (
	noReply         = "_(no reply text in the transcript)_"
	longFirstPrompt = 600
	sameAsOriginal  = "_(the Original request above, verbatim)_"
)

// writeOriginal writes the Original request: the first prompt or, when
// other parties opened the session, the messages of its first entry, each
// after its sender's heading.
func writeOriginal(w *bytes.Buffer, t *Turn, tf *timeFmt) {
	if t.From == "" {
		writePrompt(w, t)
		return
	}
	w.WriteString("**" + speaker(t) + "** (" + tf.format(t.Time) + ")\n\n")
	writePrompt(w, t)
	for _, s := range t.MidTurn {
		if s.Part {
			w.WriteString("\n**" + senderName(s.From) + "** (" + tf.format(s.Time) + ")\n\n")
			w.WriteString(strings.TrimRight(Verbatim(s.Text), "\n"))
			w.WriteByte('\n')
		}
	}
}

// inputText is the input that started a turn of other parties' messages:
// each message of its entry after its sender ("Teammate team-lead: …").
func inputText(t *Turn) string {
	parts := []string{t.From + ": " + t.Prompt}
	for _, s := range t.MidTurn {
		if s.Part {
			parts = append(parts, s.From+": "+s.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// writePrompt writes a turn's prompt body (without heading).
func writePrompt(w *bytes.Buffer, t *Turn) {
	body := Verbatim(t.Prompt)
	if isBlank(body) && t.Images == 0 {
		w.WriteString("_(prompt withheld: private)_\n")
		return
	}
	if !isBlank(body) {
		w.WriteString(strings.TrimRight(body, "\n"))
		w.WriteByte('\n')
	}
	for i := 0; i < t.Images; i++ {
		w.WriteString("[image]\n")
	}
}

func writeTurn(w *bytes.Buffer, t *Turn, mode Mode, tf *timeFmt) {
	if t.fold != foldNone && (t.fold != foldReply || mode == ModeReconstructed) {
		w.WriteByte('\n')
		writeFolded(w, t, mode, tf)
		w.WriteString("\n---\n")
		return
	}
	w.WriteString("\n**" + speaker(t) + "** (" + tf.format(t.Time) + ")\n\n")
	if t.N == 1 && len(Verbatim(t.Prompt)) > longFirstPrompt {
		w.WriteString(sameAsOriginal + "\n")
	} else {
		writePrompt(w, t)
	}
	writeSaid(w, t, tf)
	writeHappened(w, t, tf)
	if mode == ModeReconstructed {
		for _, s := range t.Summaries {
			writeSummary(w, s)
		}
		w.WriteString("\n---\n")
		return
	}
	if t.fold == foldReply {
		w.WriteString("\n")
		writeFoldedReply(w, t, tf)
		w.WriteString("\n---\n")
		return
	}
	at, reply := t.replyTime(), t.Reply
	if t.early {
		at, reply = t.FinalTime, t.Reply[t.Final:]
	}
	w.WriteString("\n**Assistant** (" + tf.format(at) + ")\n\n")
	if len(reply) == 0 {
		w.WriteString(noReply + "\n")
	}
	writeReply(w, reply)
	w.WriteString("\n---\n")
}

// writeSummary writes a claude-mem summary as a visibly generated quote.
func writeSummary(w *bytes.Buffer, s Summary) {
	w.WriteString("\n> Session summary (generated by claude-mem — not verbatim)\n")
	field := func(name, v string) {
		v = oneLine(v, 1200)
		if v != "" {
			w.WriteString("> " + name + ": " + v + "\n")
		}
	}
	field("request", s.Request)
	field("investigated", s.Investigated)
	field("learned", s.Learned)
	field("completed", s.Completed)
	field("next steps", s.NextSteps)
	field("notes", s.Notes)
}

// speaker names who wrote a turn's prompt: "User", or the other party that
// sent it ("Teammate team-lead").
func speaker(t *Turn) string {
	if t.From == "" {
		return "User"
	}
	return senderName(t.From)
}

// senderName is another party's label as a heading shows it: one line,
// bounded, without the asterisks that would end the heading's bold.
func senderName(from string) string {
	name := strings.TrimSpace(strings.ReplaceAll(oneLine(from, 80), "*", ""))
	if name == "" {
		return "Sender"
	}
	return name
}

// reconstructedLine is the header line of a bottle in reconstructed mode.
const reconstructedLine = "mode: reconstructed — assistant messages not preserved"

// ModeOf is the mode of a bottle written earlier, from its first lines
// (the header, within its first kilobyte): reconstructed when the header
// says so, else full.
func ModeOf(head []byte) Mode {
	head = head[:min(len(head), 1024)]
	for line := range bytes.Lines(head) {
		if string(bytes.TrimRight(line, "\r\n")) == reconstructedLine {
			return ModeReconstructed
		}
		if bytes.HasPrefix(line, []byte("## ")) {
			break // the header ends at the first section
		}
	}
	return ModeFull
}
