// Package gentranscript writes synthetic Claude Code session transcripts of
// any size for benchmarks. A transcript mimics the byte mix of the corpus
// (shared/corpus/transcripts, 36 MB in 25 files): assistant messages split
// one content block per line (thinking, text, parallel tool_use), tool
// results whose content is code and command output full of JSON escapes,
// toolUseResult copies about three times the size of the result text,
// base64 screenshots, progress lines, file-history snapshots, queue
// operations, stop-hook summaries, sidechain lines, duplicated lines of a
// resume and a compaction with its summary. Verbatim text (prompts and
// assistant text) is about 2 % of the bytes, as in the corpus, so the
// bottle of a 400 MB transcript is a few MB.
//
// Output depends only on the Config: the same seed gives the same bytes.
//
// It is for benchmarks only and imports nothing of bottle's.
package gentranscript

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config says what to generate.
type Config struct {
	// Bytes is the approximate size of the transcript; generation stops at
	// the end of the first turn that reaches it.
	Bytes int64
	// Seed makes the output reproducible (0 is a valid seed).
	Seed uint64
	// SessionID is the sessionId written in every line ("" = a fixed uuid).
	SessionID string
	// ToolCalls, when above 0, makes the transcript one prompt and an
	// autonomous run of that many tool calls before the final reply (Bytes
	// is then ignored): the calls of the usual mix, their results and
	// structured copies cut to a few lines and no screenshots, as a run's
	// many small steps, so that its size grows with the calls (about 6 KB
	// each) rather than with the files they touch.
	ToolCalls int64
}

// Stats counts what was written.
type Stats struct {
	Bytes, Lines, Turns, ToolCalls int64
	// Text is the bytes of prompt and assistant text (the verbatim part of
	// a bottle); ToolResult the tool_result content; ToolUseResult the
	// structured copies; Images the base64 image data.
	Text, ToolResult, ToolUseResult, Images int64
}

// DefaultSessionID is the sessionId used when Config.SessionID is empty.
const DefaultSessionID = "5b1c0e6a-7d1f-4c0e-9a55-3f0b8e2d4c11"

// Write writes a transcript to w.
func Write(w io.Writer, cfg Config) (Stats, error) {
	g := newGen(cfg)
	bw := bufio.NewWriterSize(w, 1<<20)
	g.w = bw
	if cfg.ToolCalls > 0 {
		g.small = true
		g.run(cfg.ToolCalls)
	}
	for cfg.ToolCalls <= 0 && (g.st.Bytes < cfg.Bytes || g.st.Turns == 0) {
		g.turn()
		if g.err != nil {
			return g.st, g.err
		}
	}
	if err := bw.Flush(); err != nil {
		return g.st, err
	}
	return g.st, g.err
}

type gen struct {
	cfg     Config
	r       *rand.Rand
	w       *bufio.Writer
	st      Stats
	err     error
	now     time.Time
	parent  string
	n       int64 // ids
	cwd     string
	files   []string
	code    []string // a pool of source lines (raw text)
	words   []string
	recent  [][]byte // recent user/assistant lines, replayed as resume duplicates
	buf     []byte
	compact bool
	small   bool // Config.ToolCalls: results of a few lines (see count)
}

