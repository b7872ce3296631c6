package transcript

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/panics"

	"bottle/internal/jsonscan"
	"bottle/render/digest"
	"bottle/session"
)

// MaxLineBytes is the longest transcript line the reader decodes. Real lines
// reach about 1 MB (base64 images); longer ones are skipped and counted, so a
// hostile 100 MB line costs no memory.
const MaxLineBytes = 32 << 20

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

// Read reads the transcript at path. Anything but a regular file (a
// directory, a FIFO, a device) is refused before it is opened, so a FIFO
// cannot block the reader. It fails only when the file cannot be read;
// every problem inside the data is skipped and counted in Transcript.Diag.
// It offers resume points (ReadOptions.Resume, From; resume.go); it fails
// with session.ErrResume when it cannot go on from the point given.
func Read(ctx context.Context, path string, o *ReadOptions) (*Transcript, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if o != nil && o.From != nil {
		return readResumed(ctx, f, path, o)
	}
	t, err := reader{}.read(ctxReader{ctx, f}, o, nil)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if t.Resume != nil && sealPoint(f, t.Resume) != nil {
		t.Resume = nil // cut shorter meanwhile: no point
	}
	return t, nil
}

// ReadFrom reads a transcript stream. It fails only when r fails; every
// problem inside the data is skipped and counted in Transcript.Diag.
func ReadFrom(r io.Reader, o *ReadOptions) (*Transcript, error) { return reader{}.readFrom(r, o) }

// reader is how a transcript is read: Read and ReadFrom use the zero
// value; tests set small chunks to put lines across their boundaries.
type reader struct {
	// chunkSize is the size of the read buffers, each scanned by one
	// worker; 0 is defaultChunkSize.
	chunkSize int
}

func (rd reader) readFrom(r io.Reader, o *ReadOptions) (*Transcript, error) {
	if o != nil && (o.From != nil || o.Resume) {
		// A point is a file's: a stream is read whole, without one.
		c := *o
		c.From, c.Resume = nil, false
		o = &c
	}
	t, err := rd.read(r, o, nil)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return t, nil
}

// openRegular opens a transcript, refusing anything but a regular file.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read transcript %s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	return f, nil
}

// ctxReader stops a read when its context is done. The reader looks
// through it for the *os.File it wraps (to size and map the file).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// read reads a transcript as o says.
//
// The stream is cut into chunks of whole lines (readParallel). Goroutines
// take turns reading a chunk, scan it into compact records (the lines'
// decoded fields, without the bulk the bottle never shows: scan*.go), and
// apply the scanned chunks in file order, so the result is the same as a
// line-by-line read. At most a few chunks are in flight: memory does not
// grow with the transcript, only with what the transcript keeps.
//
// With from, r stands at from.Offset and the parser goes on from the
// state there (see resume.go).
func (rd reader) read(r io.Reader, o *ReadOptions, from *pointState) (*Transcript, error) {
	if o == nil {
		o = &ReadOptions{}
	}
	firstPrompt := o.UntilFirstPrompt
	p := newParser(!o.NoDigests)
	p.capture, p.session = o.Capture, o.Session
	if o.Observe != nil && o.CaptureTools != nil {
		p.captureTool, p.observe = o.CaptureTools, o.Observe
		p.obsText = p.observedText
	}
	// Digests are pure and safe for concurrent use, so the scanning
	// workers may work them out; a captured call's result is decoded in
	// file order all the same.
	p.speculate = p.digests
	p.few = o.FewResults && !p.digests
	if size := sizeHint(r); size > 0 && !firstPrompt && from == nil {
		p.presize(size)
	}
	if (o.Resume || from != nil) && !firstPrompt {
		p.rs = &resumer{}
	}
	lr := &lineReader{r: r}
	if from != nil {
		p.resumeFrom(from)
		// Mid-file: no byte-order mark to skip.
		lr.pos, lr.started = from.Offset, true
	}
	size := rd.chunkSize
	if size <= 0 {
		size = defaultChunkSize
	}
	lr.size = size
	var src chunkSource = lr
	var err error
	if firstPrompt || runtime.GOMAXPROCS(0) == 1 {
		err = p.readSequential(src, firstPrompt)
	} else {
		if mr := openMap(r); mr != nil {
			defer mr.close()
			err = p.readMapped(mr)
		} else {
			err = p.readParallel(src)
		}
	}
	if err != nil {
		return nil, err
	}
	p.t.Captured = p.capture
	lines, over := src.skipped()
	p.t.Diag.Lines += lines
	p.t.Diag.Oversized += over
	p.finish()
	if p.rs != nil {
		if from != nil && (p.rs.bad || len(p.t.Events) > 0 && p.t.Events[0].Kind != EvPrompt) {
			// A line after the point refers to one before it (or the
			// point is not a turn's start after all).
			return nil, session.ErrResume
		}
		p.t.Resume = p.rs.point(from)
		p.t.Resumed = from != nil
	}
	if len(p.t.Events) == 0 {
		p.t.Events = nil // as without the size hint
	}
	if len(p.t.Tools) == 0 {
		p.t.Tools = nil
	}
	return p.t, nil
}

