package render

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"bottle/render/digest"

	"bottle/ident"
	"bottle/session"
)

// Mode says which sources a bottle was rendered from ([ident.Mode]).
type Mode = ident.Mode

// Modes of a bottle (docs/format.md, "The bottle").
const (
	ModeFull          = ident.ModeFull
	ModeReconstructed = ident.ModeReconstructed
)

// Bottle is a session reduced to what the markdown shows, before budgeting.
type Bottle struct {
	SessionID string
	Host      string // the program that wrote the record, when its reader says (session.Transcript.Host)
	Project   string
	Started   time.Time
	Rendered  time.Time
	// LastActive is the session's last activity (Result.LastActivity),
	// shown in the header; zero when unknown.
	LastActive time.Time
	// State holds the lines of the working state (docs/format.md), shown after
	// the header and never folded; none in reconstructed mode.
	State []string
	Mode  Mode
	Notes []string // shown under "## Notes" (e.g. observations unavailable)
	// Preamble holds what happened before the first genuine prompt (a slash
	// command that opened the session, its tool activity and replies). Its
	// Prompt is always empty.
	Preamble Turn
	Turns    []Turn
	// ConvTokens and TextTokens estimate the conversation the bottle
	// replaces and its verbatim part (0 when unknown); the budget keeps
	// digests from outweighing the conversation they stand for.
	ConvTokens, TextTokens int
}

// Turn is one genuine user prompt, or one entry of other parties'
// messages, and everything until the next one.
type Turn struct {
	N      int // 1-based, file order
	Time   time.Time
	Prompt string // raw; "" with Private set when stripping left nothing
	// From names who sent Prompt when another party did ("Teammate
	// team-lead", session.Event.From), raw; "" for the user.
	From      string
	Images    int
	MidTurn   []Said // text typed while the assistant worked
	Happened  []Item
	Reply     []string // assistant text blocks, in order
	ReplyTime time.Time
	Summaries []Summary // reconstructed mode: generated summaries of this turn
	// NoReply marks reconstructed turns, whose assistant text is not preserved.
	NoReply bool
	// Final is where the turn's last assistant message starts in Reply,
	// and FinalTime when it was written: the final assistant message.
	Final     int
	FinalTime time.Time

	fold fold // how far the budget folded this turn
	// The last turn never folds as a whole; the budget folds its oldest
	// activity, Happened[:older], to the lines a folded turn's activity
	// takes, with early its messages before Final to one line, and what
	// the user typed in it, MidTurn[:said], to one line.
	older int
	early bool
	said  int
	// foldedText is what writeFoldedItems wrote for Happened[:foldedAt]:
	// the budget writes the turn again for each fold it weighs, and the
	// folded part of a long run is most of the work.
	foldedText []byte
	foldedAt   int
}

// replyTime is the time shown for the turn's reply: when the assistant
// first wrote, or when the prompt was sent if that is unknown.
func (t *Turn) replyTime() time.Time {
	if t.ReplyTime.IsZero() {
		return t.Time
	}
	return t.ReplyTime
}

// Said is text the user typed outside a prompt: mid-turn, as the
// arguments of a slash command, or as the answers to the model's
// questions (AskUserQuestion).
type Said struct {
	Time    time.Time
	Command bool   // Text is a slash command "/cmd args"
	Answer  string // the id of the AskUserQuestion call Text answers ("t9"; digest.Answers)
	// From names the party that sent Text, raw, when it is another
	// party's message (session.Event.From).
	From string
	// Part marks another party's message that came in the entry that
	// started the turn: part of its prompt.
	Part bool
	Text string
}

// ItemKind is the kind of a line under *What happened:*.
type ItemKind uint8

// Item kinds.
const (
	ItemTool        ItemKind = iota // [#tN] digest
	ItemPending                     // ⏳ [#tN] a tool call newer than the newest observation
	ItemObservation                 // [#id] claude-mem observation
	ItemNote                        // ↳ a command, interrupt, background task or compaction
)

// Item is one line under *What happened:*. Text is raw; it is cleaned and
// flattened when written.
type Item struct {
	ID string // "t17" or "102401"
	// Text is an observation's or a note's line (and a pending line's
	// without a Line).
	Text string
	// Line is a tool call's digest (ItemTool, ItemPending), already
	// stripped: the full form, the detail the line adds while the bottle
	// has room, the short forms the budget picks and the pending form a
	// folded turn keeps of the call. nil for other kinds.
	Line *digest.Line
	Time time.Time
	Kind ItemKind
	// short: how far the budget shortened this line (0: not at all; the
	// full text is one expand away).
	short shortLevel
	// joined: the line is shortened to the same text as the line before it
	// in its turn and merged into it (writeItems).
	joined bool
	// packed: the shortened line (and those joined to it) is written on the
	// line of the one before it (pack).
	packed bool
	// lean: the budget took the detail back.
	lean bool
	// typed: a note the user typed (a bare slash command, a bash-mode
	// input), which the turn's [#uN] expands to with its words.
	typed bool
}

// Summary is a claude-mem session summary (generated, never verbatim).
type Summary struct {
	Request, Investigated, Learned, Completed, NextSteps, Notes string
	Time                                                        time.Time
}

