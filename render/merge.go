package render

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"bottle/render/privacy"
	"bottle/render/transcript"

	"bottle/render/claudemem"
)

// promptKey normalises a prompt for matching a transcript prompt with the
// text claude-mem stored: stripped, whitespace collapsed.
func promptKey(s string, images int) string {
	k := strings.Join(strings.Fields(privacy.Strip(s)), " ")
	if k == "" && images > 0 {
		return "[media prompt]"
	}
	return k
}

// storedTruncated reports whether claude-mem cut a stored prompt at its cap
// (4,000 UTF-16 units ending in "…", claude-mem 13.25).
func storedTruncated(s string) bool {
	return strings.HasSuffix(s, "…") && len(utf16.Encode([]rune(s))) == 4000
}

// alignPrompts maps claude-mem's prompt numbers to transcript turn indexes.
// claude-mem skips fully private prompts and quick duplicates, so numbers
// drift from positions: each stored prompt is matched, in order, to the next
// turn with the same text; a stored prompt that matches nothing stays
// unmapped.
func alignPrompts(turns []Turn, stored []claudemem.Prompt) map[int]int {
	keys := make([]string, len(turns))
	for i := range turns {
		keys[i] = promptKey(turns[i].Prompt, turns[i].Images)
	}
	m := make(map[int]int)
	cursor := 0
	for _, p := range stored {
		if _, dup := m[p.Number]; dup {
			continue
		}
		want := promptKey(p.Text, 0)
		prefix := ""
		if storedTruncated(p.Text) {
			prefix = strings.TrimSpace(strings.TrimSuffix(want, "…"))
		}
		for j := cursor; j < len(keys); j++ {
			if keys[j] == want || (prefix != "" && strings.HasPrefix(keys[j], prefix)) {
				m[p.Number] = j
				cursor = j + 1
				break
			}
		}
	}
	return m
}

// observationLine is the one line that stands for an observation:
// "<title> — <first clause of the narrative>".
func observationLine(o claudemem.Observation) string {
	title := strings.TrimSpace(o.Title)
	if title == "" {
		title = strings.TrimSpace(o.Subtitle)
	}
	if title == "" {
		title = o.Type
	}
	clause := firstClause(o.Narrative)
	if clause == "" {
		clause = firstClause(o.Subtitle)
	}
	if clause == "" || strings.EqualFold(clause, title) {
		return title
	}
	return title + " — " + clause
}

// firstClause returns the narrative up to its first sentence or clause end,
// bounded to about 120 characters.
func firstClause(s string) string {
	s = strings.Join(strings.Fields(privacy.Strip(s)), " ")
	end := len(s)
	for _, sep := range []string{". ", "; ", " — ", ": "} {
		if i := strings.Index(s, sep); i >= 0 && i < end {
			end = i
		}
	}
	s = strings.TrimRight(s[:end], ".;: ")
	return oneLine(s, 120)
}

