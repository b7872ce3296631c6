package render

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// MaxLineBytes is the longest transcript line the reader decodes. Real lines
// reach about 1 MB (base64 images); longer ones are skipped and counted, so a
// hostile 100 MB line costs no memory.
const MaxLineBytes = 32 << 20

// Diagnostics counts what the reader skipped. None of it is an error.
type Diagnostics struct {
	Lines        int // lines read, including blank ones
	Malformed    int // lines that are not a JSON object
	Oversized    int // lines longer than MaxLineBytes, skipped unread
	UnknownTypes int // entries of a type the reader does not know
	Duplicates   int // entries dropped because their uuid was seen before
	Sidechain    int // subagent entries inside the main file
	TornTail     bool
}

// String summarises the counts that are not zero.
func (d Diagnostics) String() string {
	s := fmt.Sprintf("%d lines", d.Lines)
	add := func(n int, what string) {
		if n > 0 {
			s += fmt.Sprintf(", %d %s", n, what)
		}
	}
	add(d.Malformed, "malformed")
	add(d.Oversized, "oversized")
	add(d.UnknownTypes, "of unknown type")
	add(d.Duplicates, "duplicate")
	add(d.Sidechain, "sidechain")
	if d.TornTail {
		s += ", torn final line"
	}
	return s
}

// EventKind says what an [Event] of a transcript is.
type EventKind int

// Event kinds, in the order the classification of user entries tests them.
const (
	EvPrompt     EventKind = iota // a genuine user prompt: starts a turn
	EvMidTurn                     // text the user typed while a tool ran
	EvCommand                     // a slash command, Text = "/cmd args"
	EvBash                        // bash-mode input, Text = the command
	EvInterrupt                   // the user interrupted the assistant
	EvTaskNote                    // a background task reported back; Text = its summary
	EvCompaction                  // a compaction boundary; Text = trigger
	EvAssistant                   // one assistant message; Blocks = its text blocks
	EvTool                        // one tool call; Tool = index in Transcript.Tools
)

// Event is one rendered item of the main thread, in file order. Text is raw:
// privacy stripping happens when it is rendered.
type Event struct {
	Kind   EventKind
	Time   time.Time
	Text   string
	Blocks []string // EvAssistant: text blocks in order, duplicates dropped
	Tool   int      // EvTool: index into Transcript.Tools
	Images int      // EvPrompt, EvMidTurn: pasted images
}

// ToolCall is one distinct tool_use of the main thread. Its ordinal N
// (index+1) names it as [#tN]. Bulk (input, result) is not kept: Digest and
// Pending are computed when the result arrives; expansion re-reads the file.
type ToolCall struct {
	ID        string
	Name      string
	Time      time.Time
	HasResult bool
	IsError   bool
	Digest    string // "<Tool>: <salient> — <outcome>", already stripped
	Pending   string // "<Tool> — <salient>", already stripped
}

// Transcript is the main thread of a session transcript, reduced to what a
// bottle shows.
type Transcript struct {
	SessionID   string // first sessionId of a main-thread entry
	Cwd         string // first cwd of a main-thread entry
	Started     time.Time
	Last        time.Time
	Events      []Event
	Tools       []ToolCall
	Compactions int // compact boundaries and compact summaries seen
	// TextBytes and ToolBytes measure the conversation the bottle replaces:
	// user and assistant text; tool_use input and tool_result content.
	TextBytes, ToolBytes int
	Prompts              int
	Diag                 Diagnostics
}

// line is the narrow shape of a transcript line the reader decodes. Unknown
// fields are ignored; toolUseResult (often the largest field) is not decoded.
type line struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Cwd              string          `json:"cwd"`
	Timestamp        string          `json:"timestamp"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          json.RawMessage `json:"message"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int    `json:"preTokens"`
	} `json:"compactMetadata"`
}

type message struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// knownTypes are entry types the reader recognises; all but user, assistant
// and system are skipped without comment.
var knownTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "progress": true, "attachment": true,
	"file-history-snapshot": true, "file-history-delta": true, "queue-operation": true,
	"summary": true, "last-prompt": true, "pr-link": true, "custom-title": true, "ai-title": true,
	"tag": true, "agent-name": true, "agent-color": true, "agent-setting": true,
	"permission-mode": true, "mode": true, "worktree-state": true, "cost-state": true,
	"ended-by-model": true, "relocated": true, "session-owner": true, "bridge-session": true,
	"history-suppression": true, "attribution-snapshot": true, "isolation-latch": true,
	"dev-mods": true, "atis-latch": true, "tools-used": true, "observer-ref": true,
	"derived-from": true, "artifact-autoreact-ledger": true, "repl-mode": true,
	"hybrid-organization": true, "continued-in": true, "resume-head-vouch": true,
	"api-request": true, "api-request-shape": true, "api-request-blob": true,
	"api-request-resumed": true, "host-row": true, "content-replacement": true,
	"data-flow-records": true, "data-flow-incomplete": true, "fork-context-ref": true,
	"frame-link": true, "memory-mode": true, "artifact-comment-monitor": true,
}