// presize grows the transcript's slices and the uuid set once for a file of
// size bytes, instead of doubling them up from nothing (corpus and
// synthetic transcripts hold an event per 12–16 KB, a tool call per 20 KB,
// an entry per 3–7 KB).
func (p *parser) presize(size int64) {
	p.t.Events = make([]Event, 0, min(size/12288, 1<<20)+16)
	p.t.Tools = make([]ToolCall, 0, min(size/16384, 1<<20)+16)
	p.seen = make(map[[16]byte]struct{}, min(size/3072, 1<<22))
	// Write the slices' fresh pages now: a first access by the collector's
	// write barrier (which reads a slot before writing it) would map the
	// zero page, and the write after it would cost a second fault and a
	// TLB flush on every core.
	clear(p.t.Events[:cap(p.t.Events)])
	clear(p.t.Tools[:cap(p.t.Tools)])
}

// sizeHint is the size of the transcript file behind r, or 0.
func sizeHint(r io.Reader) int64 {
	if cr, ok := r.(ctxReader); ok {
		r = cr.r
	}
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// defaultChunkSize is the size of the read buffers, each scanned by one
// worker; only buffers of this size are kept for the next read.
const defaultChunkSize = 256 << 10

// maxKeptBuffer is the largest buffer (grown for a long line) that is reused.
const maxKeptBuffer = 4 << 20

// chunkBufs keeps the chunk buffers of finished parallel reads for the
// next: a search reads many transcripts one after another, and a fresh
// 256 KB buffer per chunk of each was most of what it allocated.
var chunkBufs sync.Pool

// recycle hands c's buffer to chunkBufs. Only a chunk back in a pipeline's
// free list may be recycled: one that is applied, from which nothing is
// still viewed.
func (c *chunk) recycle() {
	if b := c.buf; cap(b) == defaultChunkSize {
		chunkBufs.Put(&b)
	}
	c.buf = nil
}

// clearRecs empties the chunk's records once applied, dropping what they
// hold but keeping the arrays of their blocks and tool results for the
// records of the chunk's next lines: a fresh slice per line was ~6 MB of
// a 400 MB transcript's allocations.
func (c *chunk) clearRecs() {
	for i := range c.recs {
		r := &c.recs[i]
		clear(r.blocks)
		clear(r.content.results)
		*r = lineRec{blocks: r.blocks[:0], content: userContent{results: r.content.results[:0]}}
	}
	c.recs = c.recs[:0]
}

// chunk is a run of whole lines and, once scanned, their records.
type chunk struct {
	buf []byte // the read buffer (data is a prefix of it), if any
	end int    // in a mapped file: the offset after the chunk
	// base is the offset of data in the file; noBase: not known (a line
	// too long to read was skipped before it).
	base   int64
	noBase bool
	data   []byte // whole lines; the last one lacks its newline only at EOF
	eof    bool
	lines  int // lines scanned (Diagnostics.Lines)
	over   int // oversized lines among them
	// skipped counts the entries of types the reader skips, whose records
	// are dropped at once.
	skipped int
	recs    []lineRec
	// scanned is set once the records are ready to apply.
	scanned atomic.Bool
	pc      panics.Catcher
}

// byteOrderMark is UTF-8's byte-order mark. Editors and tools on Windows
// write it at the start of a file; the first line is read after it (JSON
// has no place for it: the line would otherwise be malformed and, being
// the first, is often the session's opening prompt).
var byteOrderMark = []byte("\xef\xbb\xbf")

// lineReader cuts a stream into chunks of whole lines.
type lineReader struct {
	r       io.Reader
	size    int    // the chunks' size
	carry   []byte // the start of a line read past the previous chunk
	started bool   // the stream's first bytes are read (and a mark skipped)
	eof     bool
	// pos is the offset in the file of carry's first byte; lost: not
	// known since a line too long to read was skipped.
	pos  int64
	lost bool
	// lines longer than any buffer, skipped while reading
	lines, over int
}

// next reads the next chunk into c (reusing its buffer); it returns false
// at the end of the stream.
func (lr *lineReader) next(c *chunk) (bool, error) {
	if c.buf == nil {
		if b, ok := chunkBufs.Get().(*[]byte); ok && cap(*b) == lr.size {
			c.buf = *b
		}
	}
	if c.buf == nil || cap(c.buf) > maxKeptBuffer {
		c.buf = make([]byte, 0, lr.size)
	}
	buf := append(c.buf[:0], lr.carry...)
	lr.carry = lr.carry[:0]
	for {
		for empty := 0; !lr.eof && len(buf) < cap(buf); {
			n, err := lr.r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			switch {
			case err == io.EOF:
				lr.eof = true
			case err != nil:
				c.buf = buf
				return false, err
			case n == 0:
				if empty++; empty == 100 { // as bufio.Reader does
					c.buf = buf
					return false, io.ErrNoProgress
				}
			}
		}
		if !lr.started {
			lr.started = true
			if bytes.HasPrefix(buf, byteOrderMark) {
				buf = buf[:copy(buf, buf[len(byteOrderMark):])]
				lr.pos += int64(len(byteOrderMark))
			}
		}
		c.base, c.noBase = lr.pos, lr.lost
		if lr.eof {
			c.buf, c.data, c.eof = buf, buf, true
			lr.pos += int64(len(buf))
			return len(buf) > 0, nil
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			lr.carry = append(lr.carry, buf[i+1:]...)
			c.buf, c.data, c.eof = buf, buf[:i+1], false
			lr.pos += int64(i + 1)
			return true, nil
		}
		// A full buffer without a newline: one line longer than it.
		if len(buf) <= MaxLineBytes+1 {
			nb := make([]byte, len(buf), min(2*cap(buf), MaxLineBytes+2))
			copy(nb, buf)
			buf = nb
			continue
		}
		// Longer than any line the reader decodes: skip to its end.
		lr.lines++
		lr.over++
		lr.lost = true
		buf = buf[:0]
		for empty := 0; !lr.eof; {
			full := buf[:cap(buf)]
			n, err := lr.r.Read(full)
			switch {
			case err == io.EOF:
				lr.eof = true
			case err != nil:
				c.buf = buf
				return false, err
			case n == 0:
				if empty++; empty == 100 {
					c.buf = buf
					return false, io.ErrNoProgress
				}
			}
			if i := bytes.IndexByte(full[:n], '\n'); i >= 0 {
				buf = full[:copy(full, full[i+1:n])]
				break
			}
		}
	}
}

// scan scans the lines of c into records; with sp it digests the tool
// calls it can.
func (c *chunk) scan(s *lineScanner, sp *speculator) {
	c.recs = c.recs[:0]
	c.lines, c.over, c.skipped = 0, 0, 0
	sp.reset()
	for data := c.data; len(data) > 0; {
		off := len(c.data) - len(data)
		line, torn := data, false
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data, torn = nil, true
		}
		limit := MaxLineBytes
		if torn {
			limit++ // as ever: a final line without its newline may be a byte longer
		}
		if len(line) == 0 {
			continue
		}
		c.lines++
		if len(line) > limit {
			c.over++
			continue
		}
		if blank(line) {
			continue
		}
		if len(c.recs) == cap(c.recs) {
			c.recs = append(c.recs, lineRec{})
		} else {
			c.recs = c.recs[:len(c.recs)+1]
		}
		r := &c.recs[len(c.recs)-1]
		s.parseLine(line, torn, r)
		r.off = off
		switch r.kind {
		case recNone:
			c.skipped++
			c.recs = c.recs[:len(c.recs)-1]
		case recUser:
			if !r.sidechain && !r.bad && len(r.content.results) > 0 {
				sp.results(s, r)
			}
		case recAssistant:
			if !r.sidechain && !r.bad && !r.synthetic && !r.contentBad {
				sp.toolUses(r)
			}
		}
	}
}