// mergeObservations places a stored session's observations into a bottle
// built from the transcript. Each observation goes to the turn its
// prompt_number names (via prompt alignment); within the span of turns a
// number can cover (unstored private or duplicate prompts keep claude-mem's
// count), its time picks the turn. Digests give way to observations; tool
// calls newer than the newest observation stay visible as pending lines.
func mergeObservations(b *Bottle, t *transcript.Transcript, s *claudemem.Session) int {
	if len(s.Observations) == 0 {
		return 0
	}
	align := alignPrompts(b.Turns, s.Prompts)
	var numbers []int
	for n := range align {
		numbers = append(numbers, n)
	}
	sort.Ints(numbers)
	// span returns the turn range [lo, hi) that prompt number n can cover;
	// lo == -1 stands for the preamble.
	span := func(n int) (lo, hi int) {
		lo, hi = -1, len(b.Turns)
		for _, k := range numbers {
			if k <= n {
				lo = align[k]
			} else {
				hi = align[k]
				break
			}
		}
		if n <= 0 {
			lo = -1
		}
		if hi <= lo {
			hi = lo + 1
		}
		return lo, hi
	}
	newest := time.Time{}
	for _, o := range s.Observations {
		if o.Created.After(newest) {
			newest = o.Created
		}
		lo, hi := span(o.PromptNumber)
		at := lo
		for j := lo + 1; j < hi && j < len(b.Turns); j++ {
			if !b.Turns[j].Time.IsZero() && !o.Created.Before(b.Turns[j].Time) {
				at = j
			}
		}
		it := Item{Kind: ItemObservation, ID: strconv.FormatInt(o.ID, 10), Text: observationLine(o), Time: o.Created}
		if at < 0 {
			b.Preamble.Happened = insertByTime(b.Preamble.Happened, it)
		} else {
			b.Turns[at].Happened = insertByTime(b.Turns[at].Happened, it)
		}
	}
	// Digests give way: only tool calls newer than the newest observation
	// remain, as pending lines.
	pend := func(items []Item) []Item {
		out := items[:0]
		for _, it := range items {
			if it.Kind == ItemTool {
				n, _ := strconv.Atoi(strings.TrimPrefix(it.ID, "t"))
				if n < 1 || n > len(t.Tools) || !t.Tools[n-1].Time.After(newest) {
					continue
				}
				it.Kind = ItemPending
				it.Text = t.Tools[n-1].Pending
				if it.Text == "" {
					it.Text = t.Tools[n-1].Name
				}
			}
			out = append(out, it)
		}
		return out
	}
	b.Preamble.Happened = pend(b.Preamble.Happened)
	for i := range b.Turns {
		b.Turns[i].Happened = pend(b.Turns[i].Happened)
	}
	return len(s.Observations)
}

// insertByTime inserts an observation before the first transcript item
// newer than it (after observations of the same time), so transcript items
// keep their file order and observations keep created_at order.
func insertByTime(items []Item, it Item) []Item {
	i := len(items)
	for j := range items {
		if items[j].Time.After(it.Time) {
			i = j
			break
		}
	}
	return slices.Insert(items, i, it)
}

// fromStored builds a reconstructed bottle from claude-mem's records alone
// (SPEC §3.4): stored prompts as verbatim user turns, observations by prompt
// number, summaries as generated blocks.
func fromStored(s *claudemem.Session) (*Bottle, error) {
	if len(s.Prompts) == 0 && len(s.Observations) == 0 {
		return nil, fmt.Errorf("%w (session %s is stored without prompts or observations)", ErrNothingToRender, s.ContentSessionID)
	}
	b := &Bottle{SessionID: s.ContentSessionID, Project: s.Project, Started: s.Started, Mode: ModeReconstructed}
	index := map[int]int{} // prompt number -> turn index
	for _, p := range s.Prompts {
		if _, dup := index[p.Number]; dup {
			continue
		}
		text := p.Text
		if storedTruncated(text) {
			text += "\n[truncated at 4000 chars]"
		}
		index[p.Number] = len(b.Turns)
		b.Turns = append(b.Turns, Turn{N: len(b.Turns) + 1, Time: p.Created, Prompt: text, NoReply: true})
	}
	turnOf := func(n int, at time.Time) *Turn {
		if i, ok := index[n]; ok && n > 0 {
			return &b.Turns[i]
		}
		if at.IsZero() {
			return &b.Preamble
		}
		// No (known) prompt number: the turn that was current at that time.
		var cur *Turn = &b.Preamble
		for i := range b.Turns {
			if !b.Turns[i].Time.After(at) {
				cur = &b.Turns[i]
			}
		}
		return cur
	}
	for _, o := range s.Observations {
		t := turnOf(o.PromptNumber, o.Created)
		t.Happened = append(t.Happened, Item{Kind: ItemObservation, ID: strconv.FormatInt(o.ID, 10), Text: observationLine(o), Time: o.Created})
	}
	for _, sm := range s.Summaries {
		t := turnOf(sm.PromptNumber, sm.Created)
		t.Summaries = append(t.Summaries, Summary{Request: sm.Request, Investigated: sm.Investigated, Learned: sm.Learned,
			Completed: sm.Completed, NextSteps: sm.NextSteps, Notes: sm.Notes, Time: sm.Created})
	}
	if b.Started.IsZero() && len(b.Turns) > 0 {
		b.Started = b.Turns[0].Time
	}
	return b, nil
}
