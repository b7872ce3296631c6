package codex

import (
	"bufio"
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

// A read of a plain rollout that asks for it (ReadOptions.Resume) hands
// back a resume point: the start of the line of its last prompt, with what
// the builder needs of the lines before it to go on exactly as a whole
// read does. A compressed rollout offers none (its bytes are not appended
// to), nor does a read until the first prompt. What a line after the point
// can take from before it:
//
//   - a call still waiting for its output: the point carries the calls
//     waiting there (their id, name, type, input, time and folder), at
//     most maxWaiting of them and maxWaitingBytes of input, else an
//     earlier prompt is the point;
//   - the working folder: the turn's, the one the events are in, and
//     when it changed;
//   - whether the rollout holds its messages as response items: a whole
//     read takes the user's and the assistant's words from them when any
//     line does, and from the event messages otherwise. The point carries
//     what the read that made it decided; a read from a point made without
//     them that finds one after it fails (session.ErrResume), and the file
//     is read whole.
//
// An output of a call answered before the point finds no waiting call in
// either read, and is left out by both. The counters the model numbers by
// (prompts, which open the turns, and calls) and the session's first
// folder go in the point's open fields.
//
// A point is checked against the file before a read goes on from it: the
// file is at least as long, and the session.PointHead bytes before it hash
// as they did (session.PointSum; the caller checks the file's identity
// too).

const (
	maxWaiting      = 256
	maxWaitingBytes = 1 << 20
	pointVersion    = 1
	// minCallBytes bounds a point's call and prompt counts by its offset
	// (a resumed read allocates that many placeholders): a line holding a
	// call or a prompt takes more bytes than this.
	minCallBytes = 64
)

// mark is the builder's state at the start of a prompt's line: what a
// point is made of.
type mark struct {
	off                  int64
	prompts, tools       int
	compactions          int
	first, cwd, shown    string // t.Cwd, the turn's folder, the events'
	movedAt, started     time.Time
	sessionID            string
	itemMessages         bool
	waiting              []waitingCall
	check                uint64 // session.PointSum at off
	toolBytes, textBytes int
}

// waitingCall is a call still waiting for its output at a point.
type waitingCall struct {
	i    int
	id   string
	at   time.Time
	cwd  string
	call Call
}

// note keeps, at the start of the line of a prompt, the builder's state as
// the point of a later read, when the calls waiting fit in one.
func (b *builder) note() {
	if !b.marking {
		return
	}
	m := &mark{off: b.off, prompts: b.t.Prompts, tools: len(b.t.Tools), compactions: b.t.Compactions,
		first: b.t.Cwd, cwd: b.cwd, shown: b.shown, movedAt: b.movedAt, started: b.t.Started, sessionID: b.t.SessionID,
		itemMessages: b.itemMessages, toolBytes: b.t.ToolBytes, textBytes: b.t.TextBytes}
	// The calls not completed yet, in order (those completed since the
	// last prompt dropped for good).
	b.undone = slices.DeleteFunc(b.undone, func(i int) bool { return b.pending[i].done })
	if len(b.undone) > maxWaiting {
		return
	}
	size := 0
	for _, i := range b.undone {
		p := &b.pending[i]
		size += len(p.call.Arguments) + len(p.call.Input)
		if size > maxWaitingBytes {
			return
		}
		m.waiting = append(m.waiting, waitingCall{i: i, id: b.t.Tools[i].ID, at: b.t.Tools[i].Time, cwd: p.cwd, call: p.call})
	}
	b.mark = m
}

// restore sets the builder up as it was at the point m: the calls before
// it are placeholders but for those still waiting.
func (b *builder) restore(m *mark) {
	t := b.t
	t.Prompts, t.Compactions, t.Cwd, t.Started, t.SessionID = m.prompts, m.compactions, m.first, m.started, m.sessionID
	t.ToolBytes, t.TextBytes = m.toolBytes, m.textBytes
	b.cwd, b.shown, b.movedAt, b.itemMessages = m.cwd, m.shown, m.movedAt, m.itemMessages
	t.Tools = make([]session.ToolCall, m.tools)
	b.pending = make([]pendingCall, m.tools)
	for i := range b.pending {
		b.pending[i].done = true
	}
	for _, w := range m.waiting {
		t.Tools[w.i] = session.ToolCall{ID: w.id, Name: w.call.ToolName(), Time: w.at}
		b.pending[w.i] = pendingCall{call: w.call, cwd: w.cwd}
		b.undone = append(b.undone, w.i)
		if w.id != "" {
			b.open[w.id] = w.i
		}
	}
}

// readResumable is ReadSession for a read that asks for a point or goes
// on from one.
func readResumable(ctx context.Context, path string, o *session.ReadOptions) (*session.Transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read rollout: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(len(zstdMagic)); bytes.Equal(head, zstdMagic) {
		if o.From != nil {
			return nil, session.ErrResume
		}
		r, err := ReadFrom(br)
		if err != nil {
			return nil, fmt.Errorf("read rollout %s: %w", path, err)
		}
		return Session(ctx, r, o)
	}
	var from *mark
	var base int64
	if o.From != nil && o.Session != "" {
		// Whether the rollout names the session is in its first line.
		return nil, session.ErrResume
	}
	if o.From != nil {
		if from, err = decodePoint(o.From); err != nil {
			return nil, session.ErrResume
		}
		if sum, err := session.PointSum(f, from.off); err != nil || sum != from.check {
			return nil, session.ErrResume
		}
		if _, err := f.Seek(from.off, io.SeekStart); err != nil {
			return nil, fmt.Errorf("read rollout %s: %w", path, err)
		}
		br.Reset(f)
		base = from.off
	}
	r, err := readLines(br, base)
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", path, err)
	}
	b := newBuilder(o, r)
	b.marking = o.Resume
	if from != nil {
		if !from.itemMessages && b.itemMessages {
			// The lines before the point were read for their event
			// messages; a whole read now takes the items'.
			return nil, session.ErrResume
		}
		b.restore(from)
		b.t.Resumed = true
	}
	if err := b.run(ctx, r); err != nil {
		return nil, err
	}
	if b.mark == nil || !o.Resume {
		return b.t, nil
	}
	if from != nil && b.mark.off == from.off {
		b.t.Resume = o.From // the same point: the prefix is the same
		return b.t, nil
	}
	if b.mark.check, err = session.PointSum(f, b.mark.off); err != nil {
		return b.t, nil // no point; the read stands
	}
	b.t.Resume = b.mark.point()
	return b.t, nil
}