// blank reports whether a line is empty after bytes.TrimSpace.
func blank(line []byte) bool {
	if c := line[0]; c < utf8.RuneSelf && c != ' ' && (c < '\t' || c > '\r') {
		return false
	}
	return len(bytes.TrimSpace(line)) == 0
}

// readSequential reads and applies one chunk after the other in this
// goroutine; with firstPrompt it stops after the first genuine prompt.
func (p *parser) readSequential(src chunkSource, firstPrompt bool) error {
	var s lineScanner
	sp := p.newSpeculator()
	c := &chunk{}
	for {
		more, err := src.next(c)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		if !firstPrompt {
			c.scan(&s, sp)
			p.apply(c)
			continue
		}
		// One line at a time, to stop right after the first prompt (the
		// parallel reader would apply the whole chunk).
		whole := c.data
		for len(whole) > 0 {
			i := bytes.IndexByte(whole, '\n')
			if i < 0 {
				i = len(whole) - 1
			}
			c.data, whole = whole[:i+1], whole[i+1:]
			c.scan(&s, sp)
			p.apply(c)
			if p.t.Prompts > 0 {
				return nil
			}
		}
	}
}

// readParallel reads with GOMAXPROCS goroutines, this one included. Each
// loops: read the next chunk (under a lock, so chunks are cut in order
// and the data is still in the reader's cache when it scans), scan it,
// then apply every chunk that is scanned and next in file order, if no
// other goroutine is applying. No goroutine waits while there is work,
// and the records are applied in file order.
func (p *parser) readParallel(src chunkSource) error {
	workers := runtime.GOMAXPROCS(0)
	first := &chunk{}
	more, err := src.next(first)
	if err != nil || !more {
		return err
	}
	if first.eof {
		// Small input: one chunk, no goroutines.
		var s lineScanner
		first.scan(&s, p.newSpeculator())
		p.apply(first)
		return nil
	}
	pl := &pipeline{p: p, src: src, free: make(chan *chunk, 2*workers+2), quit: make(chan struct{})}
	for range cap(pl.free) - 1 {
		pl.free <- &chunk{}
	}
	pl.queue = append(pl.queue, first)
	var wg conc.WaitGroup
	for range workers - 1 {
		wg.Go(func() { pl.work(nil) })
	}
	pl.work(first)
	wg.Wait()
	pl.applyReady()
	if pl.failed == nil {
		// Every chunk is back in the free list once all are applied.
		for range len(pl.free) {
			(<-pl.free).recycle()
		}
	}
	if pl.failed != nil {
		if r := pl.failed.Recovered(); r != nil && isFault(r.Value) {
			return errChanged
		}
		pl.failed.Repanic()
	}
	return pl.readErr
}

