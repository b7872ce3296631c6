package digest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"bottle/internal/measure/corpustest"
)

// corpusCall is a Call with the working directory of its session.
type corpusCall struct {
	Call
	cwd string
}

// loaded holds loadCalls' answers by path: several tests walk the same
// corpus, and decoding it is most of what they would each spend (under
// -race especially). The calls are shared: tests must not change them.
var loaded sync.Map // path → []corpusCall

// loadCalls reads every tool call of one transcript, in file order, paired
// with its result. It is a test-only reader: just enough of the format to
// find tool_use and tool_result blocks.
func loadCalls(t *testing.T, path string) []corpusCall {
	t.Helper()
	if calls, ok := loaded.Load(path); ok {
		return calls.([]corpusCall)
	}
	calls := readCalls(t, path)
	loaded.Store(path, calls)
	return calls
}

func readCalls(t *testing.T, path string) []corpusCall {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type block struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	type entry struct {
		Cwd     string `json:"cwd"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		ToolUseResult json.RawMessage `json:"toolUseResult"`
	}
	var calls []corpusCall
	byID := map[string]int{}
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var e entry
			var blocks []block
			if json.Unmarshal(line, &e) == nil && json.Unmarshal(e.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					switch b.Type {
					case "tool_use":
						if _, dup := byID[b.ID]; dup {
							continue
						}
						byID[b.ID] = len(calls)
						calls = append(calls, corpusCall{Call{ID: b.ID, Name: b.Name, Input: b.Input}, e.Cwd})
					case "tool_result":
						i, ok := byID[b.ToolUseID]
						if !ok {
							continue
						}
						c := &calls[i].Call
						c.HasResult, c.Result, c.IsError = true, resultText(b.Content), b.IsError
						if len(e.ToolUseResult) > 0 && string(e.ToolUseResult) != "null" {
							c.Structured = e.ToolUseResult
						}
					}
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return calls
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// resultText is tool_result content as Call.Result wants it.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n")
}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(corpustest.Dir(t), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCorpus digests every tool call of every corpus transcript, with and
// without the structured result, and checks the invariants of a digest.
func TestCorpus(t *testing.T) {
	type tally struct{ calls, errors, noResult int }
	counts := map[string]*tally{}
	total := 0
	for _, path := range corpusFiles(t) {
		for _, cc := range loadCalls(t, path) {
			total++
			n := counts[cc.Name]
			if n == nil {
				n = &tally{}
				counts[cc.Name] = n
			}
			n.calls++
			if cc.IsError {
				n.errors++
			}
			if !cc.HasResult {
				n.noResult++
			}
			bare := cc.Call
			bare.Structured = nil
			lim := LineMax(cc.Name)
			for _, d := range []struct {
				got string
				max int
			}{
				{fullLine(cc.Call, cc.cwd), lim}, {fullLine(bare, cc.cwd), lim},
				{Pending(cc.Call, cc.cwd), MaxRunes}, {Salient(cc.Call, cc.cwd), MaxRunes},
			} {
				if err := checkDigest(d.got, d.max); err != nil {
					t.Errorf("%s %s %s: %v: %q", filepath.Base(path), cc.ID, cc.Name, err, d.got)
				}
			}
			if got := fullLine(cc.Call, cc.cwd); !strings.HasPrefix(got, toolName(cc.Name)) {
				t.Errorf("%s %s: Line = %q, want it to start with the tool name", filepath.Base(path), cc.ID, got)
			}
		}
	}
	if total == 0 {
		t.Fatal("no tool calls found in the corpus")
	}
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if d := counts[b].calls - counts[a].calls; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d tool calls\n%-40s %6s %6s %9s\n", total, "tool", "calls", "errors", "no result")
	for _, name := range names {
		n := counts[name]
		fmt.Fprintf(&b, "%-40s %6d %6d %9d\n", name, n.calls, n.errors, n.noResult)
	}
	t.Log("\n" + b.String())
}

// checkDigest reports a digest that breaks an invariant: longer than max
// runes, more than one line, invalid UTF-8, or padded with spaces.
func checkDigest(s string, max int) error {
	switch {
	case utf8.RuneCountInString(s) > max:
		return fmt.Errorf("%d runes, want at most %d", utf8.RuneCountInString(s), max)
	case strings.ContainsAny(s, "\n\r"):
		return errors.New("contains a line break")
	case !utf8.ValidString(s):
		return errors.New("invalid UTF-8")
	case s != strings.TrimSpace(s):
		return errors.New("leading or trailing space")
	}
	return nil
}