// fromTranscript builds a full-mode bottle from a transcript with tool
// digests standing for tool activity.
func fromTranscript(t *session.Transcript) *Bottle {
	b := &Bottle{SessionID: t.SessionID, Host: t.Host, Project: t.Cwd, Started: t.Started, Mode: ModeFull,
		ConvTokens: EstimateTokens(t.TextBytes + t.ToolBytes), TextTokens: EstimateTokens(t.TextBytes)}
	// The turns' items share one array, of room for as many items as the
	// events can make, each turn's slice capped at its end: growing them
	// turn by turn, doubling, allocated about twice the items' bytes.
	n := 0
	for _, e := range t.Events {
		switch e.Kind {
		case session.EvPrompt, session.EvIDE:
			n += len(e.IDE)
		case session.EvCommand, session.EvBash, session.EvInterrupt, session.EvTaskNote, session.EvCompaction, session.EvTool, session.EvCwd:
			n++
		}
	}
	items, first := make([]Item, 0, n), 0
	if t.Prompts > 0 {
		b.Turns = make([]Turn, 0, t.Prompts)
	}
	cur := &b.Preamble
	// part: the events so far are the messages of the entry that started
	// the current turn.
	part := false
	add := func(it Item) {
		items = append(items, it)
		cur.Happened = items[first:len(items):len(items)]
	}
	for _, span := range session.Turns(t.Events) {
		for _, e := range t.Events[span.Start:span.End] {
			wasPart := part
			part = e.From != "" && (e.Kind == session.EvPrompt || e.Kind == session.EvMidTurn && wasPart)
			switch e.Kind {
			case session.EvPrompt:
				b.Turns = append(b.Turns, Turn{N: span.N, Time: e.Time, Prompt: e.Text, From: e.From, Images: e.Images})
				cur = &b.Turns[len(b.Turns)-1]
				first = len(items)
				for _, c := range e.IDE {
					add(ideItem(c, t.Cwd, e.Time))
				}
			case session.EvIDE:
				for _, c := range e.IDE {
					add(ideItem(c, t.Cwd, e.Time))
				}
			case session.EvMidTurn:
				cur.MidTurn = append(cur.MidTurn, Said{Time: e.Time, From: e.From, Part: part, Text: e.Text})
			case session.EvAnswer:
				if !isBlank(clean(e.Text)) {
					cur.MidTurn = append(cur.MidTurn, Said{Time: e.Time, Answer: "t" + strconv.Itoa(e.Tool+1), Text: e.Text})
				}
			case session.EvCommand, session.EvBash:
				if isBlank(e.Text) {
					continue // nothing left after stripping
				}
				if e.Kind == session.EvBash {
					add(Item{Kind: ItemNote, Text: "!" + e.Text, Time: e.Time, typed: true})
					continue
				}
				// A command's arguments are the user's words: keep them
				// verbatim. A bare command is one line of activity.
				if strings.ContainsRune(strings.TrimSpace(e.Text), ' ') {
					cur.MidTurn = append(cur.MidTurn, Said{Time: e.Time, Command: true, Text: e.Text})
				} else {
					add(Item{Kind: ItemNote, Text: e.Text, Time: e.Time, typed: true})
				}
			case session.EvInterrupt:
				add(Item{Kind: ItemNote, Text: "interrupted by the user", Time: e.Time})
			case session.EvTaskNote:
				add(Item{Kind: ItemNote, Text: "background task: " + e.Text, Time: e.Time})
			case session.EvCompaction:
				txt := "─── context compacted here"
				if e.Text != "" {
					txt += " (" + e.Text + ")"
				}
				add(Item{Kind: ItemNote, Text: txt + " ───", Time: e.Time})
			case session.EvCwd:
				if !isBlank(clean(e.Text)) {
					add(Item{Kind: ItemNote, Text: cwdNote + e.Text, Time: e.Time})
				}
			case session.EvTool:
				tc := &t.Tools[e.Tool]
				line := &tc.Line
				if line.Full() == "" || line.Pending() == "" {
					named := digest.Named(tc.Name)
					line = &named
				}
				add(Item{Kind: ItemTool, ID: "t" + strconv.Itoa(e.Tool+1), Line: line, Time: e.Time})
			case session.EvAssistant:
				if len(cur.Reply) == 0 {
					cur.ReplyTime = e.Time
				}
				cur.Final, cur.FinalTime = len(cur.Reply), e.Time
				cur.Reply = append(cur.Reply, e.Blocks...)
			}
		}
	}
	return b
}

// cwdNote opens the line of a change of working directory: "- ↳ working
// directory: <path>" in the turn that runs there.
const cwdNote = "working directory: "

// ideItem is the line of activity an IDE report becomes: "opened in the
// IDE: <path>" or "selected in the IDE: <path>:<lines>", the path relative
// to the project when it lies inside it.
func ideItem(c session.IDEContext, cwd string, at time.Time) Item {
	path := digest.Rel(oneLine(c.Path, 300), cwd)
	if c.Selected {
		if lines := oneLine(c.Lines, 40); lines != "" {
			path += ":" + lines
		}
		return Item{Kind: ItemNote, Text: "selected in the IDE: " + path, Time: at}
	}
	return Item{Kind: ItemNote, Text: "opened in the IDE: " + path, Time: at}
}