// point is m as a session.ResumePoint, its own part encoded in State.
func (m *mark) point() *session.ResumePoint {
	var b []byte
	b = append(b, pointVersion)
	b = binary.AppendUvarint(b, m.check)
	b = binary.AppendUvarint(b, uint64(m.compactions))
	b = appendString(b, m.cwd)
	b = appendString(b, m.shown)
	b = appendTime(b, m.movedAt)
	b = appendTime(b, m.started)
	b = appendString(b, m.sessionID)
	b = append(b, map[bool]byte{false: 0, true: 1}[m.itemMessages])
	b = binary.AppendUvarint(b, uint64(m.toolBytes))
	b = binary.AppendUvarint(b, uint64(m.textBytes))
	b = binary.AppendUvarint(b, uint64(len(m.waiting)))
	for _, w := range m.waiting {
		b = binary.AppendUvarint(b, uint64(w.i))
		b = appendString(b, w.id)
		b = appendTime(b, w.at)
		b = appendString(b, w.cwd)
		c := &w.call
		for _, s := range []string{c.Name, c.Namespace, string(c.Type), c.Arguments, c.Input, c.Status} {
			b = appendString(b, s)
		}
	}
	return &session.ResumePoint{Offset: m.off, Turns: m.prompts, Tools: m.tools, Prompts: m.prompts, Cwd: m.first, State: b}
}

// errPoint: a point's state that does not decode, or does not fit its
// open fields.
var errPoint = errors.New("not a rollout's resume point")

// decodePoint reads a point made by point. Every count is checked against
// the bytes left and the point's offset, so that no state, however
// mangled, makes the builder allocate more than the file could hold.
func decodePoint(p *session.ResumePoint) (*mark, error) {
	d := decoder{b: p.State}
	if len(d.b) == 0 || d.b[0] != pointVersion || p.Offset < 0 || p.Tools < 0 || p.Prompts < 0 || p.Turns != p.Prompts ||
		int64(p.Tools) > p.Offset/minCallBytes || int64(p.Prompts) > p.Offset/minCallBytes {
		return nil, errPoint
	}
	d.b = d.b[1:]
	m := &mark{off: p.Offset, prompts: p.Prompts, tools: p.Tools, first: p.Cwd}
	m.check = d.uvarint()
	m.compactions = d.count(p.Offset)
	m.cwd, m.shown = d.string(), d.string()
	m.movedAt, m.started = d.time(), d.time()
	m.sessionID = d.string()
	switch d.byte() {
	case 0:
	case 1:
		m.itemMessages = true
	default:
		d.bad = true
	}
	m.toolBytes, m.textBytes = d.count(p.Offset), d.count(p.Offset)
	n := d.count(maxWaiting)
	last := -1
	for range n {
		if d.bad {
			break
		}
		w := waitingCall{i: d.count(int64(p.Tools) - 1)}
		if w.i <= last {
			d.bad = true
		}
		last = w.i
		w.id, w.at, w.cwd = d.string(), d.time(), d.string()
		c := &w.call
		c.Name, c.Namespace, c.Type = d.string(), d.string(), ItemType(d.string())
		c.Arguments, c.Input, c.Status = d.string(), d.string(), d.string()
		m.waiting = append(m.waiting, w)
	}
	if d.bad || len(d.b) != 0 {
		return nil, errPoint
	}
	return m, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendTime appends t with its zone's offset (time.Time's binary form).
func appendTime(b []byte, t time.Time) []byte {
	enc, err := t.MarshalBinary()
	if err != nil { // a zone offset out of range: never parsed from a rollout
		enc, _ = time.Time{}.MarshalBinary()
	}
	b = binary.AppendUvarint(b, uint64(len(enc)))
	return append(b, enc...)
}

// decoder reads a point's state; bad is set at the first thing that does
// not decode, and every read after it returns zero.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of at most limit.
func (d *decoder) count(limit int64) int {
	v := d.uvarint()
	if limit < 0 || v > uint64(limit) {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if d.bad || len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) time() time.Time {
	var t time.Time
	if s := d.string(); !d.bad && t.UnmarshalBinary([]byte(s)) != nil {
		d.bad = true
	}
	return t
}
