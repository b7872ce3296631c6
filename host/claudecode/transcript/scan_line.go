package transcript

import (
	"strconv"
	"time"

	"bottle/internal/jsonscan"
)

// lineScanner scans transcript lines: a JSON scanner and the buffers the
// line schema below reuses from one line to the next.
type lineScanner struct {
	jsonscan.Scanner
	blockBuf []block // the content blocks of one message
	tmp      []byte  // for decoding strings
}

// recKind says what a transcript line is, as far as the reader cares.
type recKind uint8

const (
	recNone      recKind = iota // blank, or an entry type the reader skips
	recMalformed                // not a JSON object of the expected shape
	recTorn                     // malformed, and the final line without a newline
	recUnknown                  // an entry type the reader does not know
	recUser
	recAssistant
	recSystem
)

// lineRec is one scanned line: everything the reader applies, decoded,
// without the bulk it skips. Raw fields point into the line.
type lineRec struct {
	off        int // the line's offset in its chunk
	kind       recKind
	sidechain  bool
	hasUUID    bool
	uuid       [16]byte
	sessionID  []byte // raw JSON string content; nil when absent
	cwd        []byte
	ts         time.Time
	boundary   bool   // system: a compact_boundary
	trigger    string // its compactMetadata.trigger
	summary    bool   // user: isCompactSummary
	meta       bool   // user: isMeta
	bad        bool   // user: message or content undecodable; assistant: message undecodable
	content    userContent
	synthetic  bool // assistant: model "<synthetic>"
	contentBad bool // assistant: content undecodable
	msgID      string
	blocks     []asstBlock
}

// asstBlock is a text or tool_use block of an assistant line.
type asstBlock struct {
	tool     bool
	text     string
	id, name string
	input    []byte
}

// val is the extent of a JSON value in the line; a < 0 when absent.
type val struct{ a, b int }

var absent = val{-1, -1}

// str is a string field: its raw content, set when a string was seen.
type str struct {
	jsonscan.Span
	set bool
}

var (
	lineFields = jsonscan.NewFieldSet("type", "subtype", "uuid", "sessionId", "cwd", "timestamp",
		"isSidechain", "isMeta", "isCompactSummary", "message", "compactMetadata", "toolUseResult")
	compactFields = jsonscan.NewFieldSet("trigger", "preTokens")
	messageFields = jsonscan.NewFieldSet("id", "model", "content")
	blockFields   = jsonscan.NewFieldSet("type", "text", "id", "name", "input", "tool_use_id", "content", "is_error")
	resultFields  = jsonscan.NewFieldSet("type", "text")
)

const (
	lfType = iota + 1
	lfSubtype
	lfUUID
	lfSessionID
	lfCwd
	lfTimestamp
	lfIsSidechain
	lfIsMeta
	lfIsCompactSummary
	lfMessage
	lfCompactMetadata
	lfToolUseResult
)

