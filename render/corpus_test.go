package render

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/internal/measure/corpustest"
	"bottle/workstate"
)

// corpusTranscripts lists the main-thread transcripts of the corpus
// (subagent files under <session>/subagents are not sessions).
func corpusTranscripts(tb testing.TB) []string {
	tb.Helper()
	root := filepath.Join(corpustest.Dir(tb), "transcripts")
	files, err := filepath.Glob(filepath.Join(root, "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no transcripts under %s: %v", root, err)
	}
	return files
}

// expected is what an independent, deliberately simple reading of a
// transcript says must and must not appear in its bottle.
type expected struct {
	prompts   []string // genuine prompts (joined text blocks)
	midTurn   []string
	assistant []string // assistant text blocks
	forbidden []string // tool_result, thinking and compact-summary texts
	turns     int
}

func readExpected(t *testing.T, path string) expected {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var e expected
	seen := map[string]bool{}
	br := bufio.NewReaderSize(f, 1<<20)
	for {
		ln, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(ln)) > 0 {
			var d map[string]any
			if json.Unmarshal(ln, &d) == nil {
				e.add(d, seen)
			}
		}
		if err != nil {
			break
		}
	}
	return e
}

func (e *expected) add(d map[string]any, seen map[string]bool) {
	typ, _ := d["type"].(string)
	if side, _ := d["isSidechain"].(bool); side {
		return
	}
	if u, _ := d["uuid"].(string); u != "" {
		if seen[u] {
			return
		}
		seen[u] = true
	}
	msg, _ := d["message"].(map[string]any)
	if msg == nil {
		return
	}
	switch typ {
	case "assistant":
		if m, _ := msg["model"].(string); m == "<synthetic>" {
			return
		}
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			switch bm["type"] {
			case "text":
				if s, _ := bm["text"].(string); strings.TrimSpace(s) != "" {
					e.assistant = append(e.assistant, s)
				}
			case "thinking":
				if s, _ := bm["thinking"].(string); len(s) > 40 {
					e.forbidden = append(e.forbidden, s)
				}
			}
		}
	case "user":
		if cs, _ := d["isCompactSummary"].(bool); cs {
			if s, ok := msg["content"].(string); ok {
				e.forbidden = append(e.forbidden, s)
			}
			return
		}
		var texts []string
		hasResult := false
		images := 0
		switch c := msg["content"].(type) {
		case string:
			texts = append(texts, c)
		case []any:
			for _, b := range c {
				bm, _ := b.(map[string]any)
				switch bm["type"] {
				case "text":
					s, _ := bm["text"].(string)
					if strings.HasPrefix(s, "<ide_") || strings.HasPrefix(s, "<system-reminder>") {
						continue
					}
					texts = append(texts, s)
				case "image":
					images++
				case "tool_result":
					hasResult = true
					if s, ok := bm["content"].(string); ok && len(s) > 80 {
						e.forbidden = append(e.forbidden, s)
					}
				}
			}
		}
		if hasResult {
			for _, s := range texts {
				if strings.TrimSpace(s) != "" && !strings.HasPrefix(s, "[Request interrupted") {
					e.midTurn = append(e.midTurn, s)
				}
			}
			return
		}
		if meta, _ := d["isMeta"].(bool); meta {
			return
		}
		text := strings.Join(texts, "\n\n")
		tt := strings.TrimSpace(text)
		if strings.HasPrefix(tt, "[Request interrupted") || strings.HasPrefix(tt, "Caveat:") || (tt == "" && images == 0) {
			return
		}
		for _, tag := range []string{"<command-", "<local-command-", "<bash-", "<task-notification", "<agent-notification"} {
			if strings.HasPrefix(tt, tag) {
				return
			}
		}
		e.prompts = append(e.prompts, text)
		e.turns++
	}
}

func TestCorpusFullMode(t *testing.T) {
	for _, path := range corpusTranscripts(t) {
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			res, err := Render(context.Background(), Options{TranscriptPath: path, Now: time.Unix(0, 0), Location: time.UTC, NoBudget: true})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			md := string(res.Markdown)
			want := readExpected(t, path)
			if got := strings.Count(md, "\n**User** ("); got != want.turns {
				t.Errorf("**User** headings = %d, want %d (turns)", got, want.turns)
			}
			if got := strings.Count(md, "\n**Assistant** ("); got != want.turns {
				t.Errorf("**Assistant** headings = %d, want %d (turns)", got, want.turns)
			}
			if res.Turns != want.turns {
				t.Errorf("Result.Turns = %d, want %d", res.Turns, want.turns)
			}
			check := func(kind string, texts []string) {
				for _, s := range texts {
					v := strings.TrimRight(Verbatim(s), "\n")
					if strings.TrimSpace(v) == "" {
						continue
					}
					if !strings.Contains(md, v) {
						t.Errorf("%s text missing from the bottle: %.120q", kind, v)
					}
				}
			}
			check("prompt", want.prompts)
			check("mid-turn", want.midTurn)
			check("assistant", want.assistant)
			// Digest lines and the working state quote tool inputs (paths,
			// commands), which a later result may repeat; digests are
			// checked by package digest, the working state by its goldens.
			var body []string
			for _, l := range strings.Split(md, "\n") {
				if !strings.HasPrefix(l, "- [#t") && !isStateLine(l) {
					body = append(body, l)
				}
			}
			bodyText := strings.Join(body, "\n")
			for _, s := range want.forbidden {
				// A forbidden text may legitimately share a line with a
				// message (the model quoting a file it read); test its
				// longest line that no message contains.
				line := distinctiveLine(s, want)
				if line != "" && strings.Contains(bodyText, line) {
					t.Errorf("bottle contains tool-result/thinking/summary text: %.120q", line)
				}
			}
			if strings.Contains(strings.ToLower(md), "<private>") {
				t.Errorf("bottle contains a <private> tag")
			}
		})
	}
}

// distinctiveLine returns the longest line of s (≥ 40 bytes) that appears in
// no prompt or assistant text, or "".
func distinctiveLine(s string, e expected) string {
	best := ""
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if len(l) < 40 || len(l) <= len(best) {
			continue
		}
		inMsg := false
		for _, group := range [][]string{e.prompts, e.assistant, e.midTurn} {
			for _, m := range group {
				if strings.Contains(m, l) {
					inMsg = true
					break
				}
			}
			if inMsg {
				break
			}
		}
		if !inMsg {
			best = l
		}
	}
	return best
}

// isStateLine reports whether l is a line of the working state.
func isStateLine(l string) bool {
	for _, f := range workstate.Openings[1:] { // the fields, not the heading
		if strings.HasPrefix(l, f+" ") {
			return true
		}
	}
	return false
}
