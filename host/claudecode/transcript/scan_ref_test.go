package transcript

// The reader as it was before the scanner: json.Unmarshal of every line
// into narrow structs. Tests compare the scanner against it.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"bottle/render/digest"
)

// line is the narrow shape of a transcript line the reader decodes. Unknown
// fields are ignored; toolUseResult (often the largest field) is kept raw,
// read only for a persisted output.
type refLine struct {
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
	ToolUseResult json.RawMessage `json:"toolUseResult"`
}

type refMessage struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
}

type refBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// refRead reads a transcript line by line with encoding/json, as o says.
func refRead(r io.Reader, o *ReadOptions) (*Transcript, error) {
	if o == nil {
		o = &ReadOptions{}
	}
	firstPrompt := o.UntilFirstPrompt
	p := newRefParser(!o.NoDigests)
	p.capture, p.session = o.Capture, o.Session
	if o.Observe != nil && o.CaptureTools != nil {
		p.captureTool, p.observe = o.CaptureTools, o.Observe
	}
	br := bufio.NewReaderSize(r, 256<<10)
	if mark, _ := br.Peek(3); string(mark) == "\xef\xbb\xbf" {
		br.Discard(3) // a byte-order mark before the first line
	}
	var buf []byte
	for {
		data, torn, oversized, err := refReadLine(br, &buf)
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
	p.t.Captured = p.capture
	return p.t, nil
}

// readLine returns the next line without its newline. torn is set when the
// line ended at EOF without a newline. Lines over MaxLineBytes are discarded.
func refReadLine(br *bufio.Reader, buf *[]byte) (data []byte, torn, oversized bool, err error) {
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

type refParser struct {
	t        *Transcript
	digests  bool
	session  string // ReadOptions.Session
	seen     map[[16]byte]struct{}
	msgs     map[string]int // assistant message.id -> index of its event
	blocks   map[string]map[string]struct{}
	tools    map[string]int // tool_use id -> index into t.Tools
	pending  map[string]refPendingCall
	lastWasC bool // the previous rendered event was a compaction
	capture  map[int]*ToolDetail
	// captureTool picks the calls observe takes.
	captureTool func(name string) bool
	observe     func(i int, d *ToolDetail, result func() string)
}

// refPendingCall keeps a tool_use's input until its result arrives.
type refPendingCall struct {
	input    json.RawMessage
	observed bool
}

func newRefParser(digests bool) *refParser {
	return &refParser{
		t:       &Transcript{},
		digests: digests,
		seen:    make(map[[16]byte]struct{}),
		msgs:    make(map[string]int),
		blocks:  make(map[string]map[string]struct{}),
		tools:   make(map[string]int),
		pending: make(map[string]refPendingCall),
	}
}

func (p *refParser) line(data []byte, torn bool) {
	var l refLine
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
	p.t.Diag.Entries++
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
		k := refUUIDKey(l.UUID)
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
	if p.session != "" && l.SessionID == p.session {
		p.t.HasSession = true
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

func (p *refParser) emit(e Event) {
	p.t.Events = append(p.t.Events, e)
	p.lastWasC = e.Kind == EvCompaction
}

func (p *refParser) compaction(ts time.Time, trigger string) {
	p.t.Compactions++
	if p.lastWasC {
		return
	}
	p.emit(Event{Kind: EvCompaction, Time: ts, Text: trigger})
}

func (p *refParser) user(l *refLine, ts time.Time) {
	if l.IsCompactSummary {
		// A boundary normally precedes the summary; without one the summary
		// alone marks the compaction.
		p.compaction(ts, "")
		return
	}
	var m refMessage
	if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
		p.t.Diag.Malformed++
		p.t.Diag.Entries--
		return
	}
	c := refParseUserContent(m.Content)
	if c.bad {
		p.t.Diag.Malformed++
		p.t.Diag.Entries--
		return
	}
	if len(c.results) > 0 {
		if r := &c.results[0]; len(c.results) == 1 && len(l.ToolUseResult) > 0 {
			var body string
			if json.Unmarshal(r.raw, &body) == nil && strings.HasPrefix(body, "<persisted-output>") {
				r.persisted = l.ToolUseResult
			}
		}
		for _, r := range c.results {
			p.result(r, ts)
		}
		for _, txt := range c.texts {
			if isInterrupt(txt) {
				p.emit(Event{Kind: EvInterrupt, Time: ts})
				continue
			}
			if isBlank(txt) {
				continue
			}
			if msgs := senderMessages(txt); msgs != nil {
				for _, m := range msgs {
					p.t.TextBytes += len(m.text)
					p.emit(Event{Kind: EvMidTurn, Time: ts, Text: m.text, From: m.from})
				}
				continue
			}
			p.t.TextBytes += len(txt)
			p.emit(Event{Kind: EvMidTurn, Time: ts, Text: txt})
		}
		return
	}
	if msgs := senderMessages(strings.Join(c.texts, "\n\n")); msgs != nil {
		for i, m := range msgs {
			ev := Event{Kind: EvMidTurn, Time: ts, Text: m.text, From: m.from}
			if i == 0 {
				ev.Kind, ev.IDE = EvPrompt, c.ide
				p.t.Prompts++
			}
			p.t.TextBytes += len(ev.Text)
			p.emit(ev)
		}
		return
	}
	if l.IsMeta {
		return
	}
	ev, ok := classify(c)
	if !ok {
		if len(c.ide) > 0 {
			p.emit(Event{Kind: EvIDE, Time: ts, IDE: c.ide})
		}
		return
	}
	if ev.Kind == EvPrompt {
		ev.IDE = c.ide
	}
	ev.Time = ts
	p.t.TextBytes += len(ev.Text)
	if ev.Kind == EvPrompt {
		p.t.Prompts++
	}
	p.emit(ev)
}

func (p *refParser) assistant(l *refLine, ts time.Time) {
	var m refMessage
	if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
		p.t.Diag.Malformed++
		p.t.Diag.Entries--
		return
	}
	if m.Model == "<synthetic>" {
		return
	}
	var blocks []refBlock
	if json.Unmarshal(m.Content, &blocks) != nil {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			p.t.Diag.Malformed++
			p.t.Diag.Entries--
			return
		}
		blocks = []refBlock{{Type: "text", Text: s}}
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
			observed := p.captureTool != nil && p.captureTool(b.Name)
			p.pending[b.ID] = refPendingCall{input: append(json.RawMessage(nil), b.Input...), observed: observed}
			p.t.ToolBytes += len(b.Input)
			if d, ok := p.capture[len(p.t.Tools)-1]; ok && d == nil {
				p.capture[len(p.t.Tools)-1] = &ToolDetail{Name: b.Name, Time: ts, Input: append(json.RawMessage(nil), b.Input...)}
			}
			p.emit(Event{Kind: EvTool, Time: ts, Tool: len(p.t.Tools) - 1})
		}
	}
}