// parseLine scans one non-blank line into r.
func (s *lineScanner) parseLine(b []byte, torn bool, r *lineRec) {
	blocks, results := r.blocks[:0], r.content.results[:0]
	*r = lineRec{blocks: blocks}
	r.content.results = results
	r.kind = recMalformed
	if torn {
		r.kind = recTorn
	}
	if !s.Index(b) {
		return
	}
	var (
		typ, subtype, uuid, sess, cwd, ts str
		sidechain, meta, summary          bool
		msg, structured                   = absent, absent
		cm                                struct {
			set     bool
			trigger str
		}
	)
	p := s.WS(0)
	if p >= len(b) {
		return
	}
	switch b[p] {
	case 'n':
		// null decodes to an empty entry: an unknown type.
		if p = s.Literal(p); p < 0 || b[p-1] != 'l' || s.WS(p) != len(b) {
			return
		}
		r.kind = recUnknown
		return
	case '{':
	default:
		return
	}
	p = s.WS(p + 1)
	if p >= len(b) {
		return
	}
	if b[p] == '}' {
		p++
	} else {
		for {
			if b[p] != '"' {
				return
			}
			ke := s.Str(p)
			if ke < 0 {
				return
			}
			key := b[p+1 : ke-1]
			p = s.WS(ke)
			if p >= len(b) || b[p] != ':' {
				return
			}
			p = s.WS(p + 1)
			if p >= len(b) {
				return
			}
			switch lineFields.Match(key) {
			case lfType:
				p = s.strField(p, &typ)
			case lfSubtype:
				p = s.strField(p, &subtype)
			case lfUUID:
				p = s.strField(p, &uuid)
			case lfSessionID:
				p = s.strField(p, &sess)
			case lfCwd:
				p = s.strField(p, &cwd)
			case lfTimestamp:
				p = s.strField(p, &ts)
			case lfIsSidechain:
				p = s.boolField(p, &sidechain)
			case lfIsMeta:
				p = s.boolField(p, &meta)
			case lfIsCompactSummary:
				p = s.boolField(p, &summary)
			case lfMessage:
				e := s.Skip(p, 1)
				msg, p = val{p, e}, e
			case lfCompactMetadata:
				p = s.compactMetadata(p, &cm.set, &cm.trigger)
			case lfToolUseResult:
				e := s.Skip(p, 1)
				structured, p = val{p, e}, e
			default:
				p = s.Skip(p, 1)
			}
			if p < 0 {
				return
			}
			if p = s.WS(p); p >= len(b) {
				return
			}
			if b[p] == ',' {
				if p = s.WS(p + 1); p >= len(b) {
					return
				}
				continue
			}
			if b[p] != '}' {
				return
			}
			p++
			break
		}
	}
	if s.WS(p) != len(b) {
		return
	}

	// The line is a valid entry. Which kind?
	// The type, decoded in place when plain: no string is made of it.
	var t []byte
	if typ.set {
		if t = s.Raw(typ.Span); !jsonscan.Plain(t) {
			s.tmp = jsonscan.Append(s.tmp[:0], t)
			t = s.tmp
		}
	}
	if !knownTypes[string(t)] {
		r.kind = recUnknown
		return
	}
	switch string(t) {
	case "user":
		r.kind = recUser
	case "assistant":
		r.kind = recAssistant
	case "system":
		r.kind = recSystem
	default:
		r.kind = recNone
		return
	}
	if sidechain {
		r.sidechain = true
		return
	}
	if uuid.set {
		raw := s.Raw(uuid.Span)
		if k, ok := canonicalUUID(raw); ok {
			// The usual uuid: plain, no need to look for escapes.
			r.hasUUID, r.uuid = true, k
		} else {
			if !jsonscan.Plain(raw) {
				s.tmp = jsonscan.Append(s.tmp[:0], raw)
				raw = s.tmp
			}
			if len(raw) > 0 {
				r.hasUUID, r.uuid = true, uuidKey(raw)
			}
		}
	}
	if sess.set {
		r.sessionID = s.Raw(sess.Span)
	}
	if cwd.set {
		r.cwd = s.Raw(cwd.Span)
	}
	r.ts = s.parseTimeRaw(ts)
	switch r.kind {
	case recSystem:
		if s.fieldIs(subtype, "compact_boundary") {
			r.boundary = true
			if cm.set {
				r.trigger = s.fieldString(cm.trigger)
			}
		}
	case recUser:
		r.meta, r.summary = meta, summary
		if summary {
			return
		}
		c, ok := s.message(msg)
		if !ok {
			r.bad = true
			return
		}
		s.userContent(c, &r.content)
		r.bad = r.content.bad
		if len(r.content.results) == 1 {
			// The line's toolUseResult is its one result's: kept for the
			// digest of an output too large to be shown inline.
			r.content.results[0].structured = structured
		}
	case recAssistant:
		s.assistant(msg, uuid, r)
	}
}

