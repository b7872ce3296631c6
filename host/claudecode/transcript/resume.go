package transcript

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"bottle/session"
)

// A read that asks for it (ReadOptions.Resume) hands back a resume point:
// the start of the line of the last genuine prompt that opens its line's
// events, with what the parser needs of the lines before it to go on
// exactly as a whole read does. What a line after the point can refer to
// before it:
//
//   - a call still waiting for its result: the point carries the calls
//     pending there (id, name, time, input), at most maxPending of them
//     and maxPendingBytes of input, else an earlier prompt is the point;
//   - a uuid, an assistant message id or a tool_use id seen before: a
//     duplicate a whole read drops (or, for a message id, whose blocks it
//     adds to an earlier event). The point carries a 32-bit fingerprint
//     of each; a line after the point whose new uuid or id matches one
//     fails the resumed read (session.ErrResume) and the file is read
//     whole. A false match costs a whole read, never a wrong answer.
//
// Nothing else the parser keeps reaches across a genuine prompt for the
// events and calls from the point on: a block's dedupe key holds its
// message id (a new id is a new key); a result of a call answered before
// the point is dropped by both reads (the call is not waiting, or not
// known); the compaction that merges with the one before it cannot be the
// prompt's line. The counters the model numbers by (turns, calls, prompts)
// and the first cwd go in the point's open fields.
//
// A point is checked against the file before a read goes on from it: the
// file is at least as long, and the session.PointHead bytes before it hash
// as they did (session.PointSum; the caller checks the file's identity
// too).

const (
	maxPending      = 256
	maxPendingBytes = 1 << 20
	// minToolBytes bounds a decoded point's call count by its offset (the
	// parser allocates that many placeholders): a tool_use block with an
	// id takes more bytes than this.
	minToolBytes = 40
	pointVersion = 1
)

// resumer is a parser's resume state.
type resumer struct {
	off int64 // the offset of the line being applied
	// marks are the fingerprints of the uuids, message ids and tool_use
	// ids this read added, in file order.
	marks []uint32
	open  []int     // calls that may still wait for their results
	line  lineStart // the counters at the start of the user line applied
	mark  *mark     // the latest point
	// unsettled: mark's inputs may still be views into the chunk.
	unsettled bool
	lost      bool // offsets are not known (a line too long was skipped)
	from      *pointState
	bad       bool // a line after from refers to one before it
}

type lineStart struct {
	off                                 int64
	events, tools, prompts, turns, keys int
	cwd                                 string
}

type mark struct {
	lineStart
	pend []pendSnap
}

// pendSnap is a call waiting for its result at a point.
type pendSnap struct {
	i        int
	id, name string
	time     time.Time
	input    []byte
}

// pointState is a decoded resume point.
type pointState struct {
	session.ResumePoint
	headLen int
	head    uint64
	set     []uint32 // sorted fingerprints
	pend    []pendSnap
}

func (st *pointState) has(h uint32) bool {
	_, ok := slices.BinarySearch(st.set, h)
	return ok
}

