package codex

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"bottle/session"
)

// HostName is the Codex host's name as a bottle shows it.
const HostName = "Codex CLI"

// ReadSession is the Codex host's [session.Reader]: the rollout at path
// read into bottle's session model. The user's and the assistant's words
// are the response items' messages (the event_msg user and agent messages
// where a version wrote no such items); injected context — instructions,
// the environment, AGENTS.md text, hook context (bottle's own pointer
// among it), compaction summaries and reasoning — never becomes a message.
// Each tool call gets its digest line as its output arrives; a compaction
// is an EvCompaction, a turn in another working folder than the one
// before an EvCwd. Text is raw, as every reader's: the renderer strips
// it.
func ReadSession(ctx context.Context, path string, o *session.ReadOptions) (*session.Transcript, error) {
	if o != nil && !o.UntilFirstPrompt && (o.Resume || o.From != nil) {
		return readResumable(ctx, path, o)
	}
	r, err := Read(path)
	if err != nil {
		return nil, err
	}
	return Session(ctx, r, o)
}

// Session turns a rollout read into the session model, as [ReadSession]
// does; it fails only when ctx is done.
func Session(ctx context.Context, r *Rollout, o *session.ReadOptions) (*session.Transcript, error) {
	if o == nil {
		o = &session.ReadOptions{}
	}
	b := newBuilder(o, r)
	if err := b.run(ctx, r); err != nil {
		return nil, err
	}
	return b.t, nil
}

func newBuilder(o *session.ReadOptions, r *Rollout) *builder {
	b := &builder{o: o, t: &session.Transcript{Host: HostName}, open: map[string]int{}}
	b.t.Diag = session.Diagnostics{Lines: r.Diag.Lines, Entries: r.Diag.Records, Malformed: r.Diag.Malformed,
		Oversized: r.Diag.Oversized, UnknownTypes: r.Diag.UnknownTypes, TornTail: r.Diag.TornTail}
	b.itemMessages = hasItemMessages(r.Records)
	return b
}

// run takes r's records, in order, and completes the calls left waiting.
func (b *builder) run(ctx context.Context, r *Rollout) error {
	for k := range r.Records {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		b.off = r.Records[k].off
		if b.record(&r.Records[k]) {
			break
		}
	}
	b.finish()
	return nil
}

// hasItemMessages reports whether the rollout holds the user's or the
// assistant's words as response items (every version since they were
// written): then its event_msg messages repeat them.
func hasItemMessages(recs []Record) bool {
	for k := range recs {
		if it := recs[k].Item; it != nil && it.Type == ItemMessage && it.Injected == "" &&
			(it.Role == "user" || it.Role == "assistant") {
			return true
		}
	}
	return false
}

// builder turns records into the transcript, one at a time.
type builder struct {
	o            *session.ReadOptions
	t            *session.Transcript
	itemMessages bool
	cwd          string // the working folder of the current turn
	// shown is the working folder the events so far are in: when cwd
	// differs, an EvCwd is due, dated movedAt.
	shown   string
	movedAt time.Time
	open    map[string]int // calls awaiting their output, by call id
	pending []pendingCall  // by index into t.Tools
	// undone are the calls that may not be complete yet (a superset), for
	// a resume point.
	undone []int
	// marking: the read hands back a resume point, mark (see note); off
	// is the offset of the record's line being taken.
	marking bool
	off     int64
	mark    *mark
}

// pendingCall is what a call's line and detail are worked out from.
type pendingCall struct {
	call Call
	cwd  string
	done bool
}