// fieldString decodes a string field ("" when unset).
func (s *lineScanner) fieldString(f str) string {
	if !f.set {
		return ""
	}
	return s.decode(s.Raw(f.Span))
}

// decode decodes raw string content, through a reused buffer when it has
// escapes.
func (s *lineScanner) decode(raw []byte) string {
	if jsonscan.Plain(raw) {
		return string(raw)
	}
	s.tmp = jsonscan.Append(s.tmp[:0], raw)
	return string(s.tmp)
}

// fieldIs reports whether a string field decodes to want.
func (s *lineScanner) fieldIs(f str, want string) bool {
	if !f.set {
		return want == ""
	}
	raw := s.Raw(f.Span)
	if jsonscan.Plain(raw) {
		return string(raw) == want
	}
	return jsonscan.Decode(raw) == want
}

// strField decodes a string field's value at p into f (null leaves it);
// any other value is an error (-1).
func (s *lineScanner) strField(p int, f *str) int {
	switch s.Bytes()[p] {
	case '"':
		e := s.Str(p)
		if e < 0 {
			return -1
		}
		f.Span, f.set = jsonscan.Span{A: p + 1, B: e - 1}, true
		return e
	case 'n':
		return s.null(p)
	}
	return -1
}

// boolField decodes a bool field's value at p (null leaves it).
func (s *lineScanner) boolField(p int, v *bool) int {
	e := s.Literal(p)
	if e < 0 {
		return -1
	}
	switch s.Bytes()[p] {
	case 't':
		*v = true
	case 'f':
		*v = false
	}
	return e
}

// null returns the end of null at p, or -1.
func (s *lineScanner) null(p int) int {
	if e := s.Literal(p); e > 0 && s.Bytes()[p] == 'n' {
		return e
	}
	return -1
}

// compactMetadata decodes compactMetadata {trigger string, preTokens int}
// into a pointer's worth of state: null clears it, an object fills it
// (merging into an earlier one, as encoding/json reuses the pointer).
func (s *lineScanner) compactMetadata(p int, set *bool, trigger *str) int {
	b := s.Bytes()
	switch b[p] {
	case 'n':
		if p = s.null(p); p > 0 {
			*set, *trigger = false, str{}
		}
		return p
	case '{':
	default:
		return -1
	}
	if !*set {
		*set, *trigger = true, str{}
	}
	return s.object(p, 1, func(field, p int) int {
		switch compactFields.Match(b[field+1 : s.StrEnd(field+1)]) {
		case 1:
			return s.strField(p, trigger)
		case 2: // preTokens int
			switch c := b[p]; {
			case c == 'n':
				return s.null(p)
			case c == '-' || '0' <= c && c <= '9':
				e := s.Number(p)
				if e < 0 {
					return -1
				}
				if _, err := strconv.ParseInt(string(b[p:e]), 10, 64); err != nil {
					return -1
				}
				return e
			}
			return -1
		}
		return s.Skip(p, 2)
	})
}

// object walks the object at p (b[p] == '{'), calling field for each
// member with the position of its key and of its value; field returns the
// end of the value or -1. depth counts the containers around the object.
func (s *lineScanner) object(p, depth int, field func(key, p int) int) int {
	b := s.Bytes()
	if depth+1 > jsonscan.MaxDepth {
		return -1
	}
	p = s.WS(p + 1)
	if p >= len(b) {
		return -1
	}
	if b[p] == '}' {
		return p + 1
	}
	for {
		if b[p] != '"' {
			return -1
		}
		k := p
		if p = s.ObjKey(p); p < 0 {
			return -1
		}
		if p = field(k, p); p < 0 {
			return -1
		}
		if p = s.WS(p); p >= len(b) {
			return -1
		}
		switch b[p] {
		case ',':
			if p = s.WS(p + 1); p >= len(b) {
				return -1
			}
		case '}':
			return p + 1
		default:
			return -1
		}
	}
}