// ToolDigester turns a finished tool call into its digest and pending lines.
// It is a variable so the reader does not depend on how digests are worded.
type ToolDigester func(name string, input json.RawMessage, result string, hasResult, isError bool, cwd string) (digest, pending string)

// ReadTranscript reads a transcript stream. It fails only when r fails; every
// problem inside the data is skipped and counted in Transcript.Diag.
func ReadTranscript(r io.Reader, dig ToolDigester) (*Transcript, error) {
	return readTranscript(r, dig, nil)
}

// ToolDetail is one tool call in full, kept only when expansion asks for it.
type ToolDetail struct {
	Name      string
	Time      time.Time
	Input     json.RawMessage
	HasResult bool
	Result    string
	IsError   bool
}

// readTranscript reads a transcript; the tool calls whose indexes are keys
// of capture are kept in full in it.
func readTranscript(r io.Reader, dig ToolDigester, capture map[int]*ToolDetail) (*Transcript, error) {
	return readUntil(r, dig, capture, false)
}

// readUntil reads a transcript; with firstPrompt it stops at the first
// genuine prompt.
func readUntil(r io.Reader, dig ToolDigester, capture map[int]*ToolDetail, firstPrompt bool) (*Transcript, error) {
	p := newParser(dig)
	p.capture = capture
	br := bufio.NewReaderSize(r, 256<<10)
	var buf []byte
	for {
		data, torn, oversized, err := readLine(br, &buf)
		if len(data) > 0 || oversized {
			p.t.Diag.Lines++
		}
		if oversized {
			p.t.Diag.Oversized++
		} else if len(bytes.TrimSpace(data)) > 0 {
			p.line(data, torn)
			if firstPrompt && p.t.Prompts > 0 {
				break
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
	}
	p.finish()
	return p.t, nil
}

// readLine returns the next line without its newline. torn is set when the
// line ended at EOF without a newline. Lines over MaxLineBytes are discarded.
func readLine(br *bufio.Reader, buf *[]byte) (data []byte, torn, oversized bool, err error) {
	*buf = (*buf)[:0]
	for {
		chunk, e := br.ReadSlice('\n')
		if !oversized {
			if len(*buf)+len(chunk) > MaxLineBytes+1 {
				oversized = true
				*buf = (*buf)[:0]
			} else {
				*buf = append(*buf, chunk...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e != nil {
			if oversized {
				return nil, false, true, e
			}
			return *buf, len(*buf) > 0, false, e
		}
		if oversized {
			return nil, false, true, nil
		}
		return bytes.TrimSuffix(*buf, []byte{'\n'}), false, false, nil
	}
}

type parser struct {
	t        *Transcript
	dig      ToolDigester
	seen     map[[16]byte]struct{}
	msgs     map[string]int // assistant message.id -> index of its event
	blocks   map[string]map[string]struct{}
	tools    map[string]int // tool_use id -> index into t.Tools
	pending  map[string]pendingCall
	lastWasC bool // the previous rendered event was a compaction
	capture  map[int]*ToolDetail
}

// pendingCall keeps a tool_use's input until its result arrives.
type pendingCall struct {
	input json.RawMessage
}

func newParser(dig ToolDigester) *parser {
	return &parser{
		t:       &Transcript{},
		dig:     dig,
		seen:    make(map[[16]byte]struct{}),
		msgs:    make(map[string]int),
		blocks:  make(map[string]map[string]struct{}),
		tools:   make(map[string]int),
		pending: make(map[string]pendingCall),
	}
}

func (p *parser) line(data []byte, torn bool) {
	var l line
	if err := json.Unmarshal(data, &l); err != nil {
		if torn {
			p.t.Diag.TornTail = true
		} else {
			p.t.Diag.Malformed++
		}
		return
	}
	if !knownTypes[l.Type] {
		p.t.Diag.UnknownTypes++
		return
	}
	switch l.Type {
	case "user", "assistant", "system":
	default:
		return
	}
	if l.IsSidechain {
		p.t.Diag.Sidechain++
		return
	}
	if l.UUID != "" {
		k := uuidKey(l.UUID)
		if _, dup := p.seen[k]; dup {
			p.t.Diag.Duplicates++
			return
		}
		p.seen[k] = struct{}{}
	}
	ts := parseTime(l.Timestamp)
	if p.t.SessionID == "" && l.SessionID != "" {
		p.t.SessionID = l.SessionID
	}
	if p.t.Cwd == "" && l.Cwd != "" {
		p.t.Cwd = l.Cwd
	}
	if !ts.IsZero() {
		if p.t.Started.IsZero() || ts.Before(p.t.Started) {
			p.t.Started = ts
		}
		if ts.After(p.t.Last) {
			p.t.Last = ts
		}
	}
	switch l.Type {
	case "system":
		if l.Subtype == "compact_boundary" {
			trigger := ""
			if l.CompactMetadata != nil {
				trigger = l.CompactMetadata.Trigger
			}
			p.compaction(ts, trigger)
		}
	case "user":
		p.user(&l, ts)
	case "assistant":
		p.assistant(&l, ts)
	}
}

func (p *parser) emit(e Event) {
	p.t.Events = append(p.t.Events, e)
	p.lastWasC = e.Kind == EvCompaction
}

func (p *parser) compaction(ts time.Time, trigger string) {
	p.t.Compactions++
	if p.lastWasC {
		return
	}
	p.emit(Event{Kind: EvCompaction, Time: ts, Text: trigger})
}

func (p *parser) user(l *line, ts time.Time) {
	if l.IsCompactSummary {
		// A boundary normally precedes the summary; without one the summary
		// alone marks the compaction.
		p.compaction(ts, "")
		return
	}
	var m message
	if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
		p.t.Diag.Malformed++
		return
	}
	c := parseUserContent(m.Content)
	if c.bad {
		p.t.Diag.Malformed++
		return
	}
	if len(c.results) > 0 {
		for _, r := range c.results {
			p.result(r)
		}
		for _, txt := range c.texts {
			if isInterrupt(txt) {
				p.emit(Event{Kind: EvInterrupt, Time: ts})
				continue
			}
			if isBlank(txt) {
				continue
			}
			p.t.TextBytes += len(txt)
			p.emit(Event{Kind: EvMidTurn, Time: ts, Text: txt})
		}
		return
	}
	if l.IsMeta {
		return
	}
	ev, ok := classify(c)
	if !ok {
		return
	}
	ev.Time = ts
	p.t.TextBytes += len(ev.Text)
	if ev.Kind == EvPrompt {
		p.t.Prompts++
	}
	p.emit(ev)
}

func (p *parser) assistant(l *line, ts time.Time) {
	var m message
	if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
		p.t.Diag.Malformed++
		return
	}
	if m.Model == "<synthetic>" {
		return
	}
	var blocks []block
	if json.Unmarshal(m.Content, &blocks) != nil {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			p.t.Diag.Malformed++
			return
		}
		blocks = []block{{Type: "text", Text: s}}
	}
	id := m.ID
	if id == "" {
		id = "uuid:" + l.UUID
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if isBlank(b.Text) {
				continue
			}
			seen := p.blocks[id]
			if seen == nil {
				seen = make(map[string]struct{})
				p.blocks[id] = seen
			}
			if _, dup := seen[b.Text]; dup {
				continue
			}
			seen[b.Text] = struct{}{}
			p.t.TextBytes += len(b.Text)
			i, ok := p.msgs[id]
			if !ok {
				p.emit(Event{Kind: EvAssistant, Time: ts})
				i = len(p.t.Events) - 1
				p.msgs[id] = i
			}
			p.t.Events[i].Blocks = append(p.t.Events[i].Blocks, b.Text)
		case "tool_use":
			if b.ID == "" {
				continue
			}
			if _, dup := p.tools[b.ID]; dup {
				continue
			}
			p.tools[b.ID] = len(p.t.Tools)
			p.t.Tools = append(p.t.Tools, ToolCall{ID: b.ID, Name: b.Name, Time: ts})
			p.pending[b.ID] = pendingCall{input: append(json.RawMessage(nil), b.Input...)}
			p.t.ToolBytes += len(b.Input)
			if d, ok := p.capture[len(p.t.Tools)-1]; ok && d == nil {
				p.capture[len(p.t.Tools)-1] = &ToolDetail{Name: b.Name, Time: ts, Input: append(json.RawMessage(nil), b.Input...)}
			}
			p.emit(Event{Kind: EvTool, Time: ts, Tool: len(p.t.Tools) - 1})
		}
	}
}

// toolResult is one tool_result block of a user line.
type toolResult struct {
	id      string
	text    string
	isError bool
}

func (p *parser) result(r toolResult) {
	i, ok := p.tools[r.id]
	if !ok {
		return
	}
	pc, ok := p.pending[r.id]
	if !ok {
		return // a second result for the same call
	}
	delete(p.pending, r.id)
	p.t.ToolBytes += len(r.text)
	tc := &p.t.Tools[i]
	tc.HasResult, tc.IsError = true, r.isError
	if d := p.capture[i]; d != nil {
		d.HasResult, d.Result, d.IsError = true, r.text, r.isError
	}
	if p.dig != nil {
		tc.Digest, tc.Pending = p.dig(tc.Name, pc.input, r.text, true, r.isError, p.t.Cwd)
	}
}

func (p *parser) finish() {
	for i := range p.t.Tools {
		tc := &p.t.Tools[i]
		pc, ok := p.pending[tc.ID]
		if !ok {
			continue
		}
		if p.dig != nil {
			tc.Digest, tc.Pending = p.dig(tc.Name, pc.input, "", false, false, p.t.Cwd)
		}
	}
	p.pending = nil
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// uuidKey turns a uuid into a compact map key: the 16 bytes of a canonical
// UUID, or a hash prefix of anything else.
func uuidKey(s string) [16]byte {
	var k [16]byte
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		hexs := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
		if n, err := hex.Decode(k[:], []byte(hexs)); err == nil && n == 16 {
			return k
		}
	}
	sum := sha256.Sum256([]byte(s))
	copy(k[:], sum[:16])
	k[6] ^= 0xff // keep hashed keys apart from canonical ones (version nibble)
	return k
}