// readMapped reads a mapped file. A mapped file cut shorter while it is
// read faults instead of ending early: the fault is a panic (in every
// goroutine touching the map), turned into an error.
func (p *parser) readMapped(mr *mapReader) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			err = errChanged
		}
	}()
	return p.readParallel(mr)
}

// pipeline is the shared state of readParallel.
type pipeline struct {
	p       *parser
	src     chunkSource
	readMu  sync.Mutex // guards src, eof and readErr, and orders the queue
	eof     bool
	readErr error
	qMu     sync.Mutex
	queue   []*chunk // chunks read and not yet applied, in file order
	applyMu sync.Mutex
	free    chan *chunk
	quit    chan struct{} // closed at the end of the input or on a panic
	stop    sync.Once
	failed  *panics.Catcher // the first panic, scanning or applying
	failMu  sync.Mutex
}

// work reads, scans and applies until the input ends; c is a chunk
// already read and queued.
func (pl *pipeline) work(c *chunk) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var s lineScanner
	sp := pl.p.newSpeculator()
	for {
		if c == nil {
			select {
			case c = <-pl.free:
			case <-pl.quit:
				pl.applyReady()
				return
			}
			if !pl.read(c) {
				pl.applyReady()
				return
			}
		}
		c.pc.Try(func() { c.scan(&s, sp) })
		c.scanned.Store(true)
		pl.applyReady()
		c = nil
	}
}