// array walks the array at p (b[p] == '['), calling elem for each element.
func (s *lineScanner) array(p, depth int, elem func(p int) int) int {
	b := s.Bytes()
	if depth+1 > jsonscan.MaxDepth {
		return -1
	}
	p = s.WS(p + 1)
	if p >= len(b) {
		return -1
	}
	if b[p] == ']' {
		return p + 1
	}
	for {
		if p = elem(p); p < 0 {
			return -1
		}
		if p = s.WS(p); p >= len(b) {
			return -1
		}
		switch b[p] {
		case ',':
			if p = s.WS(p + 1); p >= len(b) {
				return -1
			}
		case ']':
			return p + 1
		default:
			return -1
		}
	}
}

// keyAt returns the raw key whose opening quote is at k.
func (s *lineScanner) keyAt(k int) []byte { return s.Bytes()[k+1 : s.StrEnd(k+1)] }

// message decodes the message field {id, model string; content any} and
// returns its content (absent when missing or null). ok is false when the
// message is missing or is not an object or null of that shape.
func (s *lineScanner) message(m val) (content val, ok bool) {
	content, _, _, ok = s.messageFields(m)
	return content, ok
}

func (s *lineScanner) messageFields(m val) (content val, id, model str, ok bool) {
	content = absent
	if m.a < 0 {
		return content, id, model, false
	}
	switch s.Bytes()[m.a] {
	case 'n':
		return content, id, model, true
	case '{':
	default:
		return content, id, model, false
	}
	e := s.object(m.a, 1, func(k, p int) int {
		switch messageFields.Match(s.keyAt(k)) {
		case 1:
			return s.strField(p, &id)
		case 2:
			return s.strField(p, &model)
		case 3:
			e := s.Skip(p, 2)
			content = val{p, e}
			return e
		}
		return s.Skip(p, 2)
	})
	return content, id, model, e > 0
}

// block is a content block's fields as spans.
type block struct {
	typ, text, id, name, toolUseID str
	input, content                 val
	isError                        bool
}

// blocks decodes a list of content blocks at p into out; false when an
// element is neither an object nor null or a field has the wrong type.
func (s *lineScanner) blocks(p, depth int, out *[]block) bool {
	e := s.array(p, depth, func(p int) int {
		*out = append(*out, block{input: absent, content: absent})
		bl := &(*out)[len(*out)-1]
		switch s.Bytes()[p] {
		case 'n':
			return s.null(p)
		case '{':
		default:
			return -1
		}
		return s.object(p, depth+1, func(k, p int) int {
			switch blockFields.Match(s.keyAt(k)) {
			case 1:
				return s.strField(p, &bl.typ)
			case 2:
				return s.strField(p, &bl.text)
			case 3:
				return s.strField(p, &bl.id)
			case 4:
				return s.strField(p, &bl.name)
			case 5:
				e := s.Skip(p, depth+2)
				bl.input = val{p, e}
				return e
			case 6:
				return s.strField(p, &bl.toolUseID)
			case 7:
				e := s.Skip(p, depth+2)
				bl.content = val{p, e}
				return e
			case 8:
				return s.boolField(p, &bl.isError)
			}
			return s.Skip(p, depth+2)
		})
	})
	return e > 0
}

// userContent decodes a user message's content as parseUserContent did
// with encoding/json: a string, a list of blocks, or nothing.
func (s *lineScanner) userContent(v val, c *userContent) {
	if v.a < 0 {
		return
	}
	switch s.Bytes()[v.a] {
	case 'n':
		return
	case '"':
		c.texts = []string{s.decode(s.Bytes()[v.a+1 : v.b-1])}
		return
	case '[':
	default:
		c.bad = true
		return
	}
	list := s.blockBuf[:0]
	defer func() { s.blockBuf = list[:0] }()
	if !s.blocks(v.a, 2, &list) {
		c.bad = true
		return
	}
	for i := range list {
		bl := &list[i]
		switch {
		case s.fieldIs(bl.typ, "text"):
			t := s.fieldString(bl.text)
			if isContextBlock(t) {
				if ide, ok := ideContext(t); ok {
					c.ide = append(c.ide, ide)
				}
				continue
			}
			c.texts = append(c.texts, t)
		case s.fieldIs(bl.typ, "image"), s.fieldIs(bl.typ, "document"):
			c.images++
		case s.fieldIs(bl.typ, "tool_result"):
			c.results = append(c.results, toolResult{id: s.fieldString(bl.toolUseID), content: bl.content, isError: bl.isError, structured: absent})
		}
	}
}