func newGen(cfg Config) *gen {
	if cfg.SessionID == "" {
		cfg.SessionID = DefaultSessionID
	}
	g := &gen{
		cfg: cfg,
		r:   rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)),
		now: time.Date(2026, 1, 27, 9, 0, 0, 0, time.UTC),
		cwd: "/Users/alex/workspace/cli/.worktrees/alex/ent-109-text-output-checkpoint-flag",
	}
	g.words = strings.Fields(`the a checkpoint commit branch session strategy metadata explain
		output flag test run read file error value return context config render bottle
		transcript observation hook prompt assistant merge index query budget fold line
		stream parser scanner token digest result tool call user text block message id
		we should let me now check what why because first then also already still`)
	dirs := []string{"cmd/entire/cli", "cmd/entire/cli/strategy", "internal/checkpoint", "internal/session", "pkg/render", "pkg/render/digest"}
	for i := 0; i < 60; i++ {
		g.files = append(g.files, g.cwd+"/"+dirs[i%len(dirs)]+"/"+g.word()+"_"+g.word()+strconv.Itoa(i)+".go")
	}
	templates := []string{
		"\tif err != nil {",
		"\t\treturn fmt.Errorf(\"read %s: %w\", path, err)",
		"\t}",
		"func (s *%s) %s(ctx context.Context, id string) (*%s, error) {",
		"\t// %s the %s before the %s is %s",
		"\tfor i, %s := range %s {",
		"\t\t%s = append(%s, %s[i])",
		"\tvar %s strings.Builder",
		"\tlog.Printf(\"%s: %%v\\n\", err)",
		"\tname := \"%s → %s\" // naïve café ✓",
		"}",
		"",
		"\treturn %s, nil",
		"\tswitch %s.Kind {",
		"\tcase \"%s\", \"%s\":",
		"import (\n\t\"context\"\n\t\"fmt\"\n)",
	}
	for i := 0; i < 4000; i++ {
		t := templates[g.r.IntN(len(templates))]
		n := strings.Count(t, "%s")
		args := make([]any, n)
		for j := range args {
			args[j] = g.word()
		}
		g.code = append(g.code, fmt.Sprintf(t, args...))
	}
	return g
}

// count is a count of lines or bytes from lo to lo+spread-1, at most
// smallMax in a run of small steps (Config.ToolCalls); it draws the same
// numbers either way.
func (g *gen) count(lo, spread, smallMax int) int {
	n := lo + g.r.IntN(spread)
	if g.small {
		n = min(n, smallMax)
	}
	return n
}

func (g *gen) word() string { return g.words[g.r.IntN(len(g.words))] }

func (g *gen) sentence(minWords, maxWords int) string {
	n := minWords + g.r.IntN(maxWords-minWords+1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.word())
	}
	b.WriteByte('.')
	return b.String()
}

// prose is markdown-ish text of about n bytes: paragraphs, a list, a code
// span, sometimes a fenced block.
func (g *gen) prose(n int) string {
	var b strings.Builder
	for b.Len() < n {
		switch g.r.IntN(6) {
		case 0:
			b.WriteString("- `" + g.word() + "` " + g.sentence(4, 12) + "\n")
		case 1:
			b.WriteString("\n```go\n" + strings.Join(g.codeLines(3+g.r.IntN(6)), "\n") + "\n```\n\n")
		default:
			b.WriteString(g.sentence(8, 25) + " " + g.sentence(5, 15) + "\n\n")
		}
	}
	return strings.TrimSpace(b.String())
}

func (g *gen) codeLines(n int) []string {
	out := make([]string, n)
	start := g.r.IntN(len(g.code))
	for i := range out {
		out[i] = g.code[(start+i)%len(g.code)]
	}
	return out
}

func (g *gen) id(prefix string) string {
	g.n++
	x := g.r.Uint64()
	return fmt.Sprintf("%s%016x%08x", prefix, x, g.n)
}

func (g *gen) uuid() string {
	g.n++
	a, b := g.r.Uint64(), g.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", uint32(a), uint16(a>>32), uint16(a>>48)&0xfff, uint16(b)&0xfff, (b>>16)&0xffffffffffff)
}

func (g *gen) tick(ms int) string {
	g.now = g.now.Add(time.Duration(ms) * time.Millisecond)
	return g.now.Format("2006-01-02T15:04:05.000Z")
}

// env is the envelope shared by the lines of the main thread, in Claude
// Code's key order.
type env struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	Cwd         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	GitBranch   string  `json:"gitBranch"`
	Slug        string  `json:"slug,omitempty"`
}

func (g *gen) env() env {
	var p *string
	if g.parent != "" {
		p = new(string)
		*p = g.parent
	}
	return env{ParentUUID: p, UserType: "external", Cwd: g.cwd, SessionID: g.cfg.SessionID,
		Version: "2.1.20", GitBranch: "alex/ent-109-text-output-checkpoint-flag", Slug: "mellow-soaring-finch"}
}

