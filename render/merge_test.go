package render

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"bottle/claudemem"
	"bottle/host/claudecode/transcript"
)

// refPlace is the merge as it was before the one-pass merge: each
// observation, in time order, inserted one at a time into the turn its
// prompt number and time pick, scanning the turns and items. The one-pass
// merge must place every observation where it did.
func refPlace(b *Bottle, s *claudemem.Session) {
	align := alignPrompts(b.Turns, s.Prompts)
	var numbers []int
	for n := range align {
		numbers = append(numbers, n)
	}
	slices.Sort(numbers)
	obs := slices.Clone(s.Observations)
	slices.SortStableFunc(obs, func(x, y claudemem.Observation) int { return x.Created.Compare(y.Created) })
	for _, o := range obs {
		lo, hi := -1, len(b.Turns)
		for _, k := range numbers {
			if k <= o.PromptNumber {
				lo = align[k]
			} else {
				hi = align[k]
				break
			}
		}
		if o.PromptNumber <= 0 {
			lo = -1
		}
		if hi <= lo {
			hi = lo + 1
		}
		at := lo
		for j := lo + 1; j < hi && j < len(b.Turns); j++ {
			if !b.Turns[j].Time.IsZero() && !o.Created.Before(b.Turns[j].Time) {
				at = j
			}
		}
		it := Item{Kind: ItemObservation, ID: strconv.FormatInt(o.ID, 10), Text: observationLine(o), Time: o.Created}
		t := &b.Preamble
		if at >= 0 {
			t = &b.Turns[at]
		}
		i := len(t.Happened)
		for j := range t.Happened {
			if t.Happened[j].Time.After(it.Time) {
				i = j
				break
			}
		}
		t.Happened = slices.Insert(t.Happened, i, it)
	}
}

// TestMergeObservationsPlacement compares the merge with refPlace on random
// sessions: prompts stored or skipped, numbers repeated, turns without a
// time or out of order, observations out of order, of equal times and of
// unknown prompts.
func TestMergeObservationsPlacement(t *testing.T) {
	base := time.Date(2026, 1, 27, 9, 0, 0, 0, time.UTC)
	at := func(r *rand.Rand) time.Time { return base.Add(time.Duration(r.IntN(600)) * time.Second) }
	for seed := range uint64(300) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			ordered := seed%3 != 0
			build := func() *Bottle {
				r := rand.New(rand.NewPCG(seed, 2))
				b := &Bottle{}
				n := r.IntN(6)
				for i := range n {
					turn := Turn{N: i + 1, Prompt: "prompt " + strconv.Itoa(i%4)}
					switch {
					case r.IntN(5) == 0:
					case ordered:
						turn.Time = base.Add(time.Duration(i*100) * time.Second)
					default:
						turn.Time = at(r)
					}
					for k := range r.IntN(4) {
						turn.Happened = append(turn.Happened, Item{Kind: ItemNote, Text: fmt.Sprintf("note %d.%d", i, k), Time: at(r)})
					}
					b.Turns = append(b.Turns, turn)
				}
				b.Preamble.Happened = []Item{{Kind: ItemNote, Text: "preamble", Time: at(r)}}
				return b
			}
			s := &claudemem.Session{}
			for k := range r.IntN(5) {
				if r.IntN(4) > 0 {
					s.Prompts = append(s.Prompts, claudemem.Prompt{Number: k + 1 - r.IntN(2), Text: "prompt " + strconv.Itoa(r.IntN(5))})
				}
			}
			for k := range 1 + r.IntN(30) {
				s.Observations = append(s.Observations, claudemem.Observation{ID: int64(100 + k), PromptNumber: r.IntN(7) - 1,
					Title: "obs " + strconv.Itoa(k), Created: base.Add(time.Duration(r.IntN(60)*10) * time.Second)})
			}
			got, want := build(), build()
			mergeObservations(got, &transcript.Transcript{}, s)
			refPlace(want, s)
			// Digests give way in both alike; the notes here are not tools.
			if g, w := lines(got), lines(want); !slices.Equal(g, w) {
				t.Errorf("got\n%q\nwant\n%q", g, w)
			}
		})
	}
}

// lines lists a bottle's items, turn by turn.
func lines(b *Bottle) []string {
	var out []string
	add := func(name string, t *Turn) {
		for _, it := range t.Happened {
			out = append(out, name+": "+it.ID+" "+it.Text)
		}
	}
	add("preamble", &b.Preamble)
	for i := range b.Turns {
		add("turn "+strconv.Itoa(i+1), &b.Turns[i])
	}
	return out
}
