package render

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// convStats measures a transcript's conversation the way the ratio rule
// (docs/format.md, "The budget") counts it: user and assistant text, tool_use input and tool_result content.
type convStats struct {
	textBytes, toolBytes, toolCalls int
}

func measureConversation(t *testing.T, path string) convStats {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s convStats
	br := bufio.NewReaderSize(f, 1<<20)
	seen := map[string]bool{}
	for {
		ln, err := br.ReadBytes('\n')
		var d struct {
			Type        string `json:"type"`
			UUID        string `json:"uuid"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(ln, &d) == nil && (d.Type == "user" || d.Type == "assistant") && !d.IsSidechain && !seen[d.UUID] {
			seen[d.UUID] = true
			var str string
			var blocks []struct {
				Type    string          `json:"type"`
				Text    string          `json:"text"`
				Input   json.RawMessage `json:"input"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(d.Message.Content, &str) == nil {
				s.textBytes += len(str)
			} else if json.Unmarshal(d.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					switch b.Type {
					case "text":
						s.textBytes += len(b.Text)
					case "tool_use":
						s.toolBytes += len(b.Input)
						s.toolCalls++
					case "tool_result":
						s.toolBytes += len(flatResult(b.Content))
					}
				}
			}
		}
		if err != nil {
			break
		}
	}
	return s
}

// TestCorpusCompression prints, per corpus transcript, the default bottle's
// size against the conversation it replaces, and checks the ratio rule's
// promise: with at least 50 tool calls the bottle fits one Read and is at
// most a tenth of the conversation — or, where the verbatim text alone is
// more than that, adds at most 25 % on top of it.
func TestCorpusCompression(t *testing.T) {
	var rows []string
	rows = append(rows, fmt.Sprintf("%-44s %6s %9s %9s %8s %6s %6s %7s", "transcript", "tools", "conv tok", "text tok", "bottle", "lines", "ratio", "folded"))
	for _, path := range corpusTranscripts(t) {
		name := filepath.Base(filepath.Dir(path)) + "/" + strings.TrimSuffix(filepath.Base(path), ".jsonl")[:8]
		res, err := Render(context.Background(), Options{TranscriptPath: path, Now: fixedNow, Location: time.UTC})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := measureConversation(t, path)
		conv := EstimateTokens(c.textBytes + c.toolBytes)
		text := EstimateTokens(c.textBytes)
		rows = append(rows, fmt.Sprintf("%-44s %6d %9d %9d %8d %6d %5.1f%% %4d/%-3d", name, c.toolCalls, conv, text, res.Tokens, res.Lines,
			100*float64(res.Tokens)/float64(max(conv, 1)), res.Folded, res.Turns))
		if c.toolCalls < 50 {
			continue
		}
		if res.Tokens > ReadMaxTokens || res.Lines > ReadMaxLines {
			t.Errorf("%s: bottle %d tokens / %d lines does not fit one Read", name, res.Tokens, res.Lines)
		}
		if res.Tokens*10 > conv && float64(res.Tokens) > 1.25*float64(text) {
			t.Errorf("%s: bottle %d tokens is over a tenth of the conversation (%d) and over 125%% of its verbatim text (%d)", name, res.Tokens, conv, text)
		}
	}
	t.Log("compression of default bottles (tokens = UTF-8 bytes / 3):\n" + strings.Join(rows, "\n"))
}

// flatResult flattens a tool_result's content as Claude Code shows it: a
// string, or its blocks one per line (text as is, others as "[type]").
func flatResult(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	parts := make([]string, len(blocks))
	for i, bl := range blocks {
		parts[i] = "[" + bl.Type + "]"
		if bl.Type == "text" {
			parts[i] = bl.Text
		}
	}
	return strings.Join(parts, "\n")
}