// fingerprint is a uuid's (tag 'u'), message id's ('m') or tool_use id's
// ('t') 32-bit FNV-1a hash.
func fingerprint(tag byte, b []byte) uint32 {
	h := uint32(2166136261)
	h = (h ^ uint32(tag)) * 16777619
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

func (rs *resumer) add(tag byte, b []byte) {
	h := fingerprint(tag, b)
	rs.marks = append(rs.marks, h)
	if rs.from != nil && rs.from.has(h) {
		rs.bad = true
	}
}

// begin notes the counters before a user line is applied.
func (rs *resumer) begin(p *parser) {
	rs.line = lineStart{off: rs.off, events: len(p.t.Events), tools: len(p.t.Tools), prompts: p.t.Prompts,
		turns: p.prompts, keys: len(rs.marks), cwd: p.t.Cwd}
}

// prompt makes the line being applied the point, when the genuine prompt
// about to be emitted is its first event.
func (rs *resumer) prompt(p *parser) {
	if rs.lost || len(p.t.Events) != rs.line.events {
		return
	}
	open := rs.open[:0]
	bytes := 0
	for _, i := range rs.open {
		if i < len(p.pending) && p.pending[i].waiting {
			open = append(open, i)
			bytes += len(p.pending[i].input)
		}
	}
	rs.open = open
	if len(open) > maxPending || bytes > maxPendingBytes {
		return
	}
	m := &mark{lineStart: rs.line}
	for _, i := range open {
		tc := &p.t.Tools[i]
		m.pend = append(m.pend, pendSnap{i: i, id: tc.ID, name: tc.Name, time: tc.Time, input: p.pending[i].input})
	}
	rs.mark, rs.unsettled = m, len(m.pend) > 0
}

// settle copies the inputs of the point's pending calls out of the chunk,
// once it is applied (the parser has copied those still waiting).
func (rs *resumer) settle(p *parser) {
	if !rs.unsettled {
		return
	}
	rs.unsettled = false
	for k := range rs.mark.pend {
		c := &rs.mark.pend[k]
		if pc := p.pending[c.i]; pc.waiting {
			c.input = pc.input
		} else {
			c.input = bytes.Clone(c.input)
		}
	}
}

// resumeFrom sets the parser up to go on from st.
func (p *parser) resumeFrom(st *pointState) {
	p.sized = true
	p.t.Tools = make([]ToolCall, st.Tools)
	p.pending = make([]pendingCall, st.Tools)
	for _, c := range st.pend {
		p.t.Tools[c.i] = ToolCall{ID: c.id, Name: c.name, Time: c.time}
		p.tools[c.id] = c.i
		p.pending[c.i] = pendingCall{input: c.input, waiting: true, observed: p.captureTool != nil && p.captureTool(c.name)}
		p.rs.open = append(p.rs.open, c.i)
	}
	p.t.Prompts, p.t.Cwd, p.prompts = st.Prompts, st.Cwd, st.Turns
	if st.Cwd != "" {
		cwd := st.Cwd
		p.cwd.Store(&cwd)
	}
	p.rs.from = st
}

// point is the read's resume point, its State without the head check
// (sealPoint adds it): the latest mark, else from's own, else nil.
func (rs *resumer) point(from *pointState) *session.ResumePoint {
	m := rs.mark
	if m == nil {
		if from != nil {
			return &from.ResumePoint
		}
		return nil
	}
	st := &pointState{ResumePoint: session.ResumePoint{Offset: m.off, Turns: m.turns, Tools: m.tools, Prompts: m.prompts, Cwd: m.cwd},
		set: slices.Clone(rs.marks[:m.keys]), pend: m.pend}
	if from != nil {
		st.set = append(st.set, from.set...)
	}
	slices.Sort(st.set)
	st.set = slices.Compact(st.set)
	st.State = st.body()
	return &st.ResumePoint
}

// body is the state's encoding after its head check: the fingerprints,
// then the pending calls.
func (st *pointState) body() []byte {
	b := binary.AppendUvarint(nil, uint64(len(st.set)))
	prev := uint32(0)
	for _, h := range st.set {
		b = binary.AppendUvarint(b, uint64(h-prev))
		prev = h
	}
	b = binary.AppendUvarint(b, uint64(len(st.pend)))
	for _, c := range st.pend {
		b = binary.AppendUvarint(b, uint64(c.i))
		b = appendBytes(b, []byte(c.id))
		b = appendBytes(b, []byte(c.name))
		b = appendTime(b, c.time)
		b = appendBytes(b, c.input)
	}
	return b
}

// pointHeader is the head of a state: its version and the check of the n
// bytes before the point.
func pointHeader(n int64, crc uint64) []byte {
	head := []byte{pointVersion}
	head = binary.AppendUvarint(head, uint64(n))
	return binary.LittleEndian.AppendUint64(head, crc)
}

// sealPoint puts the check of the bytes before pt.Offset in f at the head
// of its state.
func sealPoint(f *os.File, pt *session.ResumePoint) error {
	sum, err := session.PointSum(f, pt.Offset)
	if err != nil {
		return fmt.Errorf("resume point: %w", err)
	}
	pt.State = append(pointHeader(min(pt.Offset, session.PointHead), sum), pt.State...)
	return nil
}

func appendBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// A time is kept with its location as parseTime made it: UTC, Local, or
// a fixed zone.
const (
	timeZero = iota
	timeUTC
	timeLocal
	timeFixed
)

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, timeZero)
	}
	switch t.Location() {
	case time.UTC:
		b = append(b, timeUTC)
	case time.Local:
		b = append(b, timeLocal)
	default:
		name, off := t.Zone()
		b = append(b, timeFixed)
		b = binary.AppendVarint(b, int64(off))
		b = appendBytes(b, []byte(name))
	}
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

