package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/ident"
	"bottle/render/structural"
)

func TestExpandFixtures(t *testing.T) {
	expand := func(fixture string, ids ...string) []Expansion {
		t.Helper()
		got, err := Expand(context.Background(), ExpandOptions{TranscriptPath: filepath.Join("testdata", fixture+".jsonl"), Location: time.UTC}, ids)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := expand("basic", "t1", "#u1", "a1", "t2", "u9", "nonsense", "4242")
	want := []struct {
		found    bool
		contains string
	}{
		{true, "\"pattern\": \"**/*.go\""},
		{true, "List the Go files in this project."},
		{true, "I'll look.\n\nThere are two: `main.go` and `util.go`."},
		{false, "no such tool call"},
		{false, "no such turn"},
		{false, "not a bottle id"},
		{false, "no claude-mem database (observation ids come from claude-mem"},
	}
	for i, w := range want {
		text := got[i].Text + got[i].Missing
		if got[i].Found != w.found || !strings.Contains(text, w.contains) {
			t.Errorf("Expand(%s) = found %v, %q; want found %v containing %q", got[i].ID, got[i].Found, text, w.found, w.contains)
		}
	}
	if !strings.Contains(got[0].Text, "/home/dev/proj/main.go") {
		t.Errorf("t1 lacks its result:\n%s", got[0].Text)
	}
	for _, e := range expand("private", "t1", "u2", "a2", "u3", "u4") {
		if strings.Contains(e.Text, "SECRET") {
			t.Errorf("Expand(%s) leaks private text: %q", e.ID, e.Text)
		}
	}
	mid := expand("tool-result-text", "u1")[0]
	if mid.Text != "Deploy it.\n\nmy github user is khaong" {
		t.Errorf("u1 = %q, want the prompt and the mid-turn text", mid.Text)
	}
	pre := expand("no-prompt", "u0", "a0")
	if !strings.Contains(pre[0].Text, "/review the parser") || pre[1].Text != "The parser looks fine." {
		t.Errorf("preamble expansions = %+v", pre)
	}
}

// idsIn lists every id a bottle names: [#id] tags, the id ranges that tag a
// folded turn's calls and folded id lists.
var (
	tagRE   = regexp.MustCompile(`\[#([a-z]?[0-9]+)\]`)
	rangeRE = regexp.MustCompile(`#([a-z]?)([0-9]+)–#[a-z]?([0-9]+)|#([a-z]?[0-9]+)`)
)

func idsIn(md string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, m := range tagRE.FindAllStringSubmatch(md, -1) {
		add(m[1])
	}
	for _, l := range strings.Split(md, "\n") {
		// A folded turn's calls are tagged with their id ranges.
		if tag, ok := strings.CutPrefix(l, "- [#"); ok {
			l, _, _ = strings.Cut("#"+tag, "]")
		} else if !strings.HasPrefix(l, "- ↳ folded: ") {
			continue
		}
		for _, m := range rangeRE.FindAllStringSubmatch(l, -1) {
			if m[2] != "" {
				a, _ := strconv.Atoi(m[2])
				b, _ := strconv.Atoi(m[3])
				for i := a; i <= b; i++ {
					add(m[1] + strconv.Itoa(i))
				}
			} else {
				add(m[4])
			}
		}
	}
	return out
}

// assistantBlock returns the Assistant text of turn n in an unfolded bottle.
func assistantBlock(md string, n int) string {
	secs := sections(md)
	if n < 1 || n >= len(secs) {
		return ""
	}
	sec := secs[n]
	i := strings.Index(sec, "\n**Assistant** (")
	if i < 0 {
		return ""
	}
	body := sec[i+1:]
	body = body[strings.Index(body, "\n\n")+2:]
	return strings.TrimSuffix(body[:strings.LastIndex(body, "\n---\n")], "\n")
}

// checkFolding pins the folding rules (docs/format.md, "The budget") on one transcript: within budget (or only
// the verbatim tail over it), the last prompt and final assistant message
// verbatim, every id expands, and folded turns expand to what the unfolded
// bottle shows.
func checkFolding(t *testing.T, path string, budget int) *Result {
	t.Helper()
	o := Options{TranscriptPath: path, Now: fixedNow, Location: time.UTC, BudgetTokens: budget}
	res, err := Render(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.NoBudget = true
	full, err := Render(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	md := string(res.Markdown)
	tr, _ := transcript.Read(context.Background(), path, nil)
	b := fromTranscript(tr)
	if len(b.Turns) > 0 {
		last := &b.Turns[len(b.Turns)-1]
		if p := strings.TrimRight(Verbatim(last.Prompt), "\n"); strings.TrimSpace(p) != "" && !strings.Contains(md, p) {
			t.Errorf("last prompt is not verbatim")
		}
		if len(last.Reply) > 0 && !strings.Contains(md, strings.TrimRight(Verbatim(last.Reply[len(last.Reply)-1]), "\n")) {
			t.Errorf("final assistant message is not verbatim")
		}
		if !strings.Contains(md, "## Original request\n\n"+strings.TrimRight(Verbatim(b.Turns[0].Prompt), "\n")) && strings.TrimSpace(clean(b.Turns[0].Prompt)) != "" {
			t.Errorf("Original request is not verbatim")
		}
	}
	if res.Tokens > budget || res.Lines > MaxLines {
		// Only what is never folded may be over: the header with the
		// Original request, and the last turn.
		secs := sections(md)
		rest := len(md) - len(secs[0]) - len(secs[len(secs)-1])
		if EstimateTokens(rest) > budget/4 {
			t.Errorf("bottle is %d tokens / %d lines, over budget %d, and its folded middle alone is %d tokens", res.Tokens, res.Lines, budget, EstimateTokens(rest))
		}
	}
	ids := idsIn(md)
	exps, err := Expand(context.Background(), ExpandOptions{TranscriptPath: path, Location: time.UTC}, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		if !e.Found {
			t.Errorf("id %s in the bottle does not expand: %s", e.ID, e.Missing)
			continue
		}
		if kind, _, n := ident.Parse(e.ID); kind == ident.Assistant && n > 0 {
			if want := assistantBlock(string(full.Markdown), int(n)); structural.Escape(e.Text) != want {
				t.Errorf("%s expands to %.80q, the unfolded bottle shows %.80q", e.ID, e.Text, want)
			}
		}
	}
	return res
}

func TestFoldingCorpus(t *testing.T) {
	for _, path := range corpusTranscripts(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			checkFolding(t, path, DefaultBudgetTokens)
			checkFolding(t, path, 2000) // a tight budget folds nearly everything
		})
	}
}

func longSession(t *testing.T, turns int) string {
	t.Helper()
	var lines []string
	for i := 1; i <= turns; i++ {
		ts := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		lines = append(lines,
			fmt.Sprintf(`{"type":"user","uuid":"u%d","timestamp":%q,"sessionId":"long","message":{"role":"user","content":%q}}`, i, ts, fmt.Sprintf("prompt %d: %s", i, strings.Repeat("words ", 60))),
			fmt.Sprintf(`{"type":"assistant","uuid":"a%d","timestamp":%q,"message":{"id":"m%d","content":[{"type":"text","text":%q},{"type":"tool_use","id":"tool%d","name":"Bash","input":{"command":"make test-%d"}}]}}`, i, ts, i, fmt.Sprintf("reply %d: %s", i, strings.Repeat("answer ", 80)), i, i),
			fmt.Sprintf(`{"type":"user","uuid":"r%d","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tool%d","content":"ok"}]}}`, i, ts, i))
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFoldingLongSession(t *testing.T) {
	res := checkFolding(t, longSession(t, 300), DefaultBudgetTokens)
	if res.Folded == 0 || res.Tokens > DefaultBudgetTokens || res.Lines > MaxLines {
		t.Errorf("folded %d turns; %d tokens, %d lines", res.Folded, res.Tokens, res.Lines)
	}
	if !strings.Contains(string(res.Markdown), "- ↳ folded: turns 1–") {
		t.Errorf("oldest turns not grouped")
	}
	mid := checkFolding(t, longSession(t, 40), 8000)
	if !strings.Contains(string(mid.Markdown), "- [#u1] User (00:01): prompt 1: words words") {
		t.Errorf("with a larger budget the oldest turn is not folded to a [#u1] line")
	}
}
