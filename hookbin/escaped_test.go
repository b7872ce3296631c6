package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"bottle/claudemem/memtest"
)

// tagShapes are the shapes of a block the stripper removes, each holding
// the marker SECRET and preceded by visible text. The last ones interleave
// a machine-context block with a private one.
var tagShapes = []struct{ name, text string }{
	{"closed", "<private>SECRET</private>"},
	{"mixed-case", "<PRIVATE>SECRET</Private >"},
	{"nested", "<private>o <private>i</private> SECRET </private>"},
	{"attributes", `<private reason="pw">SECRET</private>`},
	{"newline-in-tag", "<private\n>SECRET</private>"},
	{"joined", "<pri<private>x</private>vate>SECRET</private>"},
	{"reminder", "<system-reminder>SECRET</system-reminder>"},
	{"context", "<claude-mem-context>SECRET</claude-mem-context>"},
	{"instruction", "<system_instruction>SECRET</system_instruction>"},
	{"persisted", "<persisted-output>SECRET</persisted-output>"},
	{"interleaved", "<system-reminder>x <private>begin</system-reminder> SECRET</private>"},
	{"interleaved-context", "<claude-mem-context>x <private>a</claude-mem-context> SECRET</private>"},
	{"unclosed", "<private>SECRET to the end"},
}

// tagNames are spelled with \u0061-style escapes by the "letters" encoding.
var tagNames = regexp.MustCompile(`(?i)private|system-reminder|claude-mem-context|system_instruction|persisted-output`)

// jsonEncodings write a JSON string as different encoders (or a hostile
// hand) do; every one decodes to the same text.
var jsonEncodings = []struct {
	name string
	enc  func(quoted string) string
}{
	{"plain", func(q string) string { return q }},
	{"html-safe", func(q string) string {
		return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(q)
	}},
	{"letters", func(q string) string {
		return tagNames.ReplaceAllStringFunc(q, func(name string) string {
			var b strings.Builder
			for _, c := range name {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
			return b.String()
		})
	}},
	{"slash", func(q string) string { return strings.ReplaceAll(q, "/", `\/`) }},
	{"all", func(q string) string {
		q = strings.ReplaceAll(q, "/", `\/`)
		q = tagNames.ReplaceAllStringFunc(q, func(name string) string {
			return `\u00` + strconv.FormatInt(int64(name[0]), 16) + name[1:]
		})
		return strings.NewReplacer("<", `\u003C`, ">", `\u003E`).Replace(q)
	}},
}

// escapedTools are tool calls with every input field holding the text; the
// custom tool nests it in an object, an array and a key.
var escapedTools = []struct {
	name   string
	fields []string // input keys, in order
}{
	{"Bash", []string{"command", "description"}},
	{"Write", []string{"file_path", "content"}},
	{"Edit", []string{"file_path", "old_string", "new_string"}},
	{"Grep", []string{"pattern", "path", "glob"}},
	{"WebFetch", []string{"url", "prompt"}},
	{"Task", []string{"description", "prompt", "subagent_type"}},
	{"mcp__x__y", []string{"query", "nested", "list", "key"}},
}

// escapedTranscript is session sid with one tool call per (encoding, shape,
// tool): each input field holds VISIBLE-<field>-<n> then the block; the
// result holds it too. It returns the transcript and the number of calls.
func escapedTranscript(t *testing.T, sid string) (string, int) {
	quote := func(s string) string {
		q := jl(t, map[string]any{"s": s})
		return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(q), `{"s":`), "}")
	}
	var b strings.Builder
	b.WriteString(promptLine(t, sid, "e-0", "run the tools"))
	n := 0
	for _, e := range jsonEncodings {
		for _, sh := range tagShapes {
			for _, tool := range escapedTools {
				n++
				id := fmt.Sprintf("toolu_%d", n)
				var in strings.Builder
				in.WriteString("{")
				for i, f := range tool.fields {
					if i > 0 {
						in.WriteString(",")
					}
					v := e.enc(quote(fmt.Sprintf("VISIBLE-%s-%d %s", f, n, sh.text)))
					switch f {
					case "nested":
						v = `{"inner":` + v + `,"n":1.50}`
					case "list":
						v = `[` + v + `,true,null]`
					case "key":
						in.WriteString(e.enc(quote("k "+sh.text)) + `:` + v)
						continue
					}
					in.WriteString(quote(f) + ":" + v)
				}
				in.WriteString("}")
				result := e.enc(quote(fmt.Sprintf("VISIBLE-result-%d %s", n, sh.text)))
				fmt.Fprintf(&b, `{"type":"assistant","uuid":"e-%da","sessionId":%q,"cwd":"/work/proj","isSidechain":false,"timestamp":"2026-01-05T10:01:00.000Z",`+
					`"message":{"id":"m%d","role":"assistant","type":"message","model":"claude-opus-4-5","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}}`+"\n",
					n, sid, n, id, tool.name, in.String())
				fmt.Fprintf(&b, `{"type":"user","uuid":"e-%du","sessionId":%q,"cwd":"/work/proj","isSidechain":false,"timestamp":"2026-01-05T10:02:00.000Z",`+
					`"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%s}]}}`+"\n",
					n, sid, id, result)
			}
		}
	}
	b.WriteString(promptLine(t, sid, "e-z", "done"))
	return b.String(), n
}

