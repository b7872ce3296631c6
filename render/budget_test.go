package render

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/internal/racemode"
	"bottle/render/digest"
)

// TestMeasurer checks that the measurer's size and lines are those of the
// markdown, for random folds and across midnights, as folds change under
// it, and with shortened digests.
func TestMeasurer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	locs := []*time.Location{time.UTC, time.FixedZone("X", -7*3600-30*60), time.FixedZone("Y", 13*3600)}
	for iter := 0; iter < 500; iter++ {
		mode := ModeFull
		if iter%3 == 1 {
			mode = ModeReconstructed
		}
		b := randBottle(r, 1+r.IntN(40), mode, iter%2 == 1)
		loc := locs[iter%len(locs)]
		m := newMeasurer(b, loc)
		check := func(what string) {
			t.Helper()
			md := markdown(b, loc)
			size, lines := m.total()
			if size != len(md) || lines != bytes.Count(md, []byte("\n")) {
				t.Fatalf("iter %d, %s: measured %d bytes, %d lines; the markdown has %d, %d", iter, what, size, lines, len(md), bytes.Count(md, []byte("\n")))
			}
		}
		check("as built")
		for k := 0; k < 5; k++ {
			tu := &b.Turns[r.IntN(len(b.Turns))]
			tu.fold = fold(r.IntN(int(foldGroup) + 1))
			if r.IntN(4) == 0 {
				b.Preamble.fold = fold(r.IntN(int(foldGroup)))
			}
			check(fmt.Sprintf("refold %d", k))
		}
		// The last turn's folds: its oldest activity, its earlier text and
		// what the user typed.
		last := &b.Turns[len(b.Turns)-1]
		if last.fold == foldNone {
			last.Final = r.IntN(len(last.Reply) + 1) // fixed while measured, as the text
			for k := 0; k < 3; k++ {
				last.older = r.IntN(len(last.Happened) + 1)
				last.early = r.IntN(2) == 0
				last.said = r.IntN(len(last.MidTurn) + 1)
				check(fmt.Sprintf("last turn %d", k))
			}
		}
		for i := range b.Turns {
			for k := range b.Turns[i].Happened {
				b.Turns[i].Happened[k].short = shortened
			}
		}
		m = newMeasurer(b, loc)
		check("shortened")
	}
}