// read reads the next chunk into c and queues it; false at the end.
func (pl *pipeline) read(c *chunk) bool {
	pl.readMu.Lock()
	defer pl.readMu.Unlock()
	if pl.eof {
		return false
	}
	c.scanned.Store(false)
	more, err := pl.src.next(c)
	if err != nil || !more {
		pl.eof, pl.readErr = true, err
		pl.stop.Do(func() { close(pl.quit) })
		return false
	}
	pl.qMu.Lock()
	pl.queue = append(pl.queue, c)
	pl.qMu.Unlock()
	return true
}

// head returns the next chunk to apply if it is scanned.
func (pl *pipeline) head() *chunk {
	pl.qMu.Lock()
	defer pl.qMu.Unlock()
	if len(pl.queue) == 0 || !pl.queue[0].scanned.Load() {
		return nil
	}
	c := pl.queue[0]
	pl.queue = pl.queue[1:]
	return c
}

// applyReady applies the scanned chunks at the head of the queue, unless
// another goroutine is applying (it will see them: it checks again after
// letting go of the lock).
func (pl *pipeline) applyReady() {
	for {
		if !pl.applyMu.TryLock() {
			return
		}
		for {
			c := pl.head()
			if c == nil {
				break
			}
			if pl.failed == nil {
				if c.pc.Recovered() != nil {
					pl.fail(&c.pc)
				} else {
					var pc panics.Catcher
					pc.Try(func() { pl.p.apply(c) })
					if pc.Recovered() != nil {
						pl.fail(&pc)
					}
				}
			}
			c.clearRecs()
			pl.src.release(c)
			pl.free <- c
		}
		pl.applyMu.Unlock()
		pl.qMu.Lock()
		ready := len(pl.queue) > 0 && pl.queue[0].scanned.Load()
		pl.qMu.Unlock()
		if !ready {
			return
		}
	}
}

// fail records the first panic and stops the reading.
func (pl *pipeline) fail(pc *panics.Catcher) {
	pl.failMu.Lock()
	if pl.failed == nil {
		pl.failed = pc
	}
	pl.failMu.Unlock()
	pl.readMu.Lock()
	pl.eof = true
	pl.readMu.Unlock()
	pl.stop.Do(func() { close(pl.quit) })
}

// parser applies scanned records in file order.
type parser struct {
	t       *Transcript
	digests bool // work out ToolCall.Line
	// few: results are measured while scanning, and decoded only when
	// Observe asks (ReadOptions.FewResults; no digests).
	few     bool
	session string // ReadOptions.Session
	seen    map[[16]byte]struct{}
	msgs    map[string]int // assistant message.id -> index of its event
	blocks  map[[2]string]struct{}
	tools   map[string]int // tool_use id -> index into t.Tools
	// pending holds, by index into t.Tools, the calls still waiting for
	// their results (ids are distinct in t.Tools).
	pending []pendingCall
	viewed  []int // pending calls whose input still points into the chunk
	// lastMsg and lastIdx repeat the newest msgs entry: the blocks of a
	// message mostly come in a row.
	lastMsg  string
	lastIdx  int
	sized    bool // the maps are sized after the transcript's slices
	lastWasC bool // the previous rendered event was a compaction
	capture  map[int]*ToolDetail
	// captureTool picks the calls observe takes (ReadOptions.Observe).
	captureTool func(name string) bool
	// observe takes the calls captureTool accepts.
	observe func(i int, d *ToolDetail, result func() string)
	// obsDetail and obsText are what observe is handed, the parser's own
	// for every call (Observe keeps nothing of them): nothing is
	// allocated per call.
	obsDetail ToolDetail
	obsText   func() string
	// speculate lets workers digest tool calls whose tool_use they saw in
	// the same chunk.
	speculate bool
	// rs keeps the resume point of a read that asks for one, or goes on
	// from one (resume.go); prompts counts the EvPrompt events.
	rs      *resumer
	prompts int
	cwd     atomic.Pointer[string] // t.Cwd once known, for the workers
	call    digest.Call            // the digests' scratch call
}