// resultText flattens a tool_result's content (a string or a list of
// blocks) as resultText did with encoding/json.
func (s *lineScanner) resultText(v val) string {
	if v.a >= 0 && s.Bytes()[v.a] == '"' {
		return s.decode(s.Bytes()[v.a+1 : v.b-1])
	}
	s.tmp = s.resultAppend(s.tmp[:0], v)
	return string(s.tmp)
}

// resultAppend appends the flattened tool_result content to dst.
func (s *lineScanner) resultAppend(dst []byte, v val) []byte {
	if v.a < 0 {
		return dst
	}
	b := s.Bytes()
	switch b[v.a] {
	case '"':
		return jsonscan.Append(dst, b[v.a+1:v.b-1])
	case '[':
	default:
		return dst
	}
	type item struct{ typ, text str }
	var items []item
	e := s.array(v.a, 4, func(p int) int {
		items = append(items, item{})
		it := &items[len(items)-1]
		switch b[p] {
		case 'n':
			return s.null(p)
		case '{':
		default:
			return -1
		}
		return s.object(p, 5, func(k, p int) int {
			switch resultFields.Match(s.keyAt(k)) {
			case 1:
				return s.strField(p, &it.typ)
			case 2:
				return s.strField(p, &it.text)
			}
			return s.Skip(p, 6)
		})
	})
	if e < 0 {
		return dst
	}
	for i, it := range items {
		if i > 0 {
			dst = append(dst, '\n')
		}
		switch t := s.fieldString(it.typ); t {
		case "text":
			if it.text.set {
				dst = jsonscan.Append(dst, s.Raw(it.text.Span))
			}
		case "image":
			dst = append(dst, "[image]"...)
		default:
			dst = append(dst, "["+t+"]"...)
		}
	}
	return dst
}

// assistant decodes an assistant line's message into r.
func (s *lineScanner) assistant(m val, uuid str, r *lineRec) {
	content, id, model, ok := s.messageFields(m)
	if !ok {
		r.bad = true
		return
	}
	if s.fieldIs(model, "<synthetic>") {
		r.synthetic = true
		return
	}
	r.msgID = s.fieldString(id)
	if r.msgID == "" {
		r.msgID = "uuid:" + s.fieldString(uuid)
	}
	if content.a < 0 {
		r.contentBad = true // no content: neither blocks nor a string
		return
	}
	switch s.Bytes()[content.a] {
	case 'n':
		return
	case '"':
		r.blocks = append(r.blocks, asstBlock{text: s.decode(s.Bytes()[content.a+1 : content.b-1])})
		return
	case '[':
	default:
		r.contentBad = true
		return
	}
	list := s.blockBuf[:0]
	defer func() { s.blockBuf = list[:0] }()
	if !s.blocks(content.a, 2, &list) {
		r.contentBad = true
		return
	}
	for i := range list {
		bl := &list[i]
		switch {
		case s.fieldIs(bl.typ, "text"):
			r.blocks = append(r.blocks, asstBlock{text: s.fieldString(bl.text)})
		case s.fieldIs(bl.typ, "tool_use"):
			ab := asstBlock{tool: true, id: s.fieldString(bl.id), name: s.fieldString(bl.name)}
			if bl.input.a >= 0 {
				ab.input = s.Bytes()[bl.input.a:bl.input.b] // a view: the apply copies what it keeps
			}
			r.blocks = append(r.blocks, ab)
		}
	}
}