// timeFmt prints times as HH:MM, adding the date when the day changes.
type timeFmt struct {
	loc  *time.Location
	last string // yyyy-mm-dd of the last time printed
	// dated counts the times printed with their date, and first is the day
	// of the first of them: the budget measures a stretch of markdown once
	// and works out from these what it costs after any day (see span).
	dated int
	first string
}

// A time is printed as timeLayout, or as dateLayout when the day changes.
const (
	timeLayout = "15:04"
	dateLayout = "2006-01-02 " + timeLayout
	dateExtra  = len(dateLayout) - len(timeLayout) // bytes a date adds
)

func (f *timeFmt) format(t time.Time) string {
	if t.IsZero() {
		return "--:--"
	}
	t = t.In(f.loc)
	day := t.Format("2006-01-02")
	if day != f.last {
		if f.dated == 0 {
			f.first = day
		}
		f.dated++
		f.last = day
		return t.Format(dateLayout)
	}
	return t.Format(timeLayout)
}

func stamp(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.In(loc).Format(time.RFC3339)
}

// toolLineMax bounds a tool digest's line, in runes: the longest a digest
// is (digest.MaxPathListRunes, a Grep or Glob naming its paths).
const toolLineMax = 240

// writeItems writes a turn's *What happened:* lines: one per item, but a
// shortened tool line with the lines joined to it as one, their ids as a
// range and the count ("- [#t8–#t10] Edit: main.go ×3"), and packed lines
// on the line before them ("- [#t8–#t11] Edit: main.go ×3 · Bash: go vet").
func writeItems(w *bytes.Buffer, items []Item, tf *timeFmt) {
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && (items[j].joined || items[j].packed) {
			j++
		}
		if j == i+1 {
			writeItem(w, &items[i], tf)
		} else {
			writeRun(w, items[i:j])
		}
		i = j
	}
}

// writeRun writes shortened tool lines as one line: the ids as ranges, then
// each run of lines of one text once, " ×N" after it for N lines, " · "
// between runs.
func writeRun(w *bytes.Buffer, run []Item) {
	ids := make([]string, len(run))
	for i := range run {
		ids[i] = run[i].ID
	}
	w.WriteString("- [")
	w.WriteString(idRanges(ids))
	w.WriteString("] ")
	for i := 0; i < len(run); {
		j := i + 1
		for j < len(run) && run[j].joined {
			j++
		}
		if i > 0 {
			w.WriteString(" · ")
		}
		w.WriteString(run[i].Line.Short(run[i].short))
		if j > i+1 {
			w.WriteString(" ×")
			w.WriteString(strconv.Itoa(j - i))
		}
		i = j
	}
	w.WriteByte('\n')
}

// writeItem writes one *What happened:* line and its newline. With
// writeRun it is the only writer of these lines: the budget measures a line
// by writing it.
func writeItem(w *bytes.Buffer, it *Item, tf *timeFmt) {
	const max = 200
	switch it.Kind {
	case ItemTool:
		w.WriteString("- [#")
		w.WriteString(it.ID)
		w.WriteString("] ")
		switch {
		case it.short > 0:
			w.WriteString(it.Line.Short(it.short))
		case it.Line.Detail() != "" && !it.lean:
			w.WriteString(oneLine(it.Line.WithDetail(), toolLineMax))
		default:
			w.WriteString(oneLine(it.Line.Full(), toolLineMax))
		}
	case ItemPending:
		w.WriteString("- ⏳ [#")
		w.WriteString(it.ID)
		w.WriteString("] ")
		w.WriteString(oneLine(it.pendingText(), max))
	case ItemObservation:
		w.WriteString("- [#")
		w.WriteString(it.ID)
		w.WriteString("] ")
		w.WriteString(oneLine(it.Text, max))
	default:
		w.WriteString("- ↳ ")
		w.WriteString(oneLine(it.Text, max))
		if itemPrintsTime(it) {
			w.WriteByte(' ')
			w.WriteString(tf.format(it.Time))
		}
	}
	w.WriteByte('\n')
}

// pendingText is the text of a pending line: its call's pending form.
func (it *Item) pendingText() string {
	if it.Line != nil {
		return it.Line.Pending()
	}
	return it.Text
}

// line is the item's line as written in full, without a tool line's
// detail.
func (it *Item) line() string {
	if it.Line != nil {
		return it.Line.Full()
	}
	return it.Text
}

// textLen is the length of the item's line with its detail, in bytes.
func (it *Item) textLen() int {
	if it.Line != nil {
		return len(it.Line.WithDetail())
	}
	return len(it.Text)
}

// itemPrintsTime reports whether writeItem prints the item's time (passes it
// to timeFmt.format): only compaction notes ("─── …") do.
func itemPrintsTime(it *Item) bool {
	switch it.Kind {
	case ItemTool, ItemPending, ItemObservation:
		return false
	}
	return strings.HasPrefix(it.Text, "───")
}
