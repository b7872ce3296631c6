package transcript

// The reference for the scanner: every line decoded with encoding/json
// into the record the scanner makes of it (refRecord). Tests compare the
// two line by line and field by field (checkRecords), and compare whole
// transcripts read by the reader with the reference records applied, one
// line at a time, by the reader's own parser (refRead).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"bottle/internal/jsonscan"
)

// refLine is the narrow shape of a transcript line. Unknown fields are
// ignored; toolUseResult is kept raw, read only for a persisted output.
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

// refKinds are the kinds of the entries the reader applies; it skips
// the other known types (recNone).
var refKinds = map[string]recKind{"user": recUser, "assistant": recAssistant, "system": recSystem}

// refRecord decodes one non-blank line with encoding/json into the record
// the scanner makes of it. Its tool results carry their content (raw),
// flattened text and persisted output as the reader has them when it
// applies the line; they have no offsets into the line.
func refRecord(line []byte, torn bool) lineRec {
	var l refLine
	if json.Unmarshal(line, &l) != nil {
		if torn {
			return lineRec{kind: recTorn}
		}
		return lineRec{kind: recMalformed}
	}
	if !knownTypes[l.Type] {
		return lineRec{kind: recUnknown}
	}
	r := lineRec{kind: refKinds[l.Type]}
	if r.kind == recNone {
		return r
	}
	if l.IsSidechain {
		r.sidechain = true
		return r
	}
	if l.UUID != "" {
		r.hasUUID, r.uuid = true, refUUIDKey(l.UUID)
	}
	r.sessionID, r.cwd = refRawString(l.SessionID), refRawString(l.Cwd)
	r.ts = parseTime(l.Timestamp)
	switch r.kind {
	case recSystem:
		if l.Subtype == "compact_boundary" {
			r.boundary = true
			if l.CompactMetadata != nil {
				r.trigger = l.CompactMetadata.Trigger
			}
		}
	case recUser:
		r.meta, r.summary = l.IsMeta, l.IsCompactSummary
		if r.summary {
			return r
		}
		var m refMessage
		if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
			r.bad = true
			return r
		}
		r.content = refParseUserContent(m.Content)
		r.bad = r.content.bad
		if res := r.content.results; len(res) == 1 && len(l.ToolUseResult) > 0 {
			var body string
			if json.Unmarshal(res[0].raw, &body) == nil && strings.HasPrefix(body, "<persisted-output>") {
				res[0].persisted = l.ToolUseResult
			}
		}
	case recAssistant:
		var m refMessage
		if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
			r.bad = true
			return r
		}
		if m.Model == "<synthetic>" {
			r.synthetic = true
			return r
		}
		r.msgID = m.ID
		if r.msgID == "" {
			r.msgID = "uuid:" + l.UUID
		}
		var blocks []refBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				r.contentBad = true
				return r
			}
			blocks = []refBlock{{Type: "text", Text: s}}
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				r.blocks = append(r.blocks, asstBlock{text: b.Text})
			case "tool_use":
				r.blocks = append(r.blocks, asstBlock{tool: true, id: b.ID, name: b.Name, input: b.Input})
			}
		}
	}
	return r
}

// refRawString is s as the content of a JSON string, as the record keeps
// the session and working directory (undecoded).
func refRawString(s string) []byte {
	if s == "" {
		return nil
	}
	b, _ := json.Marshal(s)
	return b[1 : len(b)-1]
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
			c.results = append(c.results, toolResult{id: b.ToolUseID, isError: b.IsError, content: absent, structured: absent,
				raw: b.Content, text: refResultText(b.Content), decoded: true})
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

// refResultText flattens a tool_result's content (a string or a list of
// blocks).
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

// refUUIDKey is the key of a decoded uuid: the 16 bytes of a canonical
// UUID, or a hash prefix of anything else.
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

// refLineOf is one line of a transcript as a line-by-line reader sees it.
type refLineOf struct {
	no        int    // its number in the transcript, from 1
	data      []byte // without its newline
	torn      bool   // the final line, without a newline
	oversized bool   // longer than MaxLineBytes: skipped
}

// refLines cuts a transcript into its non-empty lines, after a byte-order
// mark at its start.
func refLines(data []byte) []refLineOf {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []refLineOf
	for no := 1; len(data) > 0; no++ {
		l := refLineOf{no: no, data: data, torn: true}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l.data, l.torn, data = data[:i], false, data[i+1:]
		} else {
			data = nil
		}
		limit := MaxLineBytes
		if l.torn {
			limit++ // a final line without its newline may be a byte longer
		}
		if len(l.data) > 0 {
			l.oversized = len(l.data) > limit
			out = append(out, l)
		}
	}
	return out
}