// pendingCall keeps a tool_use's input until its result arrives.
type pendingCall struct {
	input    json.RawMessage
	waiting  bool
	observed bool // handed to Observe when its result arrives
}

func newParser(digests bool) *parser {
	return &parser{
		t:       &Transcript{},
		digests: digests,
		seen:    make(map[[16]byte]struct{}),
		msgs:    make(map[string]int),
		blocks:  make(map[[2]string]struct{}),
		tools:   make(map[string]int),
		lastIdx: -1,
	}
}

// apply applies the records of a scanned chunk.
func (p *parser) apply(c *chunk) {
	if !p.sized {
		p.size()
	}
	p.t.Diag.Lines += c.lines
	p.t.Diag.Oversized += c.over
	p.t.Diag.Entries += c.skipped
	if rs := p.rs; rs != nil && c.noBase {
		rs.lost = true
	}
	for i := range c.recs {
		if p.rs != nil {
			p.rs.off = c.base + int64(c.recs[i].off)
		}
		p.line(&c.recs[i])
	}
	// The chunk's buffer is reused: keep a copy of the inputs of calls
	// still waiting for their results.
	for _, i := range p.viewed {
		if pc := &p.pending[i]; pc.waiting {
			pc.input = bytes.Clone(pc.input)
		}
	}
	p.viewed = p.viewed[:0]
	if p.rs != nil {
		p.rs.settle(p)
	}
}

// size grows the empty maps once, before the first record, after the
// capacity readUntil gave the transcript's slices (from the file size), so
// that they do not grow step by step.
func (p *parser) size() {
	p.sized = true
	if n := cap(p.t.Tools); n > 64 && len(p.tools) == 0 {
		p.tools = make(map[string]int, n)
		p.pending = make([]pendingCall, 0, n)
	}
	if n := cap(p.t.Events) / 4; n > 64 && len(p.msgs) == 0 && len(p.blocks) == 0 {
		p.msgs = make(map[string]int, n)
		p.blocks = make(map[[2]string]struct{}, n)
	}
}

func (p *parser) line(r *lineRec) {
	switch r.kind {
	case recMalformed:
		p.t.Diag.Malformed++
		return
	case recTorn:
		p.t.Diag.TornTail = true
		return
	case recUnknown:
		p.t.Diag.UnknownTypes++
		return
	case recNone:
		return
	}
	p.t.Diag.Entries++
	if r.sidechain {
		p.t.Diag.Sidechain++
		return
	}
	if p.rs != nil && r.kind == recUser {
		p.rs.begin(p)
	}
	if r.hasUUID {
		// One map operation: the set grows unless the uuid was seen.
		n := len(p.seen)
		if p.seen[r.uuid] = struct{}{}; len(p.seen) == n {
			p.t.Diag.Duplicates++
			return
		}
		if p.rs != nil {
			p.rs.add('u', r.uuid[:])
		}
	}
	ts := r.ts
	if p.t.SessionID == "" && len(r.sessionID) > 0 {
		p.t.SessionID = jsonscan.Decode(r.sessionID)
	}
	if p.session != "" && !p.t.HasSession && len(r.sessionID) > 0 {
		if raw := r.sessionID; jsonscan.Plain(raw) {
			p.t.HasSession = string(raw) == p.session
		} else {
			p.t.HasSession = jsonscan.Decode(raw) == p.session
		}
	}
	if p.t.Cwd == "" && len(r.cwd) > 0 {
		p.t.Cwd = jsonscan.Decode(r.cwd)
		cwd := p.t.Cwd
		p.cwd.Store(&cwd)
	}
	if !ts.IsZero() {
		if p.t.Started.IsZero() || ts.Before(p.t.Started) {
			p.t.Started = ts
		}
		if ts.After(p.t.Last) {
			p.t.Last = ts
		}
	}
	switch r.kind {
	case recSystem:
		if r.boundary {
			p.compaction(ts, r.trigger)
		}
	case recUser:
		p.user(r, ts)
	case recAssistant:
		p.assistant(r, ts)
	}
}

