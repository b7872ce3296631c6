package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Entry shapes as Claude Code 2.1.197 and 2.1.332 write them (captured by
// the e2e test), trimmed to the fields that matter plus a few of the rest.
func ctxBoundary() string {
	return `{"parentUuid":null,"logicalParentUuid":"p0","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2026-12-03T22:58:52.945Z","uuid":"b1","level":"info","compactMetadata":{"trigger":"manual","preTokens":120}}`
}

func ctxSummary() string {
	return `{"parentUuid":"b1","isSidechain":false,"type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation."},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"s1","timestamp":"2026-12-03T22:58:53.000Z"}`
}

func ctxHook(texts ...string) string {
	c, _ := json.Marshal(texts)
	return `{"parentUuid":"s1","isSidechain":false,"attachment":{"type":"hook_additional_context","content":` + string(c) +
		`,"hookName":"SessionStart","toolUseID":"SessionStart","hookEvent":"SessionStart"},"type":"attachment","uuid":"h1","timestamp":"2026-12-03T22:58:54.000Z"}`
}

func ctxHookSuccess(stdout string) string {
	s, _ := json.Marshal(stdout)
	return `{"parentUuid":"s1","isSidechain":false,"attachment":{"type":"hook_success","hookName":"SessionStart:compact","toolUseID":"x","hookEvent":"SessionStart","content":"","stdout":` + string(s) +
		`,"stderr":"","exitCode":0},"type":"attachment","uuid":"h0"}`
}

func ctxPrompt(text string) string {
	t, _ := json.Marshal(text)
	return `{"parentUuid":"h1","isSidechain":false,"type":"user","message":{"role":"user","content":` + string(t) + `},"uuid":"u1","timestamp":"2026-12-03T22:59:00.000Z"}`
}

func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStartContexts(t *testing.T) {
	big := strings.Repeat("x", 3*backChunk/2) // a line that spans chunks
	huge := strings.Repeat("y", maxContextLine+10)
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"empty file", nil, nil},
		{"no compaction: every hook text", []string{ctxPrompt("hi"), ctxHook("A"), ctxPrompt("there")}, []string{"A"}},
		{"only after the last boundary", []string{ctxHook("old"), ctxBoundary(), ctxSummary(), ctxHook("new")}, []string{"new"}},
		{"two compactions", []string{ctxBoundary(), ctxSummary(), ctxHook("first"), ctxPrompt("p"), ctxBoundary(), ctxSummary(), ctxPrompt("q")}, nil},
		{"a summary alone marks the compaction", []string{ctxHook("old"), ctxSummary(), ctxHook("new")}, []string{"new"}},
		{"newest first, each hook's text", []string{ctxBoundary(), ctxHook("c1", "c2"), ctxPrompt("p"), ctxHook("r1")}, []string{"r1", "c2", "c1"}},
		{"hook_success is not what the model sees", []string{ctxBoundary(), ctxHookSuccess(`{"hookSpecificOutput":{"additionalContext":"S"}}`)}, nil},
		{"sidechain lines do not count", []string{
			ctxBoundary(),
			strings.Replace(ctxHook("side"), `"isSidechain":false`, `"isSidechain":true`, 1),
			ctxHook("main"),
			strings.Replace(ctxBoundary(), `"isSidechain":false`, `"isSidechain":true`, 1),
		}, []string{"main"}},
		{"another hook event", []string{ctxBoundary(), strings.ReplaceAll(ctxHook("U"), `"SessionStart"`, `"UserPromptSubmit"`)}, nil},
		{"content as one string", []string{ctxBoundary(), strings.Replace(ctxHook("x"), `["x"]`, `"one"`, 1)}, []string{"one"}},
		{"a prompt that quotes the markers is no boundary", []string{ctxHook("kept"), ctxPrompt(`"compact_boundary" "isCompactSummary" "hook_additional_context"`)}, []string{"kept"}},
		{"malformed lines are skipped", []string{ctxBoundary(), `{"type":"attachment","attachment":{"type":"hook_additional_context"`, ctxHook("ok"), "not json"}, []string{"ok"}},
		{"lines longer than a chunk", []string{ctxHook("before"), ctxBoundary(), ctxPrompt(big), ctxHook("after"), ctxPrompt(big)}, []string{"after"}},
		{"a line too long to look into is skipped", []string{ctxBoundary(), ctxHook("a"), ctxPrompt(huge), ctxHook("b")}, []string{"b", "a"}},
		{"byte-order mark", []string{"\ufeff" + ctxHook("bom")}, []string{"bom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, compacted, err := StartContexts(context.Background(), writeLines(t, tt.lines...))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("StartContexts = %q, want %q", got, tt.want)
			}
			wantCompacted := false
			for _, l := range tt.lines {
				_, b := contextLine([]byte(l))
				wantCompacted = wantCompacted || b
			}
			if compacted != wantCompacted {
				t.Errorf("compacted = %v, want %v", compacted, wantCompacted)
			}
		})
	}
}

func TestStartContextsFile(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := StartContexts(context.Background(), dir); err == nil {
		t.Error("a directory: no error")
	}
	if _, _, err := StartContexts(context.Background(), filepath.Join(dir, "missing.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want not-exist", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := StartContexts(ctx, writeLines(t, ctxHook("x"))); err == nil {
		t.Error("cancelled context: no error")
	}
}

// startContextsForward is StartContexts read forwards, line by line: the
// reference the backward read must equal.
func startContextsForward(data []byte) (all []string, compacted bool) {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 || len(line) > maxContextLine {
			continue
		}
		texts, boundary := contextLine(line)
		if boundary {
			all, compacted = nil, true
		}
		for i := len(texts) - 1; i >= 0; i-- {
			all = append(all, texts[i])
		}
	}
	slices.Reverse(all)
	return all, compacted
}

func FuzzStartContexts(f *testing.F) {
	f.Add([]byte(ctxHook("a") + "\n" + ctxBoundary() + "\n" + ctxSummary() + "\n" + ctxHook("b", "c") + "\n"))
	f.Add([]byte(ctxHook("a") + "\r\n" + ctxPrompt("x")))
	f.Add([]byte("\n\n" + ctxBoundary()))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, compacted, err := startContexts(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if want, wantCompacted := startContextsForward(data); !slices.Equal(got, want) || compacted != wantCompacted {
			t.Errorf("backward read %q (compacted %v), forward read %q (compacted %v)", got, compacted, want, wantCompacted)
		}
	})
}