// refRead reads a transcript as o says: the reference records, applied in
// order by the reader's parser, one line at a time and without the
// digests the scanning workers work out ahead.
func refRead(r io.Reader, o *ReadOptions) (*Transcript, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	if o == nil {
		o = &ReadOptions{}
	}
	p := newParser(!o.NoDigests)
	p.capture, p.session = o.Capture, o.Session
	if o.Observe != nil && o.CaptureTools != nil {
		p.captureTool, p.observe = o.CaptureTools, o.Observe
		p.obsText = p.observedText
	}
	for _, l := range refLines(data) {
		c := &chunk{lines: 1}
		switch {
		case l.oversized:
			c.over = 1
		case len(bytes.TrimSpace(l.data)) == 0:
		default:
			if r := refRecord(l.data, l.torn); r.kind == recNone {
				c.skipped = 1
			} else {
				c.recs = []lineRec{r}
			}
		}
		p.apply(c)
		if o.UntilFirstPrompt && p.t.Prompts > 0 {
			break
		}
	}
	p.finish()
	p.t.Captured = p.capture
	return p.t, nil
}

// recView is what the reader takes from a line's record, comparable and
// printable: raw fields as the text they decode to or the JSON they span.
type recView struct {
	Kind       string
	Sidechain  bool
	UUID       string // the uuid's key, in hex; "" for none
	SessionID  string
	Cwd        string
	Time       time.Time
	Boundary   bool
	Trigger    string
	Summary    bool
	Meta       bool
	Bad        bool
	Texts      []string
	IDE        []IDEContext
	Images     int
	Results    []resultView
	Synthetic  bool
	ContentBad bool
	MsgID      string
	Blocks     []blockView
}

type resultView struct {
	ID        string
	IsError   bool
	Content   string // the raw JSON of the result's content
	Text      string // flattened
	Persisted string // the line's toolUseResult, for a persisted output
}

type blockView struct {
	Tool           bool
	Text, ID, Name string
	Input          string // raw JSON
	HasInput       bool
}

var recKindNames = [...]string{recNone: "none", recMalformed: "malformed", recTorn: "torn",
	recUnknown: "unknown", recUser: "user", recAssistant: "assistant", recSystem: "system"}

// viewOf is the view of a record whose tool results carry raw, text and
// persisted (as refRecord's do, and scannedRecord's).
func viewOf(r *lineRec) recView {
	v := recView{
		Kind: recKindNames[r.kind], Sidechain: r.sidechain,
		SessionID: jsonscan.Decode(r.sessionID), Cwd: jsonscan.Decode(r.cwd), Time: r.ts,
		Boundary: r.boundary, Trigger: r.trigger, Summary: r.summary, Meta: r.meta, Bad: r.bad,
		Texts: r.content.texts, IDE: r.content.ide, Images: r.content.images,
		Synthetic: r.synthetic, ContentBad: r.contentBad, MsgID: r.msgID,
	}
	if r.hasUUID {
		v.UUID = hex.EncodeToString(r.uuid[:])
	}
	for _, res := range r.content.results {
		v.Results = append(v.Results, resultView{ID: res.id, IsError: res.isError, Content: string(res.raw), Text: res.text, Persisted: string(res.persisted)})
	}
	for _, b := range r.blocks {
		v.Blocks = append(v.Blocks, blockView{Tool: b.tool, Text: b.text, ID: b.id, Name: b.name, Input: string(b.input), HasInput: b.input != nil})
	}
	if len(v.Texts) == 0 {
		v.Texts = nil
	}
	if len(v.IDE) == 0 {
		v.IDE = nil
	}
	return v
}

// scannedRecord scans a line into r, and decodes its tool results as the
// reader does before applying them: content and toolUseResult cut from
// the line at the offsets the scanner found, content flattened.
func scannedRecord(s *lineScanner, line []byte, torn bool, r *lineRec) {
	s.parseLine(line, torn, r)
	for i := range r.content.results {
		res := &r.content.results[i]
		if res.content.a >= 0 {
			res.raw = line[res.content.a:res.content.b]
			if res.structured.a >= 0 && persistedPreview(res.raw) {
				res.persisted = line[res.structured.a:res.structured.b]
			}
		}
		res.text, res.decoded = s.resultText(res.content), true
	}
}

// checkRecords compares the scanner's record of each line of data with
// the reference's, and reports the first line that differs and how.
func checkRecords(t *testing.T, name string, data []byte) {
	t.Helper()
	var s lineScanner
	var got lineRec // reused, as the reader reuses its records
	for _, l := range refLines(data) {
		if l.oversized || len(bytes.TrimSpace(l.data)) == 0 {
			continue
		}
		want := refRecord(l.data, l.torn)
		scannedRecord(&s, l.data, l.torn, &got)
		if d := cmp.Diff(viewOf(&want), viewOf(&got)); d != "" {
			t.Fatalf("%s: line %d %.200q: record differs from encoding/json's (-want +got):\n%s", name, l.no, l.data, d)
		}
	}
}