// emit writes one line: the envelope, then the fields of v (a struct whose
// first field is the embedded env).
func (g *gen) emit(v any, keep bool) {
	if g.err != nil {
		return
	}
	g.buf = g.buf[:0]
	data, err := json.Marshal(v)
	if err != nil {
		g.err = err
		return
	}
	data = append(data, '\n')
	if _, err := g.w.Write(data); err != nil {
		g.err = err
		return
	}
	g.st.Bytes += int64(len(data))
	g.st.Lines++
	if keep {
		if len(g.recent) >= 8 {
			g.recent = g.recent[1:]
		}
		g.recent = append(g.recent, data)
	}
}

type userLine struct {
	env
	Type             string `json:"type"`
	Message          any    `json:"message"`
	IsMeta           bool   `json:"isMeta,omitempty"`
	IsCompactSummary bool   `json:"isCompactSummary,omitempty"`
	UUID             string `json:"uuid"`
	Timestamp        string `json:"timestamp"`
	ToolUseResult    any    `json:"toolUseResult,omitempty"`
	SourceToolAsst   string `json:"sourceToolAssistantUUID,omitempty"`
	PermissionMode   string `json:"permissionMode,omitempty"`
}

type userMsg struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type asstLine struct {
	env
	Message   asstMsg `json:"message"`
	RequestID string  `json:"requestId"`
	Type      string  `json:"type"`
	UUID      string  `json:"uuid"`
	Timestamp string  `json:"timestamp"`
}

