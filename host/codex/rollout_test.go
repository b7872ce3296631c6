package codex

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"bottle/internal/goldentest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// describe is one line per record: what a consumer of the stream sees.
func describe(r *Rollout) string {
	var b strings.Builder
	q := func(s string) string {
		if len(s) > 90 {
			s = s[:90] + "…"
		}
		return fmt.Sprintf("%q", s)
	}
	for _, rec := range r.Records {
		fmt.Fprintf(&b, "%3d %s", rec.Line, rec.Type)
		switch {
		case rec.Meta != nil:
			m := rec.Meta
			fmt.Fprintf(&b, " id=%s cwd=%s originator=%s version=%s source=%s provider=%s", m.ID, m.Cwd, m.Originator, m.CLIVersion, m.Source, m.Provider)
		case rec.Item != nil:
			it := rec.Item
			fmt.Fprintf(&b, " %s", it.Type)
			if it.Role != "" {
				fmt.Fprintf(&b, " role=%s", it.Role)
			}
			if it.Injected != "" {
				fmt.Fprintf(&b, " injected=%s", it.Injected)
			}
			if it.Phase != "" {
				fmt.Fprintf(&b, " phase=%s", it.Phase)
			}
			if it.Namespace != "" || it.Name != "" {
				fmt.Fprintf(&b, " tool=%s", strings.TrimPrefix(it.Namespace+"."+it.Name, "."))
			}
			if it.CallID != "" {
				fmt.Fprintf(&b, " call=%s", it.CallID)
			}
			if it.Encrypted {
				b.WriteString(" encrypted")
			}
			for _, s := range []string{it.Text, it.Arguments, it.Input, it.Output} {
				if s != "" {
					b.WriteString(" " + q(s))
				}
			}
		case rec.Event != nil:
			e := rec.Event
			fmt.Fprintf(&b, " %s", e.Type)
			if e.ItemType != "" {
				fmt.Fprintf(&b, " item=%s", e.ItemType)
			}
			for _, s := range []string{e.Message, e.ItemText} {
				if s != "" {
					b.WriteString(" " + q(s))
				}
			}
		case rec.Turn != nil:
			fmt.Fprintf(&b, " cwd=%s model=%s", rec.Turn.Cwd, rec.Turn.Model)
		case rec.Compacted != nil:
			fmt.Fprintf(&b, " summary=%s replacement=[", q(rec.Compacted.Summary))
			for i, it := range rec.Compacted.Replacement {
				if i > 0 {
					b.WriteString(" ")
				}
				fmt.Fprintf(&b, "%s/%s", it.Type, it.Role)
				if it.Injected != "" {
					fmt.Fprintf(&b, "/%s", it.Injected)
				}
				if it.Encrypted {
					b.WriteString("/encrypted")
				}
			}
			b.WriteString("]")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "diagnostics: %s\n", r.Diag)
	return b.String()
}

// TestGoldens: every rollout under testdata (rollouts the real Codex CLI
// wrote in the e2e harness, and a hand-written one in an older version's
// shapes with hostile lines) reads into the stream its golden describes.
func TestGoldens(t *testing.T) {
	rolloutGoldens(t, ".golden", func(t *testing.T, in string) string {
		r, err := Read(in)
		if err != nil {
			t.Fatal(err)
		}
		return describe(r)
	})
}

// rolloutGoldens checks dump of every rollout under testdata against its
// golden file, named after it with ext.
func rolloutGoldens(t *testing.T, ext string, dump func(t *testing.T, in string) string) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no rollouts under testdata: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			goldentest.Check(t, strings.TrimSuffix(in, ".jsonl")+ext, []byte(dump(t, in)), *update)
		})
	}
}