func (p *refParser) result(r toolResult, ts time.Time) {
	i, ok := p.tools[r.id]
	if !ok {
		return
	}
	pc, ok := p.pending[r.id]
	if !ok {
		return // a second result for the same call
	}
	delete(p.pending, r.id)
	if p.t.Tools[i].Name == "AskUserQuestion" && !r.isError {
		if a := digest.Answers(pc.input, r.text); a != "" {
			p.emit(Event{Kind: EvAnswer, Time: ts, Text: a, Tool: i})
		}
	}
	p.t.ToolBytes += len(r.text)
	tc := &p.t.Tools[i]
	tc.HasResult, tc.IsError = true, r.isError
	if d := p.capture[i]; d != nil {
		d.HasResult, d.Result, d.IsError = true, r.text, r.isError
	}
	if pc.observed {
		p.observe(i, &ToolDetail{Name: tc.Name, Time: tc.Time, Input: pc.input, HasResult: true, IsError: r.isError}, func() string { return r.text })
	}
	if p.digests {
		tc.Line = digestText(new(digest.Call), tc.Name, pc.input, r.text, r.persisted, true, r.isError, p.t.Cwd)
	}
}

func (p *refParser) finish() {
	for i := range p.t.Tools {
		tc := &p.t.Tools[i]
		pc, ok := p.pending[tc.ID]
		if !ok {
			continue
		}
		if p.digests {
			tc.Line = digestText(new(digest.Call), tc.Name, pc.input, "", nil, false, false, p.t.Cwd)
		}
		if pc.observed {
			p.observe(i, &ToolDetail{Name: tc.Name, Time: tc.Time, Input: pc.input}, func() string { return "" })
		}
	}
	p.pending = nil
}

func refParseUserContent(raw json.RawMessage) userContent {
	var c userContent
	raw = refTrimJSONSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return c
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			c.bad = true
			return c
		}
		c.texts = []string{s}
		return c
	}
	var blocks []refBlock
	if json.Unmarshal(raw, &blocks) != nil {
		c.bad = true
		return c
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if isContextBlock(b.Text) {
				if ide, ok := ideContext(b.Text); ok {
					c.ide = append(c.ide, ide)
				}
				continue
			}
			c.texts = append(c.texts, b.Text)
		case "image", "document":
			c.images++
		case "tool_result":
			c.results = append(c.results, toolResult{id: b.ToolUseID, text: refResultText(b.Content), raw: b.Content, isError: b.IsError})
		}
	}
	return c
}

func refTrimJSONSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// resultText flattens a tool_result's content (a string or a list of blocks).
func refResultText(raw json.RawMessage) string {
	raw = refTrimJSONSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for i, bl := range blocks {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch bl.Type {
		case "text":
			b.WriteString(bl.Text)
		case "image":
			b.WriteString("[image]")
		default:
			b.WriteString("[" + bl.Type + "]")
		}
	}
	return b.String()
}

// refUUIDKey is uuidKey as it was.
func refUUIDKey(s string) [16]byte {
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
