package fidelity

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"bottle/internal/measure/corpustest"
)

var (
	update = flag.Bool("update", false, "rewrite testdata/facts.golden")
	misses = flag.Bool("misses", false, "log every fact the bottles miss (go test -run TestFidelity -v -misses)")
)

// gates are the shares TestFidelity holds over the corpus's compactions.
// floor is enforced: the value measured when the measurement was built
// (the bottle of 65cdff6, which renders these transcripts as 7024cd5 did),
// rounded down, so that a change that loses facts fails. target is issue
// 15's goal for the bottle's improvements, reported while it is not met:
// raise floor as the bottle reaches it, and make it the floor once met.
var gates = []struct {
	class    Class
	together bool // the share found in summary + bottle, not the bottle alone
	floor    int
	target   int
}{
	{Prompts, false, 99, 99},  // met once replies folded before prompts
	{Edited, false, 100, 100}, // files changed before the six listed are named
	{Read, false, 100, 98},
	// Shortened digest lines keep a command's first 40 runes (74 -> 91 %)
	// and share lines instead of being cut to 28 (91 -> 98.9 %).
	{Commands, false, 98, 95},
	{Code, false, 98, 97}, // folded replies keep their code spans
	{Last, false, 100, 100},
	// A multi-line command's digest joins its lines (71 -> 77 %); edits
	// name the code they changed, agents' reports the files they cite,
	// path lists give way to more paths, commands name the files their
	// output cites (77 -> 82.5 %); failed commands name their failed
	// tests, the Commits line the last commit's trailers (85.3 %).
	{Needed, false, 85, 85},
	{Needed, true, 87, 90},
}

// Token gates: no bottle of the compactions over maxBottleTokens, their
// mean at most meanBottleTokens (docs/fidelity.md; both hold today).
const (
	maxBottleTokens  = 20000
	meanBottleTokens = 13000
)