var errPoint = errors.New("malformed resume point")

// pointDecoder reads a point's state.
type pointDecoder struct {
	b   []byte
	err error
}

func (d *pointDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = errPoint, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *pointDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = errPoint, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *pointDecoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err, d.b = errPoint, nil
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *pointDecoder) byte() byte {
	if len(d.b) == 0 {
		d.err = errPoint
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *pointDecoder) time() time.Time {
	kind := d.byte()
	if kind == timeZero {
		return time.Time{}
	}
	var loc *time.Location
	switch kind {
	case timeUTC:
		loc = time.UTC
	case timeLocal:
		loc = time.Local
	case timeFixed:
		off := d.varint()
		name := d.bytes()
		if off < -1<<20 || off > 1<<20 {
			d.err = errPoint
			return time.Time{}
		}
		loc = time.FixedZone(string(name), int(off))
	default:
		d.err = errPoint
		return time.Time{}
	}
	sec, nsec := d.varint(), d.uvarint()
	if nsec >= 1e9 {
		d.err = errPoint
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).In(loc)
}

// decodePoint reads pt's state; it fails with errPoint on anything it did
// not write.
func decodePoint(pt *session.ResumePoint) (*pointState, error) {
	if pt.Offset < 0 || pt.Tools < 0 || int64(pt.Tools) > pt.Offset/minToolBytes+1 || pt.Turns < 0 || pt.Prompts < 0 {
		return nil, errPoint
	}
	st := &pointState{ResumePoint: *pt}
	d := &pointDecoder{b: pt.State}
	if d.byte() != pointVersion {
		return nil, errPoint
	}
	n := d.uvarint()
	if n > session.PointHead || int64(n) > pt.Offset {
		return nil, errPoint
	}
	st.headLen = int(n)
	if len(d.b) < 8 {
		return nil, errPoint
	}
	st.head = binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	count := d.uvarint()
	if count > uint64(len(d.b)) { // at least a byte each
		return nil, errPoint
	}
	st.set = make([]uint32, 0, count)
	var h uint64
	for range count {
		delta := d.uvarint()
		if h += delta; h > 1<<32-1 || (len(st.set) > 0 && delta == 0) {
			return nil, errPoint
		}
		st.set = append(st.set, uint32(h))
	}
	count = d.uvarint()
	if count > maxPending || count > uint64(len(d.b)) {
		return nil, errPoint
	}
	ids := map[string]bool{}
	last := -1
	for range count {
		i := d.uvarint()
		c := pendSnap{id: string(d.bytes()), name: string(d.bytes()), time: d.time(), input: d.bytes()}
		if d.err != nil || i >= uint64(pt.Tools) || int(i) <= last || ids[c.id] {
			return nil, errPoint
		}
		c.i, last, ids[c.id] = int(i), int(i), true
		st.pend = append(st.pend, c)
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errPoint
	}
	return st, nil
}

// readResumed reads f from the point o.From, after checking that the file
// still holds the bytes before it.
func readResumed(ctx context.Context, f *os.File, path string, o *ReadOptions) (*Transcript, error) {
	fail := func(err error) (*Transcript, error) {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if o.UntilFirstPrompt {
		return fail(session.ErrResume) // the first prompt is before any point
	}
	st, err := decodePoint(o.From)
	if err != nil {
		return fail(fmt.Errorf("%w: %v", session.ErrResume, err))
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if fi.Size() < st.Offset {
		return fail(session.ErrResume)
	}
	sum, err := session.PointSum(f, st.Offset)
	if err != nil {
		return fail(err)
	}
	if int64(st.headLen) != min(st.Offset, session.PointHead) || sum != st.head {
		return fail(session.ErrResume)
	}
	if _, err := f.Seek(st.Offset, io.SeekStart); err != nil {
		return fail(err)
	}
	t, err := reader{}.read(ctxReader{ctx, f}, o, st)
	if err != nil {
		return fail(err)
	}
	switch {
	case t.Resume == &st.ResumePoint:
		t.Resume = o.From // no later point
	case t.Resume != nil && sealPoint(f, t.Resume) != nil:
		t.Resume = nil // cut shorter meanwhile: no point
	}
	return t, nil
}