// record takes one record; it reports whether the read is to stop.
func (b *builder) record(rec *Record) (stop bool) {
	t := b.t
	if !rec.Time.IsZero() {
		if t.Started.IsZero() {
			t.Started = rec.Time
		}
		if rec.Time.After(t.Last) {
			t.Last = rec.Time
		}
	}
	switch {
	case rec.Meta != nil:
		if t.SessionID == "" {
			t.SessionID = rec.Meta.ID
		}
		if b.o.Session != "" && rec.Meta.ID == b.o.Session {
			t.HasSession = true
		}
		b.setCwd(rec.Meta.Cwd, rec.Time)
	case rec.Turn != nil:
		b.setCwd(rec.Turn.Cwd, rec.Time)
	case rec.Compacted != nil:
		t.Compactions++
		b.emit(session.Event{Kind: session.EvCompaction, Time: rec.Time})
	case rec.Event != nil:
		if b.itemMessages {
			return false
		}
		switch rec.Event.Type {
		case "user_message":
			return b.prompt(rec.Time, rec.Event.Message)
		case "agent_message":
			b.reply(rec.Time, rec.Event.Message)
		}
	case rec.Item != nil:
		return b.item(rec.Time, rec.Item)
	}
	return false
}

// setCwd takes the working folder a record names. The first is the
// session's; a later one that differs is an EvCwd, emitted with the next
// event so that a folder left again before anything happened in it is
// not shown.
func (b *builder) setCwd(cwd string, at time.Time) {
	if !absolute(cwd) {
		return
	}
	if cwd != b.cwd {
		b.movedAt = at
	}
	b.cwd = cwd
	if b.t.Cwd == "" {
		b.t.Cwd, b.shown = cwd, cwd
	}
}

// absolute reports whether cwd is an absolute folder, of Unix or Windows
// (Codex records the host's own): anything else (a redacted or cut value)
// names no folder to move to.
func absolute(cwd string) bool {
	switch {
	case strings.HasPrefix(cwd, "/"), strings.HasPrefix(cwd, `\\`):
		return true
	case len(cwd) >= 3 && cwd[1] == ':' && (cwd[2] == '\\' || cwd[2] == '/'):
		c := cwd[0] | 0x20
		return c >= 'a' && c <= 'z'
	}
	return false
}

// emit adds an event, with the change of working folder due before it;
// a turn_context comes before the prompt of its turn, so a change is
// shown after the prompt, in the turn that runs there.
func (b *builder) emit(e session.Event) {
	if e.Kind != session.EvPrompt {
		b.moved()
	}
	b.t.Events = append(b.t.Events, e)
	b.moved()
}

// moved emits the change of working folder that is due, if one is.
func (b *builder) moved() {
	if b.cwd == b.shown {
		return
	}
	b.shown = b.cwd
	b.t.Events = append(b.t.Events, session.Event{Kind: session.EvCwd, Time: b.movedAt, Text: b.cwd})
}

// prompt takes the user's words; it reports whether the read is to stop
// (UntilFirstPrompt).
func (b *builder) prompt(at time.Time, text string) bool {
	if strings.TrimSpace(text) == "" {
		return false
	}
	b.note()
	b.t.Prompts++
	b.t.TextBytes += len(text)
	b.emit(session.Event{Kind: session.EvPrompt, Time: at, Text: text})
	return b.o.UntilFirstPrompt
}

func (b *builder) reply(at time.Time, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	b.t.TextBytes += len(text)
	b.emit(session.Event{Kind: session.EvAssistant, Time: at, Blocks: []string{text}})
}

func (b *builder) item(at time.Time, it *Item) bool {
	switch it.Type {
	case ItemMessage:
		if it.Injected != "" || !b.itemMessages {
			return false
		}
		switch it.Role {
		case "user":
			return b.prompt(at, it.Text)
		case "assistant":
			b.reply(at, it.Text)
		}
	case ItemFunctionCall, ItemCustomToolCall, ItemLocalShellCall, ItemWebSearchCall:
		b.call(at, it)
	case ItemFunctionOutput, ItemCustomToolOutput:
		b.output(at, it)
	}
	return false
}