// malformed counts an entry whose message cannot be decoded: malformed,
// and so not an entry after all.
func (p *parser) malformed() {
	p.t.Diag.Malformed++
	p.t.Diag.Entries--
}

func (p *parser) emit(e Event) {
	if e.Kind == EvPrompt {
		if p.rs != nil {
			p.rs.prompt(p)
		}
		p.prompts++
	}
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

func (p *parser) user(r *lineRec, ts time.Time) {
	if r.summary {
		// A boundary normally precedes the summary; without one the summary
		// alone marks the compaction.
		p.compaction(ts, "")
		return
	}
	if r.bad {
		p.malformed()
		return
	}
	c := r.content
	if len(c.results) > 0 {
		for i := range c.results {
			p.result(&c.results[i], ts)
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
	// Another party's messages are inputs even when the harness marks
	// them meta (it does for some senders).
	if msgs := userSenderMessages(c); msgs != nil {
		for i, ev := range inputEvents(msgs, c, ts) {
			if i == 0 {
				p.t.Prompts++
			}
			p.t.TextBytes += len(ev.Text)
			p.emit(ev)
		}
		return
	}
	if r.meta {
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

func (p *parser) assistant(r *lineRec, ts time.Time) {
	if r.bad || (!r.synthetic && r.contentBad) {
		p.malformed()
		return
	}
	if r.synthetic {
		return
	}
	id := r.msgID
	for _, b := range r.blocks {
		if !b.tool {
			if isBlank(b.text) {
				continue
			}
			k := [2]string{id, b.text}
			if _, dup := p.blocks[k]; dup {
				continue
			}
			p.blocks[k] = struct{}{}
			p.t.TextBytes += len(b.text)
			i := p.lastIdx
			if i < 0 || id != p.lastMsg {
				var ok bool
				if i, ok = p.msgs[id]; !ok {
					p.emit(Event{Kind: EvAssistant, Time: ts})
					i = len(p.t.Events) - 1
					p.msgs[id] = i
					if p.rs != nil {
						p.rs.add('m', []byte(id))
					}
				}
				p.lastMsg, p.lastIdx = id, i
			}
			p.t.Events[i].Blocks = append(p.t.Events[i].Blocks, b.text)
			continue
		}
		if b.id == "" {
			continue
		}
		if _, dup := p.tools[b.id]; dup {
			continue
		}
		p.tools[b.id] = len(p.t.Tools)
		if p.rs != nil {
			p.rs.add('t', []byte(b.id))
			p.rs.open = append(p.rs.open, len(p.t.Tools))
		}
		p.t.Tools = append(p.t.Tools, ToolCall{ID: b.id, Name: b.name, Time: ts})
		// The input is a view into the chunk: copied when the chunk is
		// done if the call is still waiting for its result.
		observed := p.captureTool != nil && p.captureTool(b.name)
		p.pending = append(p.pending, pendingCall{input: b.input, waiting: true, observed: observed})
		p.viewed = append(p.viewed, len(p.t.Tools)-1)
		p.t.ToolBytes += len(b.input)
		if d, ok := p.capture[len(p.t.Tools)-1]; ok && d == nil {
			p.capture[len(p.t.Tools)-1] = &ToolDetail{Name: b.name, Time: ts, Input: bytes.Clone(b.input)}
		}
		p.emit(Event{Kind: EvTool, Time: ts, Tool: len(p.t.Tools) - 1})
	}
}

// toolResult is one tool_result block of a user line.
type toolResult struct {
	id      string
	isError bool
	content val    // the content value in the line being scanned
	raw     []byte // the same, kept until the chunk is applied
	// structured is the line's toolUseResult when the line holds this one
	// result (absent otherwise); persisted is that value, kept like raw,
	// when the content is a persisted output's preview: a result too
	// large to be shown inline is counted from it.
	structured val
	persisted  []byte
	text       string // the flattened content, when decoded
	decoded    bool
	// textLen is the length of the decoded string content, measured by
	// the worker (measured) when the apply can digest it undecoded.
	textLen  int
	measured bool
	spec     specDigest // the digest worked out by the scanning worker
}

func (p *parser) result(r *toolResult, ts time.Time) {
	i, ok := p.tools[r.id]
	if !ok {
		return
	}
	pc := p.pending[i]
	if !pc.waiting {
		return // a second result for the same call
	}
	p.pending[i] = pendingCall{}
	tc := &p.t.Tools[i]
	if tc.Name == "AskUserQuestion" && !r.isError {
		// The user's words, typed into the question's form.
		if !r.decoded {
			r.text, r.decoded = resultText(r.raw), true
		}
		if a := digest.Answers(pc.input, r.text); a != "" {
			p.emit(Event{Kind: EvAnswer, Time: ts, Text: a, Tool: i})
		}
	}
	if d := p.capture[i]; d != nil {
		if !r.decoded {
			r.text, r.decoded = resultText(r.raw), true
		}
		d.HasResult, d.Result, d.IsError = true, r.text, r.isError
	}
	if pc.observed {
		p.obsDetail = ToolDetail{Name: tc.Name, Time: tc.Time, Input: pc.input, HasResult: true, IsError: r.isError, Head: r}
		p.observe(i, &p.obsDetail, p.obsText)
		p.obsDetail = ToolDetail{}
	}
	if sp := &r.spec; sp.ok && p.digests && sp.name == tc.Name && sp.cwd == p.t.Cwd && bytes.Equal(sp.input, pc.input) {
		// The worker digested this very call: same tool, input, result
		// and working directory.
		p.t.ToolBytes += sp.textLen
		tc.HasResult, tc.IsError = true, r.isError
		tc.Line = sp.line
		return
	}
	if body, ok := r.body(); ok && r.measured && p.speculate {
		// The digest reads the string still escaped.
		p.t.ToolBytes += r.textLen
		tc.HasResult, tc.IsError = true, r.isError
		tc.Line = digestRaw(&p.call, tc.Name, pc.input, jsonscan.StringOf(body), r.persisted, r.isError, p.t.Cwd)
		return
	}
	if !r.decoded && r.measured && p.few {
		p.t.ToolBytes += r.textLen
		tc.HasResult, tc.IsError = true, r.isError
		return
	}
	if !r.decoded {
		r.text, r.decoded = resultText(r.raw), true
	}
	p.t.ToolBytes += len(r.text)
	tc.HasResult, tc.IsError = true, r.isError
	if p.digests {
		tc.Line = digestText(&p.call, tc.Name, pc.input, r.text, r.persisted, true, r.isError, p.t.Cwd)
	}
}

// observedText is the result of the call being observed, decoded once;
// "" for a call without one.
func (p *parser) observedText() string {
	r, _ := p.obsDetail.Head.(*toolResult)
	if r == nil {
		return ""
	}
	if !r.decoded {
		r.text, r.decoded = resultText(r.raw), true
	}
	return r.text
}

func (p *parser) finish() {
	for i := range p.t.Tools {
		tc := &p.t.Tools[i]
		pc := p.pending[i]
		if !pc.waiting {
			continue
		}
		if p.digests {
			tc.Line = digestText(&p.call, tc.Name, pc.input, "", nil, false, false, p.t.Cwd)
		}
		if pc.observed {
			p.obsDetail = ToolDetail{Name: tc.Name, Time: tc.Time, Input: pc.input}
			p.observe(i, &p.obsDetail, p.obsText)
			p.obsDetail = ToolDetail{}
		}
	}
	p.pending = nil
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	if t, ok := fastTime(s); ok {
		return t
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// uuidKey turns a uuid into a compact map key: the 16 bytes of a canonical
// UUID, or a hash prefix of anything else.
func uuidKey(s []byte) [16]byte {
	k, ok := canonicalUUID(s)
	if ok {
		return k
	}
	sum := sha256.Sum256(s)
	copy(k[:], sum[:16])
	k[6] ^= 0xff // keep hashed keys apart from canonical ones (version nibble)
	return k
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
