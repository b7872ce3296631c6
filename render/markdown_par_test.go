package render

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/internal/racemode"
	"bottle/render/digest"
)

// checkSplits compares the parallel markdown of b, at every split point
// (about 40 of them in bottles of more turns) and at the one markdownPar
// picks, with the serial markdown. It returns how many splits were written
// in parallel.
func checkSplits(t *testing.T, name string, b *Bottle, loc *time.Location) int {
	return checkSomeSplits(t, name, b, loc, 40)
}

// checkSomeSplits is checkSplits at every split of bottles of up to most
// turns and at about most splits of larger ones.
func checkSomeSplits(t *testing.T, name string, b *Bottle, loc *time.Location, most int) int {
	t.Helper()
	want := markdownSerial(b, loc)
	if got := markdown(b, loc); !bytes.Equal(got, want) {
		t.Fatalf("%s: markdown differs from the serial markdown\n%s", name, firstDiff(got, want))
	}
	par := 0
	step := max(1, len(b.Turns)/most)
	for s := 0; s <= len(b.Turns); s++ {
		if s%step != 1%step {
			continue
		}
		// Size hints as markdownPar gives them (mostly large enough),
		// none, and too small for one half or the other.
		h1, h2 := 4096+len(b.Notes)*128+turnHint(&b.Preamble), 0
		for i := range b.Turns {
			if i < s {
				h1 += turnHint(&b.Turns[i])
			} else {
				h2 += turnHint(&b.Turns[i])
			}
		}
		for _, h := range [][2]int{{h1, h2}, {0, 0}, {h1, 1}, {1, h2}, {len(want), len(want)}} {
			got, ok := markdownSplit(b, loc, s, h[0], h[1])
			if !ok {
				break
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: split at %d of %d (hints %v) differs\n%s", name, s, len(b.Turns), h, firstDiff(got, want))
			}
		}
		if _, ok := markdownSplit(b, loc, s, h1, h2); ok {
			par++
		}
	}
	return par
}

func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("at byte %d:\ngot:  %q\nwant: %q", i, got[lo:min(len(got), i+200)], want[lo:min(len(want), i+200)])
}

// randBottle builds a bottle whose turns cross midnight often, with zero
// times, compaction notes (whose times print), mid-turn text and folds.
func randBottle(r *rand.Rand, n int, mode Mode, folds bool) *Bottle {
	base := time.Date(2026, 3, 7, 22, 30, 0, 0, time.UTC)
	at := base
	when := func() time.Time {
		if r.IntN(5) == 0 {
			return time.Time{}
		}
		// Steps of up to ~5 hours: midnight falls between many turns,
		// sometimes inside one.
		at = at.Add(time.Duration(r.IntN(300)) * time.Minute)
		return at
	}
	b := &Bottle{SessionID: "s", Project: "/p", Mode: mode, Rendered: base.Add(1000 * time.Hour)}
	if r.IntN(3) > 0 {
		b.Started = base.Add(-time.Duration(r.IntN(48)) * time.Hour)
	}
	// Folded turns count repeated calls; "" falls back to the digest's tool.
	calls := []digest.Line{
		digest.Parts{Tool: "Read", Kind: digest.KindPath, Subject: "/a/b.go", Outcome: "10 lines"}.Line(),
		digest.Parts{Tool: "Read", Kind: digest.KindPath, Subject: "/a/c.go", Outcome: "10 lines"}.Line(),
		digest.Parts{Tool: "Read", Outcome: "10 lines"}.Line(),
		digest.Parts{Tool: "Edit", Kind: digest.KindPath, Subject: strings.Repeat("é", 90)}.Line(),
	}
	ls := digest.Parts{Tool: "Bash", Kind: digest.KindCommand, Subject: "ls"}.Line()
	mkTurn := func(nth int) Turn {
		t := Turn{N: nth, Time: when()}
		if r.IntN(6) > 0 {
			t.Prompt = fmt.Sprintf("prompt %d\n---\n**User** (x)\nline\r\nmore", nth)
		}
		for k := r.IntN(3); k > 0; k-- {
			t.MidTurn = append(t.MidTurn, Said{Time: when(), Command: r.IntN(2) == 0, Text: "said " + strings.Repeat("w ", r.IntN(5))})
		}
		for k := r.IntN(6); k > 0; k-- {
			switch r.IntN(5) {
			case 0:
				t.Happened = append(t.Happened, Item{Kind: ItemNote, Text: "─── context compacted here ───", Time: when()})
			case 1:
				t.Happened = append(t.Happened, Item{Kind: ItemNote, Text: "interrupted by the user", Time: when()})
			case 2:
				t.Happened = append(t.Happened, Item{Kind: ItemObservation, ID: fmt.Sprint(100 + k), Text: "obs", Time: when()})
			case 3:
				t.Happened = append(t.Happened, Item{Kind: ItemPending, ID: fmt.Sprintf("t%d", k), Line: &ls, Time: when()})
			default:
				t.Happened = append(t.Happened, Item{Kind: ItemTool, ID: fmt.Sprintf("t%d", k), Line: &calls[r.IntN(len(calls))], Time: when()})
			}
		}
		if r.IntN(4) > 0 {
			t.ReplyTime = when()
			for k := 1 + r.IntN(2); k > 0; k-- {
				t.Reply = append(t.Reply, "reply\n- ↳ forged\nend")
			}
		}
		if mode == ModeReconstructed && r.IntN(2) == 0 {
			t.Summaries = []Summary{{Request: "req", Completed: "done", Time: when()}}
		}
		if folds {
			switch r.IntN(6) {
			case 0:
				t.fold = foldMessages
			case 1:
				t.fold = foldAll
			case 2, 3:
				t.fold = foldGroup
			}
		}
		return t
	}
	if r.IntN(2) == 0 {
		b.Preamble = mkTurn(0)
		b.Preamble.Prompt = ""
		if b.Preamble.fold == foldGroup {
			b.Preamble.fold = foldNone
		}
	}
	for i := 1; i <= n; i++ {
		b.Turns = append(b.Turns, mkTurn(i))
	}
	return b
}

func TestMarkdownParallelRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	locs := []*time.Location{time.UTC, time.FixedZone("X", -7*3600-30*60), time.FixedZone("Y", 13*3600)}
	par, iters := 0, 300
	if racemode.Enabled {
		iters = 100 // .ci/run checks all 300 without the race detector
	}
	for iter := 0; iter < iters; iter++ {
		mode := ModeFull
		if iter%3 == 1 {
			mode = ModeReconstructed
		}
		b := randBottle(r, 1+r.IntN(40), mode, iter%2 == 1)
		par += checkSplits(t, fmt.Sprintf("iter %d", iter), b, locs[iter%len(locs)])
	}
	if par < 1000*iters/300 {
		t.Fatalf("only %d splits written in parallel", par)
	}
}

// TestMarkdownParallelMidnight splits right after a turn that crosses
// midnight, and after turns that print no time at all.
func TestMarkdownParallelMidnight(t *testing.T) {
	d := func(day, h, m int) time.Time { return time.Date(2026, 1, day, h, m, 0, 0, time.UTC) }
	b := &Bottle{SessionID: "s", Started: d(1, 23, 0), Mode: ModeFull}
	b.Turns = []Turn{
		{N: 1, Time: d(1, 23, 10), Prompt: "a", Reply: []string{"r"}, ReplyTime: d(2, 0, 5)},
		{N: 2, Prompt: "zero times"},
		{N: 3, Time: d(2, 0, 30), Prompt: "b", Happened: []Item{{Kind: ItemNote, Text: "─── context compacted here ───", Time: d(3, 1, 0)}}},
		{N: 4, Prompt: "c", MidTurn: []Said{{Time: d(3, 2, 0), Text: "m"}}},
		{N: 5, Prompt: "d"},
		{N: 6, Time: d(4, 9, 0), Prompt: "e"},
		{N: 7, Time: d(4, 23, 59), Prompt: "f", ReplyTime: d(5, 0, 0), Reply: []string{"g"}},
		{N: 8, Time: d(5, 0, 1), Prompt: "h"},
	}
	for _, mode := range []Mode{ModeFull, ModeReconstructed} {
		b.Mode = mode
		if n := checkSplits(t, "midnight", b, time.UTC); n != len(b.Turns)-1 {
			t.Fatalf("%d splits written in parallel, want %d", n, len(b.Turns)-1)
		}
		checkSplits(t, "midnight -1h", b, time.FixedZone("W", -3600))
	}
	// No time before the split: the second half starts from Started, or
	// from nothing.
	b.Turns[0] = Turn{N: 1, Prompt: "a"}
	checkSplits(t, "no times", b, time.UTC)
	b.Started = time.Time{}
	checkSplits(t, "no start", b, time.UTC)
}

// transcriptSplits is how many splits of a generated transcript's bottle
// TestMarkdownParallelTranscript compares: every split point of small
// bottles is TestMarkdownParallelRandom's; here it is the size and the
// shapes of real-like turns that count.
const transcriptSplits = 10

// TestMarkdownParallelTranscript renders large generated transcripts, as
// they are and with their times spread across days, in full and
// reconstructed mode and within budgets.
func TestMarkdownParallelTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("large transcripts")
	}
	splits := transcriptSplits
	if racemode.Enabled {
		splits = 3 // .ci/run checks all of them without the race detector
	}
	for _, size := range []int64{12 << 20, 32 << 20} {
		tr, err := transcript.ReadFrom(bytes.NewReader(genTranscript(t, size)), nil)
		if err != nil {
			t.Fatal(err)
		}
		b := fromTranscript(tr)
		if _, ok := markdownPar(b, time.UTC); !ok && size > 16<<20 {
			t.Fatalf("%d bytes: not written in parallel", size)
		}
		checkSomeSplits(t, "generated", b, time.UTC, splits)
		// Spread the turns over days: every few turns a new day starts,
		// some at the split.
		r := rand.New(rand.NewPCG(uint64(size), 3))
		shift := time.Duration(0)
		for i := range b.Turns {
			shift += time.Duration(r.IntN(14)) * time.Hour
			tu := &b.Turns[i]
			move := func(at *time.Time) {
				if !at.IsZero() {
					*at = at.Add(shift)
				}
			}
			move(&tu.Time)
			move(&tu.ReplyTime)
			for k := range tu.MidTurn {
				move(&tu.MidTurn[k].Time)
			}
			for k := range tu.Happened {
				move(&tu.Happened[k].Time)
			}
			if r.IntN(10) == 0 {
				tu.Time, tu.ReplyTime = time.Time{}, time.Time{}
			}
		}
		checkSomeSplits(t, "days", b, time.FixedZone("Z", 5*3600+45*60), splits)
		rec := *b
		rec.Mode = ModeReconstructed
		checkSomeSplits(t, "reconstructed", &rec, time.UTC, splits)
		// Budgets fold the oldest turns; compare the folded bottle too.
		for _, budget := range []int{20000, 200000} {
			c := *b
			c.Turns = append([]Turn(nil), b.Turns...)
			fitBudget(&c, time.UTC, budget, false)
			checkSomeSplits(t, fmt.Sprintf("budget %d", budget), &c, time.UTC, splits)
		}
	}
}