// call opens a tool call; a web search, whose record has no output, is
// complete as written.
func (b *builder) call(at time.Time, it *Item) {
	c := Call{Name: it.Name, Namespace: it.Namespace, Type: it.Type, Arguments: it.Arguments, Input: it.Input, Status: it.Status}
	if it.Type == ItemLocalShellCall && c.Name == "" {
		c.Name = "local_shell"
	}
	if it.Type == ItemWebSearchCall && c.Name == "" {
		c.Name = "web_search"
	}
	t := b.t
	t.ToolBytes += len(it.Arguments) + len(it.Input)
	i := len(t.Tools)
	t.Tools = append(t.Tools, session.ToolCall{ID: it.CallID, Name: c.ToolName(), Time: at})
	b.pending = append(b.pending, pendingCall{call: c, cwd: b.cwd})
	b.undone = append(b.undone, i)
	b.emit(session.Event{Kind: session.EvTool, Time: at, Tool: i})
	if it.Type == ItemWebSearchCall {
		b.complete(i, at, false)
		return
	}
	if it.CallID != "" {
		b.open[it.CallID] = i
	}
}

// output answers the open call of its call id; an output of no known call
// is left out.
func (b *builder) output(at time.Time, it *Item) {
	i, ok := b.open[it.CallID]
	if !ok {
		return
	}
	delete(b.open, it.CallID)
	b.t.ToolBytes += len(it.Output)
	p := &b.pending[i]
	p.call.HasResult, p.call.Output = true, it.Output
	b.complete(i, at, true)
}

// complete works out call i's line, keeps or hands on its detail and, for
// a question to the user, adds the user's answers as their words.
func (b *builder) complete(i int, at time.Time, answered bool) {
	p := &b.pending[i]
	if p.done {
		return
	}
	p.done = true
	c := &p.call
	tc := &b.t.Tools[i]
	tc.HasResult = c.HasResult || c.Type == ItemWebSearchCall
	tc.IsError = c.Failed()
	if !b.o.NoDigests {
		tc.Line = c.Line(p.cwd)
	}
	if answered && c.Name == "request_user_input" {
		if a := c.Answers(); a != "" {
			b.emit(session.Event{Kind: session.EvAnswer, Time: at, Text: a, Tool: i})
		}
	}
	_, capture := b.o.Capture[i]
	observe := b.o.Observe != nil && (b.o.CaptureTools != nil && b.o.CaptureTools(tc.Name))
	action := c.Action(p.cwd)
	if b.o.Observe != nil && b.o.Actions && action != nil {
		observe = true
	}
	if !capture && !observe {
		c.Output = "" // not wanted: let it go
		return
	}
	d := session.ToolDetail{Name: tc.Name, Time: tc.Time, Input: c.InputJSON(), HasResult: tc.HasResult,
		IsError: tc.IsError, Action: action}
	if observe {
		out := c.Output
		b.o.Observe(i, &d, func() string { return out })
	}
	if capture {
		d.Result = c.Output
		b.o.Capture[i] = &d
		if b.t.Captured == nil {
			b.t.Captured = map[int]*session.ToolDetail{}
		}
		b.t.Captured[i] = &d
	}
	c.Output = ""
}

// finish completes the calls left without an output, in order.
func (b *builder) finish() {
	for i := range b.pending {
		if !b.pending[i].done {
			b.complete(i, b.t.Tools[i].Time, false)
		}
	}
	b.moved()
	b.pending, b.open = nil, nil
}

// InputJSON is the call's input as JSON: its arguments when they are
// JSON, else its raw input (apply_patch's patch) as a JSON string.
func (c *Call) InputJSON() json.RawMessage {
	if c.Arguments != "" && json.Valid([]byte(c.Arguments)) {
		return json.RawMessage(c.Arguments)
	}
	raw := c.Input
	if raw == "" {
		raw = c.Arguments
	}
	if raw == "" {
		return nil
	}
	out, _ := json.Marshal(raw)
	return out
}