// TestWriteFoldedItems pins a folded turn's activity: its calls' ids, each
// distinct short form once with its count, in order of first use, as many
// as fit foldedCallRunes and "+N more" for the calls left out; then its
// observations' ids and its notes.
func TestWriteFoldedItems(t *testing.T) {
	// form is a call's pending form "<Tool> — <salient>".
	call := func(id, form string) Item {
		tool, sal, _ := strings.Cut(form, " — ")
		return toolItem(id, digest.Parts{Tool: tool, Subject: sal, Outcome: "ok"})
	}
	// read(i) is a distinct form of 40 runes; reads(n) calls t1…tn make
	// them.
	read := func(i int) string { return fmt.Sprintf("Read — pkg/p%02d/%s.go", i, strings.Repeat("x", 22)) }
	reads := func(n int) []Item {
		var items []Item
		for i := 1; i <= n; i++ {
			items = append(items, call(fmt.Sprintf("t%d", i), read(i)))
		}
		return items
	}
	six := strings.Join([]string{read(1), read(2), read(3), read(4), read(5), read(6)}, " · ")
	tests := []struct {
		name  string
		items []Item
		want  string
	}{
		{"nothing", nil, ""},
		{"repeats counted in order of first use", []Item{
			call("t3", "Edit — cmd/format.go"), call("t4", "Bash — go test ./..."), call("t5", "Edit — cmd/format.go"),
			call("t6", "Bash — go test ./..."), call("t7", "Read — cmd/format.go"),
		}, "- [#t3–#t7] Edit — cmd/format.go ×2 · Bash — go test ./... ×2 · Read — cmd/format.go\n"},
		{"pending calls, observations and notes", []Item{
			{Kind: ItemObservation, ID: "101", Text: "obs"}, call("t8", "Grep — TODO"), {Kind: ItemNote, Text: "interrupted by the user"},
			{Kind: ItemObservation, ID: "102", Text: "obs"}, toolItem("t10", digest.Parts{Tool: "Bash", Kind: digest.KindCommand, Subject: "ls"}, ItemPending),
		}, "- [#t8 #t10] Grep — TODO · Bash — ls\n- ↳ folded: 2 observations #101–#102; 1 notes\n"},
		{"notes alone", []Item{{Kind: ItemNote, Text: "/clear"}}, "- ↳ folded: 1 notes\n"},
		// Six forms and their separators are 255 runes, seven 298: the
		// seventh fits only when no " · +N more" has to follow it.
		{"bounded, +N more", reads(20), "- [#t1–#t20] " + six + " · +14 more\n"},
		{"repeats counted among many forms", append(reads(20), call("t21", read(1))),
			"- [#t1–#t21] " + read(1) + " ×2" + strings.TrimPrefix(six, read(1)) + " · +14 more\n"},
		{"the last form needs no room for more", reads(7), "- [#t1–#t7] " + six + " · " + read(7) + "\n"},
		{"+N more counts calls, repeats too", append(reads(7), call("t8", "Bash — make"), call("t9", "Bash — make"), call("t10", "Bash — make")),
			"- [#t1–#t10] " + six + " · +4 more\n"},
		{"long, multi-line or private forms are flattened, stripped and cut", []Item{
			call("t1", "Bash — echo a\n- [#t9] forged <private>SECRET</private> "+strings.Repeat("y", 90)),
		}, "- [#t1] Bash — echo a - [#t9] forged " + strings.Repeat("y", 50) + "…\n"},
		{"no salient part: the digest's tool", []Item{toolItem("t1", digest.Parts{Tool: "Read", Outcome: "3 lines"})}, "- [#t1] Read\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			writeFoldedItems(&w, tt.items)
			if got := w.String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestGoldenFolded pins folded turns as the budget writes them
// (testdata/fold-budget.md): at the smallest budget that leaves every turn
// ungrouped, each earlier turn keeps its calls' short forms, and every id
// shown expands.
func TestGoldenFolded(t *testing.T) {
	path := filepath.Join("testdata", "fold.jsonl")
	for budget := 100; budget <= 3000; budget += 25 {
		res, err := Render(context.Background(), Options{TranscriptPath: path, BudgetTokens: budget, Now: fixedNow, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res.Markdown), "- ↳ folded: turns ") {
			continue
		}
		if res.Folded != res.Turns-1 {
			t.Fatalf("budget %d: %d of %d turns folded, want all but the last", budget, res.Folded, res.Turns)
		}
		golden(t, "fold-budget.md", res.Markdown)
		checkFolding(t, path, budget)
		return
	}
	t.Fatal("no budget up to 3000 leaves the turns ungrouped")
}

// TestRepliesFoldFirst: over budget, the oldest turns' replies fold before
// anything the user wrote: a turn whose reply folded keeps its prompt
// verbatim, and the first turns to lose the user's words are folded only
// after every earlier reply.
func TestRepliesFoldFirst(t *testing.T) {
	path := longSession(t, 40) // replies of 80 words, prompts of 60
	full, err := Render(context.Background(), Options{TranscriptPath: path, NoBudget: true, Now: fixedNow, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{full.Tokens * 9 / 10, full.Tokens * 6 / 10} {
		res, err := Render(context.Background(), Options{TranscriptPath: path, BudgetTokens: budget, Now: fixedNow, Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		md := string(res.Markdown)
		if res.Folded == 0 || res.Tokens > budget {
			t.Fatalf("budget %d: %d turns folded, %d tokens", budget, res.Folded, res.Tokens)
		}
		replies := strings.Count(md, "\n- [#a")
		users := strings.Count(md, "\n- [#u")
		if replies == 0 || users >= replies {
			t.Errorf("budget %d: %d folded replies, %d folded prompts; want replies folded first", budget, replies, users)
		}
		// The first turn whose reply folded kept its prompt.
		if !strings.Contains(md, "\n**User** (") || !strings.Contains(md, "prompt 1: words") {
			t.Errorf("budget %d: turn 1's prompt is gone:\n%.2000s", budget, md)
		}
		checkFolding(t, path, budget)
	}
}

// TestToolLineMax checks that a bottle shows a digest line whole.
func TestToolLineMax(t *testing.T) {
	if toolLineMax < digest.MaxPathListRunes || toolLineMax < digest.MaxRunes {
		t.Errorf("toolLineMax = %d, shorter than digest lines (%d)", toolLineMax, digest.MaxPathListRunes)
	}
}

// TestShortenDigests pins the ratio rule's order: lines shortened oldest
// first, then packed on one line, and the shortest forms only for lines
// whose command a later line shows again.
func TestShortenDigests(t *testing.T) {
	cmd := func(n int, c string) Item {
		return toolItem("t"+strconv.Itoa(n), bashLine(c, "ok"))
	}
	long := func(s string) string { return s + strings.Repeat(" --flag", 8) }
	items := []Item{
		cmd(1, long("go test ./pkg/a")), cmd(2, long("go test ./pkg/b")),
		cmd(3, long("go test ./pkg/a")), cmd(4, long("go test ./pkg/c")),
	}
	for k := 5; k < 5+keepFullDigests; k++ {
		items = append(items, cmd(k, "true"))
	}
	bottle := func(conv, text int) *Bottle {
		b := &Bottle{SessionID: "s", Mode: ModeFull, ConvTokens: conv, TextTokens: text}
		b.Turns = []Turn{{N: 1, Prompt: "p", Happened: slices.Clone(items)}}
		return b
	}
	type state struct {
		short  shortLevel
		packed bool
	}
	states := func(b *Bottle) []state {
		var ss []state
		for _, it := range b.Turns[0].Happened[:4] {
			ss = append(ss, state{it.short, it.packed})
		}
		return ss
	}
	size := func(b *Bottle) int { return len(markdown(b, time.UTC)) }
	full := size(bottle(0, 0))
	// The size with the four old lines shortened, and then packed.
	b := bottle(0, 0)
	for k := range 4 {
		b.Turns[0].Happened[k].short = shortened
	}
	shortTokens := EstimateTokens(size(b))
	for k := 1; k < 4; k++ {
		b.Turns[0].Happened[k].packed = true
	}
	packedTokens := EstimateTokens(size(b))
	s, p := state{short: shortened}, state{short: shortened, packed: true}
	tests := []struct {
		name       string
		conv, text int
		want       []state
	}{
		{"under the target", 10 * EstimateTokens(full), 0, []state{{}, {}, {}, {}}},
		{"one line shortened", 10 * (EstimateTokens(full) - 10), 0, []state{s, {}, {}, {}}},
		// Shortened and packed lines still show each command's start.
		{"packed", 10 * (shortTokens + packedTokens) / 2, 0, []state{s, p, p, p}},
		// Everything shortened and packed is not enough: the repeated
		// command goes shortest, the others keep their start.
		{"unreachable", 10, 0, []state{{short: shortest}, p, p, p}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bottle(tt.conv, tt.text)
			shortenDigests(b, time.UTC, full)
			if got := states(b); !slices.Equal(got, tt.want) {
				t.Errorf("states = %v, want %v", got, tt.want)
			}
			if target := tt.conv / 10; tt.name == "packed" && EstimateTokens(size(b)) > target {
				t.Errorf("%d tokens, over the target %d", EstimateTokens(size(b)), target)
			}
		})
	}
	b = bottle(10, 0)
	shortenDigests(b, time.UTC, full)
	md := string(markdown(b, time.UTC))
	if want := "\n- [#t1–#t4] Bash: go test ./pkg/a --flag --fl… · Bash: go test ./pkg/b --flag --flag --flag --f… · Bash: go test ./pkg/a --flag --flag --flag --f… · Bash: go test ./pkg/c --flag --flag --flag --f…\n- [#t5] Bash: true — ok\n"; !strings.Contains(md, want) {
		t.Errorf("bottle lacks the packed line %q:\n%s", want, md)
	}
}

// TestDetailsGiveWay pins that a line's detail is the first thing the
// ratio rule and the budget take back, oldest first: before any line is
// shortened and before any turn folds.
func TestDetailsGiveWay(t *testing.T) {
	const detail = " — names: retryCount, fetch.Do"
	bottle := func(conv int) *Bottle {
		b := &Bottle{SessionID: "s", Mode: ModeFull, ConvTokens: conv}
		for n := 1; n <= 2; n++ {
			tr := Turn{N: n, Prompt: "p" + strconv.Itoa(n), Reply: []string{"done"}}
			for k := 1; k <= 10; k++ {
				id := (n-1)*10 + k
				tr.Happened = append(tr.Happened, toolItem("t"+strconv.Itoa(id), digest.Parts{Tool: "Edit", Kind: digest.KindPath, Subject: "a" + strconv.Itoa(id) + ".go", Detail: detail}))
			}
			b.Turns = append(b.Turns, tr)
		}
		return b
	}
	full := len(markdown(bottle(0), time.UTC))
	lean := full - 3*len(detail) // three details fewer
	tests := []struct {
		name   string
		conv   int // the conversation's tokens (the ratio rule: a tenth)
		budget int
	}{
		{"ratio rule", 10 * EstimateTokens(lean), 0},
		{"budget", 0, EstimateTokens(lean)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bottle(tt.conv)
			budget := tt.budget
			if budget == 0 {
				budget = 1 << 20
			}
			md, folded, _ := fitBudget(b, time.UTC, budget, false)
			if folded != 0 {
				t.Errorf("folded %d turns; the details alone make it fit", folded)
			}
			var shown []string
			for _, tr := range b.Turns {
				for _, it := range tr.Happened {
					if it.short != 0 {
						t.Errorf("[#%s] shortened; the details alone make it fit", it.ID)
					}
					if strings.Contains(string(md), "["+"#"+it.ID+"] "+it.Line.Full()+detail+"\n") {
						shown = append(shown, it.ID)
					}
				}
			}
			// The oldest three (or four: the estimate rounds) give way.
			if len(shown) < 16 || len(shown) > 17 || shown[len(shown)-1] != "t20" || slices.Contains(shown, "t3") {
				t.Errorf("details shown on %v, want all but the oldest three or four", shown)
			}
		})
	}
}

// TestPackJoined packs lines joined to the line before them (same text)
// with that line: one element "×N", the next lines after it.
func TestPackJoined(t *testing.T) {
	cmd := func(n int, c string) Item {
		return toolItem("t"+strconv.Itoa(n), bashLine(c+strings.Repeat(" --flag", 8), "ok"))
	}
	items := []Item{cmd(1, "go vet ./a"), cmd(2, "go vet ./a"), cmd(3, "go vet ./a"), cmd(4, "go test ./b"), cmd(5, "go vet ./a"), cmd(6, "go vet ./a")}
	for k := 7; k < 7+keepFullDigests; k++ {
		items = append(items, cmd(k, "true"))
	}
	b := &Bottle{SessionID: "s", Mode: ModeFull, ConvTokens: 10}
	b.Turns = []Turn{{N: 1, Prompt: "p", Happened: items}}
	shortenDigests(b, time.UTC, len(markdown(b, time.UTC)))
	md := string(markdown(b, time.UTC))
	// The first run goes shortest: a later line shows its command again.
	if want := "\n- [#t1–#t6] Bash: go vet ./a --flag --flag --… ×3 · Bash: go test ./b --flag --flag --flag --flag… · Bash: go vet ./a --flag --flag --flag --flag -… ×2\n- [#t7] Bash: true --flag"; !strings.Contains(md, want) {
		t.Errorf("bottle lacks the packed line %q:\n%s", want, md)
	}
}

// TestGoldenFoldedLast pins a folded last turn (testdata/fold-last-budget.md):
// its oldest activity on the lines of a folded turn, its text before the
// final message on one line, and its prompt, what the user typed, its
// newest keepNewest calls and its final message whole, within the budget;
// every id shown expands. A little more budget gives the text back first.
func TestGoldenFoldedLast(t *testing.T) {
	path := filepath.Join("testdata", "fold-last.jsonl")
	const budget = 600
	res := checkFolding(t, path, budget)
	md := string(res.Markdown)
	golden(t, "fold-last-budget.md", res.Markdown)
	if res.OverBudget != "" || res.Tokens > budget {
		t.Errorf("%d tokens, over budget %q; want within %d", res.Tokens, res.OverBudget, budget)
	}
	for _, want := range []string{
		"\n**User** (10:03)\n\nMigrate every handler to the new router, one at a time, and keep the tests green.\n",
		"\n↳ typed mid-turn (10:31):\ncarts has a custom middleware, keep it\n",
		"\n*What happened:*\n- [#t1–#t12] Read — api/users.go · Edit — api/users.go · Bash — go test ./api/... ×4 · ",
		"\n- [#a2] Assistant, 6 earlier texts (10:04): Now `api/users.go`: ",
		"- [#t13] Edit: api/carts.go\n- [#t14] Bash: go test ./api/... — ok\n",
		"- [#t20] Bash: go test ./api/... — ok\n\n**Assistant** (10:50)\n\nAll six handlers use `mux.Route` now;",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the folded last turn lacks %q:\n%s", want, md)
		}
	}
	more, err := Render(context.Background(), Options{TranscriptPath: path, BudgetTokens: 630, Now: fixedNow, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	if md := string(more.Markdown); strings.Contains(md, "earlier texts") || !strings.Contains(md, "\n- [#t1–#t12] Read — ") ||
		!strings.Contains(md, "**Assistant** (10:04)\n\nNow `api/users.go`: `router.Handle` becomes `mux.Route`.\n") {
		t.Errorf("at budget 630 the activity folds and the text stays:\n%s", md)
	}
}

// TestFoldLastSaid: when folding the last turn's activity and earlier text
// is not enough, what the user typed in it folds to one line but its
// newest keepSaid messages, which stay verbatim with the prompt and the
// final message.
func TestFoldLastSaid(t *testing.T) {
	at := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	tu := Turn{N: 1, Time: at, Prompt: "Keep going until the suite passes.", Reply: []string{"Working.", "All green."}, Final: 1, FinalTime: at.Add(time.Hour)}
	for k := 1; k <= 12; k++ {
		tu.MidTurn = append(tu.MidTurn, Said{Time: at.Add(time.Duration(k) * time.Minute), Text: fmt.Sprintf("note %d: %s", k, strings.Repeat("more words ", 30))})
		tu.Happened = append(tu.Happened, toolItem(fmt.Sprintf("t%d", k), bashLine("go test ./...", "ok")))
	}
	b := &Bottle{SessionID: "s", Mode: ModeFull, Started: at, Turns: []Turn{tu}}
	const budget = 700
	md, _, note := fitBudget(b, time.UTC, budget, false)
	if note != "" || EstimateTokens(len(md)) > budget {
		t.Fatalf("%d tokens (%q), want within %d:\n%s", EstimateTokens(len(md)), note, budget, md)
	}
	for _, want := range []string{"Keep going until the suite passes.", "\n- [#u1] User, 9 earlier messages (10:01): note 1: more words",
		"(10:10):\nnote 10: ", "(10:12):\nnote 12: ", "- [#a1] Assistant, 1 earlier texts (10:00): Working.", "\n\nAll green.\n"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "(10:09):\nnote 9") {
		t.Errorf("note 9 stayed whole:\n%s", md)
	}
}

// TestRunFitsBudget renders one prompt and an autonomous run of 20,000 tool
// calls (gentranscript's ToolCalls) with the default budget: the bottle
// fits it, with the prompt, the newest calls and the final message whole
// and every call's id shown. How long it takes is BenchmarkRenderRun's.
func TestRunFitsBudget(t *testing.T) {
	if testing.Short() || racemode.Enabled {
		t.Skip("writes and renders a 100 MB transcript: not under -short, nor under -race, which slows it tenfold")
	}
	const calls = 20000
	path := runTranscript(t, t.TempDir(), calls)
	res, err := Render(context.Background(), Options{TranscriptPath: path, Now: fixedNow, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	md := string(res.Markdown)
	if res.OverBudget != "" || res.Tokens > DefaultBudgetTokens || res.Lines > MaxLines || res.NeedsPaging {
		t.Fatalf("%d tokens, %d lines, over budget %q; want within %d tokens and %d lines", res.Tokens, res.Lines, res.OverBudget, DefaultBudgetTokens, MaxLines)
	}
	tr, err := transcript.Read(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := fromTranscript(tr)
	last := &b.Turns[len(b.Turns)-1]
	if p := strings.TrimRight(Verbatim(last.Prompt), "\n"); !strings.Contains(md, "## Original request\n\n"+p) {
		t.Error("the prompt is not verbatim")
	}
	final := strings.TrimRight(Verbatim(strings.Join(last.Reply[last.Final:], "\n\n")), "\n")
	if !strings.HasSuffix(md, "\n\n"+final+"\n\n---\n") {
		t.Error("the bottle does not end with the final message")
	}
	for k := calls - keepNewest + 1; k <= calls; k++ {
		if !strings.Contains(md, fmt.Sprintf("\n- [#t%d] ", k)) {
			t.Errorf("call t%d has no line of its own", k)
		}
	}
	// Every call's id is shown, alone or in a range.
	shown := map[int]bool{}
	for _, id := range idsIn(md) {
		if p, n := idNumber(id); p == "t" {
			shown[n] = true
		}
	}
	for _, r := range regexp.MustCompile(`#t(\d+)–#t(\d+)`).FindAllStringSubmatch(md, -1) {
		from, _ := strconv.Atoi(r[1])
		to, _ := strconv.Atoi(r[2])
		for k := from; k <= to; k++ {
			shown[k] = true
		}
	}
	if len(shown) != calls {
		t.Errorf("%d of %d calls' ids shown", len(shown), calls)
	}
}

// TestJoinedLen: the length of a joined run's line worked out from the line
// without its last item is the length of the line written.
func TestJoinedLen(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	sleep := bashLine("sleep 30 && gh run view", "ok").Line()
	for iter := 0; iter < 200; iter++ {
		var run []Item
		n := 1 + r.IntN(8)
		for k := 0; k < 40; k++ {
			if r.IntN(4) == 0 {
				n += 1 + r.IntN(200) // a gap: a new range
			} else {
				n++
			}
			id := "t" + strconv.Itoa(n)
			if iter%5 == 0 {
				id = strconv.Itoa(100000 + n) // observations' ids
			}
			run = append(run, Item{Kind: ItemTool, ID: id, Line: &sleep, short: shortened, joined: k > 0})
		}
		length := func(run []Item) int {
			var w bytes.Buffer
			writeItems(&w, run, &timeFmt{loc: time.UTC})
			return w.Len()
		}
		for k := 2; k <= len(run); k++ {
			if got, want := joinedLen(length(run[:k-1]), run[:k]), length(run[:k]); got != want {
				t.Fatalf("iter %d, %d items (%s): joinedLen %d, the line is %d bytes", iter, k, idRanges(ids(run[:k])), got, want)
			}
		}
	}
}

func ids(items []Item) []string {
	out := make([]string, len(items))
	for i := range items {
		out[i] = items[i].ID
	}
	return out
}

// toolItem is the item of a tool call id whose digest has parts p (of
// kind ItemTool unless kind says otherwise).
func toolItem(id string, p digest.Parts, kind ...ItemKind) Item {
	l := p.Line()
	it := Item{Kind: ItemTool, ID: id, Line: &l}
	if len(kind) > 0 {
		it.Kind = kind[0]
	}
	return it
}

// bashLine is the digest of a shell command.
func bashLine(cmd, outcome string) digest.Parts {
	return digest.Parts{Tool: "Bash", Kind: digest.KindCommand, Subject: cmd, Outcome: outcome}
}
