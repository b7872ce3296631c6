package transcript

import (
	"bytes"
	"strings"
	"sync/atomic"
	"unsafe"

	"bottle/internal/jsonscan"
	"bottle/render/digest"
)

// speculator digests tool calls in a scanning worker, so that the digests
// (the costliest part of applying a line) run in parallel. A worker sees
// only its chunk: it digests a tool_result whose tool_use came earlier in
// the same chunk, with the working directory the transcript is known to
// have (or, before that is known, the line's own). The in-order apply
// takes the digest only when the call it registered has the same tool,
// input and working directory; otherwise it digests the call itself.
type speculator struct {
	on      bool
	few     bool // measure one-string results, decode none (parser.few)
	cwd     *atomic.Pointer[string]
	tools   map[string]specTool // tool_use id -> its first tool_use in the chunk
	scratch []byte              // a tool result's text, reused
	call    digest.Call         // the digests' scratch call
}

type specTool struct {
	name  string
	input []byte
}

// specDigest is a digest worked out by a worker and what it assumed.
type specDigest struct {
	ok      bool
	name    string
	input   []byte
	cwd     string
	textLen int // bytes of the result text
	line    digest.Line
}

func (p *parser) newSpeculator() *speculator {
	return &speculator{on: p.speculate, few: p.few, cwd: &p.cwd, tools: make(map[string]specTool)}
}

// reset forgets the tool calls of the previous chunk.
func (sp *speculator) reset() { clear(sp.tools) }

// toolUses notes the tool_use blocks of an assistant line.
func (sp *speculator) toolUses(r *lineRec) {
	if !sp.on {
		return
	}
	for _, b := range r.blocks {
		if b.tool && b.id != "" {
			if _, ok := sp.tools[b.id]; !ok {
				sp.tools[b.id] = specTool{b.name, b.input}
			}
		}
	}
}

// results decodes the tool results of a user line just scanned by s:
// digested when the worker saw the call, else as text for the apply.
func (sp *speculator) results(s *lineScanner, r *lineRec) {
	for i := range r.content.results {
		res := &r.content.results[i]
		if res.content.a >= 0 {
			res.raw = s.Bytes()[res.content.a:res.content.b]
			if res.structured.a >= 0 && persistedPreview(res.raw) {
				res.persisted = s.Bytes()[res.structured.a:res.structured.b]
			}
		}
		_, isStr := res.body()
		if isStr && (sp.on || sp.few) {
			// Measured here, in parallel; decoded only as far as the
			// digest reads it.
			res.textLen, res.measured = s.StrLen(res.content.a+1, res.content.b-1), true
		}
		t, ok := sp.tools[res.id]
		if !sp.on || !ok {
			if !res.measured && !sp.few {
				res.text, res.decoded = s.resultText(res.content), true
			}
			continue
		}
		cwd := ""
		if c := sp.cwd.Load(); c != nil {
			cwd = *c
		} else if len(r.cwd) > 0 {
			cwd = jsonscan.Decode(r.cwd)
		}
		if isStr {
			f := digestRaw(&sp.call, t.name, t.input, s.String(res.content.a+1, res.content.b-1), res.persisted, res.isError, cwd)
			res.spec = specDigest{ok: true, name: t.name, input: t.input, cwd: cwd, textLen: res.textLen, line: f}
			continue
		}
		sp.scratch = s.resultAppend(sp.scratch[:0], res.content)
		// The text lives in scratch only while the digester runs; the
		// default digester builds its lines afresh (own checks anyway).
		text := ""
		if len(sp.scratch) > 0 {
			text = unsafe.String(&sp.scratch[0], len(sp.scratch))
		}
		f := digestText(&sp.call, t.name, t.input, text, res.persisted, true, res.isError, cwd)
		f.Own(sp.own)
		res.spec = specDigest{ok: true, name: t.name, input: t.input, cwd: cwd, textLen: len(sp.scratch), line: f}
	}
}

// body returns the body of the result's content when it is a JSON string
// (the bytes between the quotes).
func (r *toolResult) body() ([]byte, bool) {
	if len(r.raw) < 2 || r.raw[0] != '"' {
		return nil, false
	}
	return r.raw[1 : len(r.raw)-1], true
}

// own returns s, copied if it points into the scratch buffer.
func (sp *speculator) own(s string) string {
	if len(s) == 0 || cap(sp.scratch) == 0 {
		return s
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	b := uintptr(unsafe.Pointer(unsafe.SliceData(sp.scratch)))
	if p >= b && p < b+uintptr(cap(sp.scratch)) {
		return string([]byte(s))
	}
	return s
}

// persistedPreview reports whether raw, a tool_result's content, is the
// string Claude Code puts in place of an output too large to show inline:
// "<persisted-output>" and a preview.
func persistedPreview(raw []byte) bool {
	const tag = digest.PersistedTag
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	if bytes.HasPrefix(raw[1:], []byte(tag)) {
		return true
	}
	// An escaped '<' (rare): decode to tell.
	return bytes.HasPrefix(raw[1:], []byte(`\u`)) && strings.HasPrefix(jsonscan.Decode(raw[1:len(raw)-1]), tag)
}