// TestHostileEscapedTags: a tag written with JSON escapes (\u003c, \u0061
// letters, \/ in the close tag) is a tag: no block's text reaches expand,
// expand_observation, the bottle or search, through any tool-input field,
// nested value, key or result, and the visible text beside it stays.
func TestHostileEscapedTags(t *testing.T) {
	w := newSandbox(t)
	const sid = "escaped-tags-0001"
	text, n := escapedTranscript(t, sid)
	w.transcript(t, sid, []byte(text))
	// claude-mem list columns whose items are JSON values, not strings,
	// with the block written in each encoding.
	var items []string
	for _, e := range jsonEncodings {
		for _, sh := range tagShapes {
			q := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(jl(t, map[string]any{"s": "VISIBLE-item " + sh.text})), `{"s":`), "}")
			items = append(items, `{"note":`+e.enc(q)+`}`, `[`+e.enc(q)+`]`)
		}
	}
	list := sq("[" + strings.Join(items, ",") + "]")
	memtest.Create(t, w.dbPath(), memtest.SchemaCurrent, fmt.Sprintf(`INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt, started_at, started_at_epoch, status)
VALUES (1, %s, 'mem-esc', 'proj', 'claude', 'p', 'x', 1767607200000, 'active');
INSERT INTO observations (id, memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts,
  files_read, files_modified, prompt_number, created_at, created_at_epoch, content_hash)
VALUES (9001, 'mem-esc', 'proj', 't', 'discovery', 'VISIBLE-title', 's', %[2]s, 'n', %[2]s, %[2]s, %[2]s, 1, 'x', 1767607900000, 'he1');
`, sq(sid), list), "wal")
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "t" + strconv.Itoa(i+1)
	}
	visible := func(where, out string, i int) {
		t.Helper()
		tool := escapedTools[(i-1)%len(escapedTools)]
		for _, f := range append(tool.fields, "result") {
			if f == "key" {
				continue
			}
			if want := fmt.Sprintf("VISIBLE-%s-%d ", f, i); !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", where, want, out)
			}
		}
	}
	leak := func(where, out string) {
		t.Helper()
		if i := strings.Index(out, "SECRET"); i >= 0 {
			t.Errorf("%s leaks: …%s…", where, out[max(0, i-200):min(len(out), i+40)])
		}
	}

	r := w.cli(t, append([]string{"expand", "--session", sid}, ids...)...)
	if r.code != 0 {
		t.Fatalf("expand: exit %d: %s", r.code, r.stderr)
	}
	leak("hookbin expand", r.stdout)
	for i := 1; i <= n; i++ {
		sec := r.stdout[strings.Index(r.stdout, fmt.Sprintf("## [#t%d]\n", i)):]
		if j := strings.Index(sec[1:], "\n## [#t"); j >= 0 {
			sec = sec[:j+1]
		}
		visible(fmt.Sprintf("hookbin expand t%d", i), sec, i)
	}

	m := w.startMCP(t)
	for i, id := range ids {
		out, isErr := m.call(t, "expand_observation", map[string]any{"ids": []string{id}, "session_id": sid})
		if isErr {
			t.Fatalf("expand_observation %s: %s", id, out)
		}
		leak("expand_observation "+id, out)
		visible("expand_observation "+id, out, i+1)
	}

	r = w.cli(t, "expand", "--session", sid, "9001")
	leak("hookbin expand 9001", r.stdout)
	if !strings.Contains(r.stdout, "VISIBLE-item") {
		t.Errorf("hookbin expand 9001 lacks the list items:\n%s", r.stdout)
	}
	out, _ := m.call(t, "expand_observation", map[string]any{"ids": []string{"9001"}, "session_id": sid})
	leak("expand_observation 9001", out)
	if !strings.Contains(out, "VISIBLE-item") {
		t.Errorf("expand_observation 9001 lacks the list items:\n%s", out)
	}
	r = w.cli(t, "render", sid, "--out", "-", "--budget", "0")
	leak("bottle", r.stdout)
	for _, q := range []string{"SECRET", "begin", "VISIBLE"} {
		out, _ := m.call(t, "search_history", map[string]any{"query": q, "session_id": sid, "limit": 50})
		leak("search_history "+q, out)
		r := w.cli(t, "search", q, "--session", sid, "--limit", "50")
		leak("hookbin search "+q, r.stdout)
	}
	// The interleaved block's "begin" is private: not findable.
	if r := w.cli(t, "search", "begin", "--session", sid); strings.Contains(r.stdout, "[#t") {
		t.Errorf("search finds a private word:\n%s", r.stdout)
	}
}