// TestFidelity measures every compaction of the corpus, logs the table
// (go test -v and .ci/run show it) and holds the gates.
func TestFidelity(t *testing.T) {
	cs, err := Compactions(corpustest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("the corpus holds no compaction")
	}
	results := make([]Counts, 0, len(cs))
	for _, c := range cs {
		r, err := Measure(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	t.Logf("fidelity over the corpus's compactions (shares rounded to the nearest percent):\n\n%s\n%s", Report(results), Detail(results))
	if *misses {
		var b strings.Builder
		for _, r := range results {
			fmt.Fprintf(&b, "%s:\n", r.Name)
			for _, m := range r.Misses {
				fmt.Fprintf(&b, "\t%s\n", m)
			}
		}
		t.Logf("what the bottles miss:\n%s", b.String())
	}

	total := Total(results)
	for _, g := range gates {
		s := total.Classes[g.class]
		got, column := s.Bottle, "bottle"
		if g.together {
			got, column = s.Together, "summary + bottle"
		}
		if !AtLeast(got, s.Items, g.floor) {
			t.Errorf("%s, %s: %d of %d found (%.1f %%), below the floor of %d %%", g.class, column, got, s.Items, 100*float64(got)/float64(s.Items), g.floor)
		}
		if !AtLeast(got, s.Items, g.target) {
			t.Logf("target not yet met: %s, %s: %.1f %% (target %d %%)", g.class, column, 100*float64(got)/float64(s.Items), g.target)
		}
	}
	for _, r := range results {
		if r.BottleTokens > maxBottleTokens {
			t.Errorf("%s: bottle of %d est. tokens, over %d", r.Name, r.BottleTokens, maxBottleTokens)
		}
	}
	if m := mean(total.BottleTokens, len(results)); m > meanBottleTokens {
		t.Errorf("bottles of %d est. tokens on average, over %d", m, meanBottleTokens)
	}
}

// TestExtractGolden pins the extraction on a synthetic transcript with two
// compactions (testdata/corpus; refresh with -update), so that a change to
// what is measured shows as a golden diff.
func TestExtractGolden(t *testing.T) {
	cs, err := Compactions(filepath.Join("testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range cs {
		f, err := Extract(c)
		if err != nil {
			t.Fatal(err)
		}
		writeFacts(&b, c, f)
	}
	golden := filepath.Join("testdata", "facts.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("extracted facts differ from %s (run with -update if the change is meant):\n%s", golden, got)
	}
}

// writeFacts writes a compaction's facts, one quoted item a line.
func writeFacts(b *strings.Builder, c Compaction, f Facts) {
	fmt.Fprintf(b, "== %s (cwd %s, %d calls after, summary %d bytes, %d bytes before)\n", c.Name(), f.Cwd, f.Calls, len(c.Summary), len(c.Before))
	list := func(name string, items []string) {
		fmt.Fprintf(b, "%s: %d\n", name, len(items))
		for _, it := range items {
			fmt.Fprintf(b, "\t%q\n", it)
		}
	}
	for _, cl := range Classes() {
		list(cl.String(), f.Items[cl])
	}
	list("outside tool results", f.Visible)
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"cat /home/dev/proj/main.go", []string{"home/dev/proj/main.go"}},
		{"go test ./internal/net/... 2>&1", []string{"internal/net"}},
		{"git show 1a2b3c4d", []string{"1a2b3c4d"}},
		{"abcdef0 deadbeefdeadbeefdeadbeefdeadbeefdeadbeef0", []string{"abcdef0"}}, // 41 hex digits are not a hash
		{"ticket 123 and 4567", []string{"4567"}},                                  // 3+ digits, but 4 chars at least
		{"grep -n RetryPolicy fetch_once words", []string{"RetryPolicy", "fetch_once"}},
		{"--flag -- .hidden. ./x/ ...", nil}, // stripped of their dots, slashes and dashes, plain words
		{"v1.2 a.b.c README.md.", []string{"v1.2", "a.b.c", "README.md"}},
		{"iPhone HTTPServer", []string{"iPhone"}},
	}
	for _, tt := range tests {
		got := Tokens(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		name          string
		class         Class
		item          string
		summary, doc  string
		inSum, inBott int
	}{
		{"verbatim", Prompts, "Keep the API unchanged.", "", "> Keep the API unchanged.", 0, 1},
		{"case-sensitive", Code, "fetchOnce", "FetchOnce", "fetchonce", 0, 0},
		{"escaped document", Last, "# Session bottle is a heading", "", `\# Session bottle is a heading`, 0, 1},
		{"backslash in the fact", Commands, `grep -r "a\|b" .`, "", `grep -r "a|b" .`, 0, 1},
		{"project-relative path", Needed, "home/dev/proj/internal/net/fetch.go", "internal/net/fetch.go", "", 1, 0},
		{"relative form of another project", Needed, "home/dev/other/fetch.go", "fetch.go", "other/fetch.go", 0, 0},
		{"relative form only for needed", Read, "home/dev/proj/a.go", "a.go", "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Facts
			f.Cwd = "/home/dev/proj"
			f.Items[tt.class] = []string{tt.item}
			c := Count(f, tt.summary, tt.doc)
			s := c.Classes[tt.class]
			if s.Items != 1 || s.Summary != tt.inSum || s.Bottle != tt.inBott || s.Together != max(tt.inSum, tt.inBott) {
				t.Errorf("Count = %+v, want 1 item, %d in the summary, %d in the bottle", s, tt.inSum, tt.inBott)
			}
			var want []Miss
			if tt.inBott == 0 {
				want = []Miss{{Class: tt.class, Fact: tt.item, InSummary: tt.inSum == 1}}
			}
			if !slices.Equal(c.Misses, want) {
				t.Errorf("Misses = %v, want %v", c.Misses, want)
			}
		})
	}
}

func TestReport(t *testing.T) {
	var a, b Counts
	a.Classes[Needed] = Share{Items: 3, Summary: 1, Bottle: 2, Together: 3}
	b.Classes[Needed] = Share{Items: 1, Summary: 1, Bottle: 0, Together: 1}
	a.Ceiling, b.Ceiling = 2, 1
	a.Calls, b.Calls = 40, 6
	a.SummaryTokens, b.SummaryTokens = 4000, 3001
	a.BottleTokens, b.BottleTokens = 19740, 1500
	got := Report([]Counts{a, b})
	for _, want := range []string{
		"| needed | 4 | 50 % | 50 % | 100 % |",
		"| prompts | 0 | 0 % | 0 % | 0 % |",
		"2 compactions, 46 tool calls after them, 4 needed tokens; ceiling (needed tokens that occur before the boundary outside tool results) 75 %.",
		"summaries 3,501 on average, bottles 10,620 on average (max 19,740)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Report lacks %q:\n%s", want, got)
		}
	}
}