type asstMsg struct {
	Model        string  `json:"model"`
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type usage struct {
	InputTokens   int    `json:"input_tokens"`
	CacheCreation int    `json:"cache_creation_input_tokens"`
	CacheRead     int    `json:"cache_read_input_tokens"`
	OutputTokens  int    `json:"output_tokens"`
	ServiceTier   string `json:"service_tier"`
}

type progressLine struct {
	env
	Type            string `json:"type"`
	Data            any    `json:"data"`
	ToolUseID       string `json:"toolUseID"`
	ParentToolUseID string `json:"parentToolUseID"`
	UUID            string `json:"uuid"`
	Timestamp       string `json:"timestamp"`
}

type systemLine struct {
	env
	Type            string         `json:"type"`
	Subtype         string         `json:"subtype"`
	Content         string         `json:"content,omitempty"`
	IsMeta          bool           `json:"isMeta"`
	Level           string         `json:"level"`
	CompactMetadata map[string]any `json:"compactMetadata,omitempty"`
	HookCount       int            `json:"hookCount,omitempty"`
	HookInfos       []any          `json:"hookInfos,omitempty"`
	Timestamp       string         `json:"timestamp"`
	UUID            string         `json:"uuid"`
}

func (g *gen) user(content any, tur any, meta bool, source string) string {
	u := g.uuid()
	g.emit(userLine{env: g.env(), Type: "user", Message: userMsg{Role: "user", Content: content}, IsMeta: meta,
		UUID: u, Timestamp: g.tick(50 + g.r.IntN(400)), ToolUseResult: tur, SourceToolAsst: source}, tur == nil)
	g.parent = u
	return u
}

func (g *gen) assistant(msgID string, block any) string {
	u := g.uuid()
	g.emit(asstLine{env: g.env(), Message: asstMsg{Model: "claude-opus-4-5-20251101", ID: msgID, Type: "message", Role: "assistant",
		Content: []any{block}, Usage: usage{InputTokens: 10, CacheCreation: 42388, CacheRead: 120334, OutputTokens: 3, ServiceTier: "standard"}},
		RequestID: g.id("req_"), Type: "assistant", UUID: u, Timestamp: g.tick(300 + g.r.IntN(3000))}, true)
	g.parent = u
	return u
}

func (g *gen) progress(toolID string, data any) {
	g.emit(progressLine{env: g.env(), Type: "progress", Data: data, ToolUseID: toolID, ParentToolUseID: toolID,
		UUID: g.uuid(), Timestamp: g.tick(20)}, false)
}

func (g *gen) hookProgress(event string) {
	g.progress(g.uuid(), map[string]any{"type": "hook_progress", "hookEvent": event, "hookName": event + ":" + g.word(),
		"command": "go run ${CLAUDE_PROJECT_DIR}/cmd/entire/main.go hooks claude-code " + strings.ToLower(event)})
}

func (g *gen) meta(typ string, fields map[string]any) {
	fields["type"] = typ
	g.emit(fields, false)
}

// turn writes one genuine prompt and the work it causes.
func (g *gen) turn() {
	g.st.Turns++
	g.meta("queue-operation", map[string]any{"operation": "enqueue", "timestamp": g.tick(10), "sessionId": g.cfg.SessionID})
	prompt := g.prose(100 + g.r.IntN(1100))
	g.st.Text += int64(len(prompt))
	var content any = prompt
	if g.r.IntN(25) == 0 {
		img := g.image(60 << 10)
		content = []any{map[string]any{"type": "text", "text": prompt}, img}
	}
	u := g.user(content, nil, false, "")
	g.meta("file-history-snapshot", map[string]any{"messageId": u, "snapshot": map[string]any{"messageId": u,
		"trackedFileBackups": map[string]any{g.files[g.r.IntN(len(g.files))]: map[string]any{"backupFileName": g.id("") + "@v2", "version": 2, "backupTime": g.tick(1)}},
		"timestamp":          g.tick(1)}, "isSnapshotUpdate": false})
	for i := 0; i < 1+g.r.IntN(2); i++ {
		g.hookProgress("UserPromptSubmit")
	}
	rounds := 3 + g.r.IntN(6)
	for round := 0; round < rounds; round++ {
		msgID := g.id("msg_01")
		if g.r.IntN(3) > 0 {
			g.assistant(msgID, map[string]any{"type": "thinking", "thinking": g.prose(300 + g.r.IntN(1500)), "signature": g.b64(400 + g.r.IntN(800))})
		}
		if g.r.IntN(2) == 0 {
			t := g.prose(100 + g.r.IntN(500))
			g.st.Text += int64(len(t))
			g.assistant(msgID, map[string]any{"type": "text", "text": t})
		}
		// Parallel tool calls: each tool_use line is followed by its
		// result before the next tool_use line (as Claude Code writes them).
		calls := 1 + g.r.IntN(3)
		for c := 0; c < calls; c++ {
			g.toolCall(msgID)
		}
	}
	msgID := g.id("msg_01")
	final := g.prose(300 + g.r.IntN(1600))
	g.st.Text += int64(len(final))
	g.assistant(msgID, map[string]any{"type": "text", "text": final})
	g.emit(systemLine{env: g.env(), Type: "system", Subtype: "stop_hook_summary", Level: "suggestion", HookCount: 1,
		HookInfos: []any{map[string]any{"command": "go run ${CLAUDE_PROJECT_DIR}/cmd/entire/main.go hooks claude-code stop"}},
		Timestamp: g.tick(100), UUID: g.uuid()}, false)
	switch {
	case g.r.IntN(40) == 0 && len(g.recent) > 0:
		// A resume that rewrote recent lines (same uuids: dropped as duplicates).
		for _, l := range g.recent {
			if _, err := g.w.Write(l); err != nil {
				g.err = err
			}
			g.st.Bytes += int64(len(l))
			g.st.Lines++
		}
	case g.r.IntN(30) == 0:
		g.sidechain()
	}
	if !g.compact && g.st.Bytes > g.cfg.Bytes/2 {
		g.compact = true
		g.compaction()
	}
}

// run writes one prompt and an autonomous run of calls tool calls, in
// rounds of one to three with some text between, a compaction halfway, and
// the final reply.
func (g *gen) run(calls int64) {
	g.st.Turns++
	prompt := g.prose(300 + g.r.IntN(900))
	g.st.Text += int64(len(prompt))
	g.user(prompt, nil, false, "")
	g.hookProgress("UserPromptSubmit")
	for g.st.ToolCalls < calls && g.err == nil {
		msgID := g.id("msg_01")
		if g.r.IntN(4) == 0 {
			t := g.prose(60 + g.r.IntN(200))
			g.st.Text += int64(len(t))
			g.assistant(msgID, map[string]any{"type": "text", "text": t})
		}
		for c := 1 + g.r.IntN(3); c > 0 && g.st.ToolCalls < calls; c-- {
			g.toolCall(msgID)
		}
		if !g.compact && g.st.ToolCalls >= calls/2 {
			g.compact = true
			g.compaction()
		}
	}
	final := g.prose(300 + g.r.IntN(1600))
	g.st.Text += int64(len(final))
	g.assistant(g.id("msg_01"), map[string]any{"type": "text", "text": final})
}

func (g *gen) sidechain() {
	e := g.env()
	e.IsSidechain = true
	for i := 0; i < 3; i++ {
		g.emit(userLine{env: e, Type: "user", Message: userMsg{Role: "user", Content: g.prose(400)}, UUID: g.uuid(), Timestamp: g.tick(10)}, false)
	}
}

func (g *gen) compaction() {
	b := g.uuid()
	g.parent = ""
	g.emit(systemLine{env: g.env(), Type: "system", Subtype: "compact_boundary", Content: "Conversation compacted", Level: "info",
		CompactMetadata: map[string]any{"trigger": "auto", "preTokens": 167117}, Timestamp: g.tick(10), UUID: b}, false)
	g.parent = b
	summary := "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nAnalysis:\n" + g.prose(12000)
	u := g.uuid()
	g.emit(userLine{env: g.env(), Type: "user", Message: userMsg{Role: "user", Content: summary}, IsCompactSummary: true, UUID: u, Timestamp: g.tick(10)}, false)
	g.parent = u
	g.hookProgress("SessionStart")
}

func (g *gen) b64(n int) string {
	raw := make([]byte, n*3/4)
	for i := range raw {
		raw[i] = byte(g.r.Uint32())
	}
	return base64.StdEncoding.EncodeToString(raw)
}

func (g *gen) image(n int) map[string]any {
	data := g.b64(n)
	g.st.Images += int64(len(data))
	return map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": data}}
}

func (g *gen) file() string { return g.files[g.r.IntN(len(g.files))] }

// toolCall writes a tool_use line, its progress and its result.
func (g *gen) toolCall(msgID string) {
	g.st.ToolCalls++
	id := g.id("toolu_01")
	var (
		name    string
		input   map[string]any
		result  any // string or []any
		tur     any
		isError bool
	)
	switch k := g.r.IntN(100); {
	case k < 25: // Read: numbered lines; the copy holds the raw file
		path := g.file()
		lines := g.codeLines(g.count(40, 400, 6))
		var num strings.Builder
		for i, l := range lines {
			fmt.Fprintf(&num, "%6d→%s\n", i+1, l)
		}
		name, input = "Read", map[string]any{"file_path": path}
		result = num.String()
		raw := strings.Join(lines, "\n")
		tur = map[string]any{"type": "text", "file": map[string]any{"filePath": path, "content": raw, "numLines": len(lines), "startLine": 1, "totalLines": len(lines)}}
	case k < 50: // Bash with progress; sometimes failing
		cmd := []string{"go test ./...", "go build ./...", "git status --short", "git log --oneline -20", "gh pr view --comments", "make lint"}[g.r.IntN(6)]
		name, input = "Bash", map[string]any{"command": cmd, "description": g.sentence(3, 6)}
		out := strings.Join(g.codeLines(g.count(5, 120, 6)), "\n")
		for i := 0; i < 2+g.r.IntN(6); i++ {
			g.progress(id, map[string]any{"type": "bash_progress", "output": out[:min(len(out), 200*i)], "fullOutput": out[:min(len(out), 400*i)], "elapsedTimeSeconds": i + 2, "totalLines": i * 10})
		}
		if g.r.IntN(6) == 0 {
			isError = true
			result = "Exit code 1\n" + out
			tur = "Error: Exit code 1\n" + out
		} else {
			result = out
			tur = map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
		}
	case k < 75: // Edit: the copy holds the whole original file
		path := g.file()
		old, neu := strings.Join(g.codeLines(4), "\n"), strings.Join(g.codeLines(6), "\n")
		name, input = "Edit", map[string]any{"file_path": path, "old_string": old, "new_string": neu}
		result = "The file " + path + " has been updated successfully."
		orig := strings.Join(g.codeLines(g.count(300, 900, 6)), "\n")
		tur = map[string]any{"filePath": path, "oldString": old, "newString": neu, "originalFile": orig,
			"structuredPatch": []any{map[string]any{"oldStart": 10, "oldLines": 4, "newStart": 10, "newLines": 6, "lines": g.codeLines(10)}},
			"userModified":    false, "replaceAll": false}
	case k < 83: // Grep
		name, input = "Grep", map[string]any{"pattern": g.word() + "|" + g.word(), "path": g.cwd + "/cmd", "output_mode": "content", "-n": true}
		var b strings.Builder
		n := g.count(3, 80, 6)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%s:%d:%s\n", g.file(), 1+g.r.IntN(900), g.code[g.r.IntN(len(g.code))])
		}
		result = b.String()
		tur = map[string]any{"mode": "content", "numFiles": 0, "filenames": []string{}, "content": b.String(), "numLines": n}
	case k < 88: // Glob
		name, input = "Glob", map[string]any{"pattern": "**/*.go"}
		fs := make([]string, g.count(5, 60, 6))
		for i := range fs {
			fs[i] = g.file()
		}
		result = strings.Join(fs, "\n")
		tur = map[string]any{"filenames": fs, "durationMs": 12, "numFiles": len(fs), "truncated": false}
	case k < 89 && g.r.IntN(20) == 0 && !g.small: // a screenshot (rare, as in the corpus)
		name, input = "mcp__playwright__browser_take_screenshot", map[string]any{"filename": "shot.png"}
		result = []any{map[string]any{"type": "text", "text": "Took the screenshot."}, g.image(300<<10 + g.r.IntN(600<<10))}
		tur = []any{map[string]any{"type": "text", "text": "Took the screenshot."}}
	case k < 93: // Task with a long agent report
		name, input = "Task", map[string]any{"description": g.sentence(3, 5), "prompt": g.prose(600), "subagent_type": "Explore"}
		rep := g.prose(g.count(1500, 4000, 400))
		result = []any{map[string]any{"type": "text", "text": rep}}
		tur = map[string]any{"status": "completed", "prompt": input["prompt"], "agentId": g.id(""), "content": []any{map[string]any{"type": "text", "text": rep}},
			"totalDurationMs": 81234, "totalTokens": 40211, "totalToolUseCount": 17}
	default: // TodoWrite
		todos := make([]any, 3+g.r.IntN(6))
		for i := range todos {
			todos[i] = map[string]any{"content": g.sentence(3, 8), "status": []string{"pending", "in_progress", "completed"}[g.r.IntN(3)], "activeForm": g.sentence(3, 6)}
		}
		name, input = "TodoWrite", map[string]any{"todos": todos}
		result = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress."
		tur = map[string]any{"oldTodos": todos[:1], "newTodos": todos}
	}
	asst := g.assistant(msgID, map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
	g.hookProgress("PreToolUse")
	block := map[string]any{"tool_use_id": id, "type": "tool_result", "content": result}
	if isError {
		block["is_error"] = true
	}
	switch r := result.(type) {
	case string:
		g.st.ToolResult += int64(len(r))
	case []any:
		for _, b := range r {
			if t, ok := b.(map[string]any)["text"].(string); ok {
				g.st.ToolResult += int64(len(t))
			}
		}
	}
	if data, err := json.Marshal(tur); err == nil {
		g.st.ToolUseResult += int64(len(data))
	}
	content := []any{block}
	if g.r.IntN(50) == 0 && !g.small { // typed while the assistant worked; nobody types in a run
		t := g.sentence(5, 15)
		g.st.Text += int64(len(t))
		content = append(content, map[string]any{"type": "text", "text": t})
	}
	g.user(content, tur, false, asst)
	g.hookProgress("PostToolUse")
}

var cache sync.Map // size -> []byte

// Cached returns the transcript Write makes of about n bytes with seed 1,
// generated once per process: tests and benchmarks of several packages read
// the same inputs.
func Cached(n int64) ([]byte, error) {
	if v, ok := cache.Load(n); ok {
		return v.([]byte), nil
	}
	var b bytes.Buffer
	if _, err := Write(&b, Config{Bytes: n, Seed: 1}); err != nil {
		return nil, err
	}
	v, _ := cache.LoadOrStore(n, b.Bytes())
	return v.([]byte), nil
}