// TestInjectedNeverMessages: in every rollout of 0.171 (the e2e's), the messages left once
// injected ones are dropped are exactly the user's prompts and the
// assistant's answers that Codex reports as events, in the same order.
func TestInjectedNeverMessages(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, in := range inputs {
		r, err := Read(in)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Records) == 0 || r.Records[0].Ordinal < 0 {
			continue // hand-written in an older version's shapes: no events of 0.171's
		}
		var msgs, events []string
		for _, rec := range r.Records {
			if it := rec.Item; it != nil && it.Type == ItemMessage && it.Injected == "" {
				msgs = append(msgs, it.Role+": "+it.Text)
			}
			if e := rec.Event; e != nil && e.Type == "item_completed" {
				switch e.ItemType {
				case "UserMessage":
					events = append(events, "user: "+e.ItemText)
				case "AgentMessage":
					events = append(events, "assistant: "+e.ItemText)
				}
			}
		}
		if len(msgs) == 0 {
			t.Errorf("%s: no messages", in)
		}
		if diff := cmp.Diff(events, msgs); diff != "" {
			t.Errorf("%s: messages differ from the events (-events +messages):\n%s", in, diff)
		}
		for _, m := range msgs {
			_, m, _ = strings.Cut(m, ": ")
			for _, bad := range []string{"BOTTLE-CTX", "<environment_context>", "<skills_instructions>", "MOCK-SUMMARY", "Another language model"} {
				if strings.HasPrefix(m, bad) {
					t.Errorf("%s: injected text %q taken for a message: %.80q", in, bad, m)
				}
			}
		}
	}
}

// TestZstdReadsAsPlain: a .jsonl.zst reads into the same records as its
// plain rollout, and a truncated compressed stream is an error, not a
// silently shorter thread.
func TestZstdReadsAsPlain(t *testing.T) {
	plain := filepath.Join("testdata", "compact_pre_turn.jsonl")
	data, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(plain)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	z := enc.EncodeAll(data, nil)
	path := filepath.Join(t.TempDir(), "rollout-x.jsonl.zst")
	if err := os.WriteFile(path, z, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(describe(want), describe(got)); diff != "" {
		t.Errorf("zst differs from plain (-plain +zst):\n%s", diff)
	}
	if _, err := ReadFrom(bytes.NewReader(z[:len(z)/2])); err == nil {
		t.Error("a truncated zstd stream read without an error")
	}
}

// TestLineRules: the torn-tail, oversize, blank and malformed rules.
func TestLineRules(t *testing.T) {
	good := `{"timestamp":"2026-01-01T00:00:00Z","ordinal":0,"type":"turn_context","payload":{"cwd":"/a"}}`
	tests := []struct {
		name    string
		in      string
		records int
		diag    Diagnostics
	}{
		{"complete last line without newline", good + "\n" + good, 2, Diagnostics{Lines: 2, Records: 2}},
		{"torn last line", good + "\n" + good[:40], 1, Diagnostics{Lines: 2, Records: 1, TornTail: true}},
		{"malformed inner line", good[:40] + "\n" + good + "\n", 1, Diagnostics{Lines: 2, Records: 1, Malformed: 1}},
		{"blank lines", "\n \r\n" + good + "\n", 1, Diagnostics{Lines: 3, Records: 1}},
		{"CRLF", good + "\r\n" + good + "\r\n", 2, Diagnostics{Lines: 2, Records: 2}},
		{"unknown type", `{"type":"hologram","payload":{}}` + "\n", 0, Diagnostics{Lines: 1, UnknownTypes: 1}},
		{"payload not an object", `{"type":"compacted","payload":[1]}` + "\n", 0, Diagnostics{Lines: 1, Malformed: 1}},
		{"JSON null", "null\n", 0, Diagnostics{Lines: 1, Malformed: 1}},
		{"oversized line", `{"type":"turn_context","payload":{"cwd":"` + strings.Repeat("x", MaxLineBytes) + `"}}` + "\n" + good + "\n", 1, Diagnostics{Lines: 2, Records: 1, Oversized: 1}},
		{"empty", "", 0, Diagnostics{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ReadFrom(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Records) != tt.records || r.Diag != tt.diag {
				t.Errorf("got %d records, %+v; want %d, %+v", len(r.Records), r.Diag, tt.records, tt.diag)
			}
		})
	}
}

// TestReadMissing: a missing file is an error that says so.
func TestReadMissing(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "none.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want ErrNotExist", err)
	}
}
