package render

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"bottle/privacy"
	"bottle/session"

	"bottle/claudemem"
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
//
// It works in one pass: the observations sorted by time, each turn's are
// merged with its items (mergeByTime), so a session of many observations
// costs a sort, not an insertion per observation.
func mergeObservations(b *Bottle, t *session.Transcript, s *claudemem.Session) int {
	if len(s.Observations) == 0 {
		return 0
	}
	align := alignPrompts(b.Turns, s.Prompts)
	numbers := make([]int, 0, len(align))
	for n := range align {
		numbers = append(numbers, n)
	}
	sort.Ints(numbers)
	// span returns the turn range [lo, hi) that prompt number n can cover:
	// from the turn of the nearest aligned number at or below n to that of
	// the nearest above it; lo == -1 stands for the preamble.
	span := func(n int) (lo, hi int) {
		lo, hi = -1, len(b.Turns)
		i := sort.SearchInts(numbers, n+1) // the first number above n
		if i > 0 {
			lo = align[numbers[i-1]]
		}
		if i < len(numbers) {
			hi = align[numbers[i]]
		}
		if n <= 0 {
			lo = -1
		}
		if hi <= lo {
			hi = lo + 1
		}
		return lo, hi
	}
	pick := turnPicker(b.Turns)
	// In time order (created_at, then the database's order), so that each
	// turn's observations come out sorted for the merge.
	obs := make([]*claudemem.Observation, len(s.Observations))
	for i := range s.Observations {
		obs[i] = &s.Observations[i]
	}
	slices.SortStableFunc(obs, func(x, y *claudemem.Observation) int { return x.Created.Compare(y.Created) })
	// The turn of each (+1: [0] is the preamble's), then each turn's
	// observations in one array.
	at := make([]int, len(obs))
	counts := make([]int, len(b.Turns)+1)
	for k, o := range obs {
		lo, hi := span(o.PromptNumber)
		at[k] = pick(lo, min(hi, len(b.Turns)), o.Created) + 1
		counts[at[k]]++
	}
	all := make([]Item, len(obs))
	placed := make([][]Item, len(counts))
	for i, start := range counts {
		placed[i], all = all[:0:start], all[start:]
	}
	for k, o := range obs {
		placed[at[k]] = append(placed[at[k]], Item{Kind: ItemObservation, ID: strconv.FormatInt(o.ID, 10), Text: observationLine(*o), Time: o.Created})
	}
	newest := obs[len(obs)-1].Created
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
			}
			out = append(out, it)
		}
		return out
	}
	b.Preamble.Happened = pend(mergeByTime(b.Preamble.Happened, placed[0]))
	for i := range b.Turns {
		b.Turns[i].Happened = pend(mergeByTime(b.Turns[i].Happened, placed[i+1]))
	}
	return len(s.Observations)
}

// turnPicker returns pick(lo, hi, at): the last turn j in (lo, hi) with a
// time not after at (turns without a time skipped), else lo. When the
// turns' times ascend, as in every transcript written in order, it is a
// binary search; otherwise a scan of the range.
func turnPicker(turns []Turn) func(lo, hi int, at time.Time) int {
	var timed []int // the turns with a time, in order
	ascending := true
	for j := range turns {
		if turns[j].Time.IsZero() {
			continue
		}
		if len(timed) > 0 && turns[j].Time.Before(turns[timed[len(timed)-1]].Time) {
			ascending = false
		}
		timed = append(timed, j)
	}
	if !ascending {
		return func(lo, hi int, at time.Time) int {
			pick := lo
			for j := lo + 1; j < hi; j++ {
				if !turns[j].Time.IsZero() && !at.Before(turns[j].Time) {
					pick = j
				}
			}
			return pick
		}
	}
	return func(lo, hi int, at time.Time) int {
		// The timed turns not after at are a prefix of timed; so are those
		// before hi: the last of both, if it lies after lo.
		k := sort.Search(len(timed), func(k int) bool { return turns[timed[k]].Time.After(at) })
		k = min(k, sort.SearchInts(timed, hi))
		if k > 0 && timed[k-1] > lo {
			return timed[k-1]
		}
		return lo
	}
}

// mergeByTime merges observations, in time order, into a turn's items:
// each before the first item newer than it, after the observations of the
// same time, so the items keep their file order and the observations
// their time order.
func mergeByTime(items, obs []Item) []Item {
	if len(obs) == 0 {
		return items
	}
	out := make([]Item, 0, len(items)+len(obs))
	k := 0
	for _, o := range obs {
		for k < len(items) && !items[k].Time.After(o.Time) {
			out = append(out, items[k])
			k++
		}
		out = append(out, o)
	}
	return append(out, items[k:]...)
}

// fromStored builds a reconstructed bottle from claude-mem's records alone
// (docs/format.md, "Reconstructed mode"): stored prompts as verbatim user turns, observations by prompt
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
