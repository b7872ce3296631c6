package fidelity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"bottle/host/claudecode/transcript"
	"bottle/render"
	"bottle/session"
)

// Class is a fact class of the measurement.
type Class int

// The fact classes, in the order of the report.
const (
	Prompts  Class = iota // lines of genuine user prompts
	Edited                // base names of files edited or written
	Read                  // base names of files read
	Commands              // Bash commands: first line, first 40 chars
	Code                  // code spans in assistant text
	Last                  // the last assistant text, first 200 chars
	Needed                // tokens of the tool calls after the compaction
	NumClasses
)

var classNames = [NumClasses]string{"prompts", "edited", "read", "commands", "code", "last", "needed"}

// String is the class's name in the report.
func (c Class) String() string {
	if c < 0 || c >= NumClasses {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// Classes are the fact classes in report order.
func Classes() []Class {
	cs := make([]Class, NumClasses)
	for i := range cs {
		cs[i] = Class(i)
	}
	return cs
}

// The measurement's parameters (docs/fidelity.md, "The facts").
const (
	minPromptLine = 12  // runes of a prompt line, trimmed
	commandRunes  = 40  // runes of a command's first line
	minCode       = 4   // runes of a code span, at least
	maxCode       = 80  // and at most
	lastRunes     = 200 // runes of the last assistant text
	neededCalls   = 40  // tool calls after the compaction
	minToken      = 4   // bytes of a needed token
)

// Compaction is one compaction of a corpus transcript: a main-thread
// compact_boundary entry followed by its isCompactSummary entry.
type Compaction struct {
	Path    string    // the transcript
	Session string    // the transcript's file name without .jsonl
	N       int       // 1 for the file's first compaction, 2 for its second…
	Time    time.Time // the boundary's timestamp
	Before  []byte    // the transcript's lines before the boundary
	After   []byte    // its lines after the boundary
	Summary string    // the text of the isCompactSummary entry
}

// Name is the session's first 8 characters and the compaction's ordinal,
// e.g. "6113e919 #3".
func (c Compaction) Name() string {
	s := c.Session
	if len(s) > 8 {
		s = s[:8]
	}
	return fmt.Sprintf("%s #%d", s, c.N)
}

// entry is what the measurement reads of a transcript line.
type entry struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	IsSidechain      bool   `json:"isSidechain"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Timestamp        string `json:"timestamp"`
	Message          *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// block is a message content block.
type block struct {
	Type  string                     `json:"type"`
	Text  string                     `json:"text"`
	ID    string                     `json:"id"`
	Name  string                     `json:"name"`
	Input map[string]json.RawMessage `json:"input"`
}

// blocks returns a message content's blocks; a string content is one text
// block. Content that decodes as neither gives none.
func blocks(content json.RawMessage) []block {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	if json.Unmarshal(content, &bs) != nil {
		return nil
	}
	return bs
}

// lines calls f with each line of data and the offsets of its start and
// of the next line's start.
func lines(data []byte, f func(line []byte, start, next int)) {
	for start := 0; start < len(data); {
		end := bytes.IndexByte(data[start:], '\n')
		next := len(data)
		if end < 0 {
			end = len(data)
		} else {
			end += start
			next = end + 1
		}
		f(data[start:end], start, next)
		start = next
	}
}

// Compactions finds every compaction of the transcripts
// corpusDir/transcripts/*/*.jsonl (main files; subagent files lie deeper),
// in file name order and, within a file, in file order.
func Compactions(corpusDir string) ([]Compaction, error) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "transcripts", "*", "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no transcripts under %s", filepath.Join(corpusDir, "transcripts"))
	}
	var cs []Compaction
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read transcript %s: %w", p, err)
		}
		cs = append(cs, compactionsOf(p, data)...)
	}
	return cs, nil
}

// compactionsOf finds the compactions of one transcript.
func compactionsOf(p string, data []byte) []Compaction {
	var (
		cs       []Compaction
		boundary = -1 // offset of a boundary awaiting its summary
		after    int
		at       time.Time
	)
	session := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	lines(data, func(line []byte, start, next int) {
		var e entry
		if json.Unmarshal(line, &e) != nil || e.IsSidechain {
			return
		}
		switch {
		case e.Type == "system" && e.Subtype == "compact_boundary":
			boundary, after = start, next
			at, _ = time.Parse(time.RFC3339Nano, e.Timestamp)
		case e.Type == "user" && e.IsCompactSummary && boundary >= 0 && e.Message != nil:
			var text []string
			for _, b := range blocks(e.Message.Content) {
				if b.Type == "text" {
					text = append(text, b.Text)
				}
			}
			cs = append(cs, Compaction{
				Path: p, Session: session, N: len(cs) + 1, Time: at,
				Before: data[:boundary], After: data[after:],
				Summary: strings.Join(text, "\n\n"),
			})
			boundary = -1
		}
	})
	return cs
}

// toolCall is one main-thread tool_use.
type toolCall struct {
	Name  string
	Input map[string]json.RawMessage
}

// str is the string value of an input field, "" when absent or not a
// string.
func (tc toolCall) str(field string) string {
	var s string
	if raw, ok := tc.Input[field]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// toolCalls returns the distinct main-thread tool calls of data in file
// order (a tool_use id seen before is a duplicate), at most max of them
// (max < 0: all).
func toolCalls(data []byte, max int) []toolCall {
	var (
		calls []toolCall
		seen  = map[string]bool{}
	)
	lines(data, func(line []byte, _, _ int) {
		if max >= 0 && len(calls) >= max || !bytes.Contains(line, []byte(`"tool_use"`)) {
			return
		}
		var e entry
		if json.Unmarshal(line, &e) != nil || e.IsSidechain || e.Type != "assistant" || e.Message == nil {
			return
		}
		for _, b := range blocks(e.Message.Content) {
			if b.Type != "tool_use" || seen[b.ID] || max >= 0 && len(calls) >= max {
				continue
			}
			if b.ID != "" {
				seen[b.ID] = true
			}
			calls = append(calls, toolCall{Name: b.Name, Input: b.Input})
		}
	})
	return calls
}

// Facts are the facts of one compaction, per class, in first-seen order
// without repeats.
type Facts struct {
	// Cwd is the project folder: the transcript's first main-thread cwd.
	Cwd   string
	Items [NumClasses][]string
	// Visible are the needed tokens that occur before the boundary outside
	// tool results — with the tool_result blocks, the toolUseResult copies
	// and the progress lines (running output, subagent messages) taken out:
	// the ceiling, beyond which recall must come from digests of results.
	Visible []string
	// Calls is the number of tool calls after the compaction that the
	// needed tokens come from (at most 40).
	Calls int
}

// set collects strings in first-seen order without repeats.
type set struct {
	items []string
	seen  map[string]bool
}

func (s *set) add(v string) {
	if v == "" || s.seen[v] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[v] = true
	s.items = append(s.items, v)
}

// codeSpan matches a backtick pair and what lies between on one line.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// Extract takes the facts of a compaction: prompts, code spans and the
// last text (the last non-blank assistant text block) from the transcript
// reader's events of the lines before the boundary, the files and commands
// from their main-thread tool calls, the needed tokens from the first 40
// main-thread tool calls after it (crossing a later compaction, as the
// session did).
func Extract(c Compaction) (Facts, error) {
	t, err := transcript.ReadFrom(bytes.NewReader(c.Before), &session.ReadOptions{NoDigests: true})
	if err != nil {
		return Facts{}, fmt.Errorf("read transcript %s: %w", c.Path, err)
	}
	f := Facts{Cwd: t.Cwd}
	var sets [NumClasses]set
	last := ""
	for _, ev := range t.Events {
		switch ev.Kind {
		case session.EvPrompt:
			for _, l := range strings.Split(ev.Text, "\n") {
				if l = strings.TrimSpace(l); utf8.RuneCountInString(l) >= minPromptLine {
					sets[Prompts].add(l)
				}
			}
		case session.EvAssistant:
			for _, b := range ev.Blocks {
				for _, m := range codeSpan.FindAllString(b, -1) {
					if n := utf8.RuneCountInString(m) - 2; n >= minCode && n <= maxCode {
						sets[Code].add(m[1 : len(m)-1])
					}
				}
				if strings.TrimSpace(b) != "" {
					last = b
				}
			}
		}
	}
	sets[Last].add(prefix(strings.TrimSpace(last), lastRunes))
	for _, tc := range toolCalls(c.Before, -1) {
		switch tc.Name {
		case "Edit", "Write", "MultiEdit":
			sets[Edited].add(base(tc.str("file_path")))
		case "NotebookEdit":
			sets[Edited].add(base(tc.str("notebook_path")))
		case "Read":
			sets[Read].add(base(tc.str("file_path")))
		case "Bash":
			first, _, _ := strings.Cut(strings.TrimSpace(tc.str("command")), "\n")
			sets[Commands].add(prefix(strings.TrimSpace(first), commandRunes))
		}
	}
	next := toolCalls(c.After, neededCalls)
	f.Calls = len(next)
	outside := outsideToolResults(c.Before)
	for _, tc := range next {
		for _, field := range neededFields {
			for _, tok := range Tokens(tc.str(field)) {
				if bytes.Contains(c.Before, []byte(tok)) && !sets[Needed].seen[tok] {
					sets[Needed].add(tok)
					if bytes.Contains(outside, []byte(tok)) {
						f.Visible = append(f.Visible, tok)
					}
				}
			}
		}
	}
	for i := range sets {
		f.Items[i] = sets[i].items
	}
	return f, nil
}

// neededFields are the tool input fields whose string values hold the
// needed tokens.
var neededFields = []string{"file_path", "path", "notebook_path", "pattern", "glob", "command", "query", "url", "prompt", "description"}

// prefix is s cut to its first n runes.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// base is a path's last element ("" for "").
func base(p string) string {
	if p == "" {
		return ""
	}
	return path.Base(strings.ReplaceAll(p, `\`, "/"))
}

// outsideToolResults is data with the tool results taken out: progress
// lines (a running tool's output, a subagent's messages) are dropped, and
// each other line loses its toolUseResult and the tool_result blocks of
// its message.
func outsideToolResults(data []byte) []byte {
	var out bytes.Buffer
	lines(data, func(line []byte, _, _ int) {
		if !bytes.Contains(line, []byte(`"progress"`)) && !bytes.Contains(line, []byte(`"tool_result"`)) && !bytes.Contains(line, []byte(`"toolUseResult"`)) {
			out.Write(line)
			out.WriteByte('\n')
			return
		}
		var e map[string]json.RawMessage
		if json.Unmarshal(line, &e) != nil {
			out.Write(line)
			out.WriteByte('\n')
			return
		}
		var typ string
		_ = json.Unmarshal(e["type"], &typ)
		if typ == "progress" {
			return
		}
		delete(e, "toolUseResult")
		var msg map[string]json.RawMessage
		if json.Unmarshal(e["message"], &msg) == nil {
			var content []json.RawMessage
			if json.Unmarshal(msg["content"], &content) == nil {
				kept := content[:0]
				for _, b := range content {
					var k struct {
						Type string `json:"type"`
					}
					if json.Unmarshal(b, &k) != nil || k.Type != "tool_result" {
						kept = append(kept, b)
					}
				}
				msg["content"], _ = json.Marshal(kept)
				e["message"], _ = json.Marshal(msg)
			}
		}
		b, _ := json.Marshal(e)
		out.Write(b)
		out.WriteByte('\n')
	})
	return out.Bytes()
}

// Tokens are the needed tokens of a tool input value: maximal runs of
// [A-Za-z0-9_./-] stripped of leading and trailing '.', '/' and '-', at
// least 4 bytes long, that contain a '/', a '.', a '_' or a lower-to-upper
// case change, or are 7–40 hex digits, or 3 or more decimal digits.
func Tokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		if !tokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		if tok := strings.Trim(s[i:j], "./-"); len(tok) >= minToken && salient(tok) {
			toks = append(toks, tok)
		}
		i = j
	}
	return toks
}

// tokenByte reports whether b may be part of a token.
func tokenByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_' || b == '.' || b == '/' || b == '-'
}

// salient reports whether a token (already trimmed) looks like a path, a
// file, an identifier, a hash or a number rather than a word.
func salient(tok string) bool {
	if strings.ContainsAny(tok, "/._") {
		return true
	}
	hex, digits := true, true
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if i > 0 && 'a' <= tok[i-1] && tok[i-1] <= 'z' && 'A' <= c && c <= 'Z' {
			return true
		}
		d := '0' <= c && c <= '9'
		digits = digits && d
		hex = hex && (d || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F')
	}
	return digits && len(tok) >= 3 || hex && len(tok) >= 7 && len(tok) <= 40
}

// Share is what one class counts over one or more compactions.
type Share struct {
	Items    int // facts
	Summary  int // found in Claude Code's summary
	Bottle   int // found in the bottle
	Together int // found in either
}

func (s *Share) add(o Share) {
	s.Items += o.Items
	s.Summary += o.Summary
	s.Bottle += o.Bottle
	s.Together += o.Together
}

// Counts is the measurement of one compaction.
type Counts struct {
	Name    string // Compaction.Name
	Calls   int    // tool calls after the compaction read (≤ 40)
	Classes [NumClasses]Share
	// Ceiling counts the needed tokens that occur before the boundary
	// outside tool results.
	Ceiling int
	// SummaryTokens and BottleTokens are the documents' estimated tokens
	// (UTF-8 bytes ÷ 3).
	SummaryTokens, BottleTokens int
	// Misses are the facts the bottle lacks, in class order.
	Misses []Miss
}

// Miss is a fact the bottle lacks: its class, the fact, whether Claude
// Code's summary holds it and, for a needed token, whether it occurs
// before the boundary outside tool results.
type Miss struct {
	Class     Class
	Fact      string
	InSummary bool
	Visible   bool
}

// String is the miss as the misses report lists it.
func (m Miss) String() string {
	s := fmt.Sprintf("%s %q", m.Class, m.Fact)
	if m.InSummary {
		s += " (in the summary)"
	}
	if m.Class == Needed && !m.Visible {
		s += " (only in tool results)"
	}
	return s
}

// Count looks for the facts in Claude Code's summary and in the bottle:
// a fact is found when it occurs in the document, case-sensitive, both
// with their backslashes removed (the bottle's escaping adds some, and a
// fact holding one, such as a command's \", would otherwise never match).
func Count(f Facts, summary, bottle string) Counts {
	c := Counts{Calls: f.Calls, Ceiling: len(f.Visible), SummaryTokens: len(summary) / 3, BottleTokens: len(bottle) / 3}
	summary, bottle = strings.ReplaceAll(summary, `\`, ""), strings.ReplaceAll(bottle, `\`, "")
	for cl, items := range f.Items {
		sh := &c.Classes[cl]
		for _, it := range items {
			it = strings.ReplaceAll(it, `\`, "")
			inS, inB := found(summary, it, f.Cwd, Class(cl)), found(bottle, it, f.Cwd, Class(cl))
			sh.Items++
			sh.Summary += b2i(inS)
			sh.Bottle += b2i(inB)
			sh.Together += b2i(inS || inB)
			if !inB {
				c.Misses = append(c.Misses, Miss{Class: Class(cl), Fact: it, InSummary: inS, Visible: slices.Contains(f.Visible, it)})
			}
		}
	}
	return c
}

// found reports whether a fact occurs in doc (backslashes already
// removed); a needed path under the project folder cwd may occur
// project-relative.
func found(doc, item, cwd string, cl Class) bool {
	if strings.Contains(doc, item) {
		return true
	}
	if cl == Needed && cwd != "" {
		// Tokens lose their leading '/': so does the project folder.
		if rel, ok := strings.CutPrefix(item, strings.Trim(cwd, "/")+"/"); ok && rel != "" {
			return strings.Contains(doc, rel)
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Measure measures one compaction: it takes its facts, renders the bottle
// of the lines before the boundary (render.Render, default budget, no
// database, the boundary's time as the render time) from a temporary copy
// of them, and counts.
func Measure(ctx context.Context, c Compaction) (Counts, error) {
	f, err := Extract(c)
	if err != nil {
		return Counts{}, err
	}
	dir, err := os.MkdirTemp("", "fidelity-")
	if err != nil {
		return Counts{}, err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, c.Session+".jsonl")
	if err := os.WriteFile(p, c.Before, 0o600); err != nil {
		return Counts{}, fmt.Errorf("write transcript %s: %w", p, err)
	}
	res, err := render.Render(ctx, render.Options{TranscriptPath: p, Now: c.Time, Location: time.UTC})
	if err != nil {
		return Counts{}, fmt.Errorf("render %s: %w", c.Name(), err)
	}
	n := Count(f, c.Summary, string(res.Markdown))
	n.Name = c.Name()
	return n, nil
}

// Total pools the counts of several compactions (Name "total"; the token
// fields are sums).
func Total(results []Counts) Counts {
	t := Counts{Name: "total"}
	for _, r := range results {
		for i := range t.Classes {
			t.Classes[i].add(r.Classes[i])
		}
		t.Calls += r.Calls
		t.Ceiling += r.Ceiling
		t.SummaryTokens += r.SummaryTokens
		t.BottleTokens += r.BottleTokens
	}
	return t
}

// Percent is 100·n/d rounded to the nearest whole percent (0 when d is
// 0), as the report shows it.
func Percent(n, d int) int {
	if d == 0 {
		return 0
	}
	return (200*n + d) / (2 * d)
}

// AtLeast reports whether n/d is at least pct percent (an empty class
// holds every gate).
func AtLeast(n, d, pct int) bool {
	return d == 0 || 100*n >= pct*d
}

// Report is the pooled table of the results: per class the facts and the
// shares found in the summary, the bottle and the two together, then the
// ceiling and the tokens.
func Report(results []Counts) string {
	t := Total(results)
	var b strings.Builder
	fmt.Fprintf(&b, "| fact class | facts | Claude Code's summary | bottle | summary + bottle |\n|---|--:|--:|--:|--:|\n")
	for _, cl := range Classes() {
		s := t.Classes[cl]
		fmt.Fprintf(&b, "| %s | %d | %d %% | %d %% | %d %% |\n", cl, s.Items,
			Percent(s.Summary, s.Items), Percent(s.Bottle, s.Items), Percent(s.Together, s.Items))
	}
	n := t.Classes[Needed].Items
	maxB := 0
	for _, r := range results {
		maxB = max(maxB, r.BottleTokens)
	}
	fmt.Fprintf(&b, "\n%d compactions, %d tool calls after them, %d needed tokens; ceiling (needed tokens that occur before the boundary outside tool results) %d %%.\n",
		len(results), t.Calls, n, Percent(t.Ceiling, n))
	fmt.Fprintf(&b, "Tokens (UTF-8 bytes ÷ 3): summaries %s on average, bottles %s on average (max %s).\n",
		thousands(mean(t.SummaryTokens, len(results))), thousands(mean(t.BottleTokens, len(results))), thousands(maxB))
	return b.String()
}

// Detail is the per-compaction table: tool calls after it, needed tokens,
// the shares of them found and the documents' tokens.
func Detail(results []Counts) string {
	var b strings.Builder
	b.WriteString("| compaction | calls after | needed | summary | bottle | together | ceiling | summary tokens | bottle tokens |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range results {
		s := r.Classes[Needed]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %s | %s |\n", r.Name, r.Calls, s.Items, s.Summary, s.Bottle, s.Together, r.Ceiling,
			thousands(r.SummaryTokens), thousands(r.BottleTokens))
	}
	return b.String()
}

// mean is sum/n rounded to the nearest integer (0 when n is 0).
func mean(sum, n int) int {
	if n == 0 {
		return 0
	}
	return (sum + n/2) / n
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
