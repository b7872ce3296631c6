// Package session is the host-neutral model of one agent session: what a
// host's transcript reader produces and what the bottle, search and the
// working state consume. A [Transcript] is the main thread reduced to what
// a bottle shows: its [Event]s in order (prompts, mid-turn words, commands,
// replies, tool calls, compactions, changes of the working directory), its
// [ToolCall]s with their typed digest lines (digest.Line), the size of the
// conversation and the [Diagnostics] of the read. [ReadOptions] say what a
// read keeps beyond that: tool calls in full ([ToolDetail]), observed as
// they complete.
// [Turns] is the one rule by which events become turns, and so the
// numbers of the bottle ids [#uN] and [#aN]; [LastActivity] the one rule
// for a session's last activity.
//
// A host is one package that reads its own transcript format into this
// model; Claude Code's is host/claudecode/transcript, and each other host
// has its package under host/. What is the host's alone stays there: its
// folder layout, how it tells a prompt from a command or a tool's noise,
// its tool names. A host implements one function of the [Reader] shape,
// builds each call's line from digest's parts, and says what a call did
// as an [Action] where the working state should follow it; it may name
// itself in Transcript.Host for the bottle to show.
//
// It owns the model's types and rules only: it opens no file (a resume
// point's check, [PointSum], reads the bytes a reader hands it), and it
// may import render/digest (the typed tool line) alone.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"sync"
	"time"

	"bottle/render/digest"
)

// Reader is what a host implements: it reads the transcript at path into
// the model, as o says (nil: the whole main thread with digests). It fails
// only when the file cannot be read; what it cannot make sense of inside
// the data it skips and counts in Transcript.Diag.
type Reader func(ctx context.Context, path string, o *ReadOptions) (*Transcript, error)

// Diagnostics counts what the reader read and skipped. None of it is an
// error. Every line read but a blank one is one of Entries, Malformed,
// Oversized, UnknownTypes or the torn tail.
type Diagnostics struct {
	Lines int // lines read, including blank ones
	// Entries counts the lines that are transcript entries: JSON objects of
	// a known type, of the main thread or a sidechain, duplicates included
	// (malformed ones are counted as Malformed only).
	Entries      int
	Malformed    int  // lines that are not a JSON object, and entries whose message cannot be decoded
	Oversized    int  // lines longer than the reader reads, skipped unread
	UnknownTypes int  // JSON objects (or null) of a type the reader does not know
	Duplicates   int  // entries dropped because their uuid was seen before
	Sidechain    int  // subagent entries inside the main file
	TornTail     bool // the last line lacked its newline and did not parse: a write in progress
}

// junkPerEntry is how many malformed lines per entry a transcript may hold:
// a damaged transcript keeps most of its lines, a binary embedding an
// example session (hookbin does) has thousands of lines per entry.
const junkPerEntry = 10

// IsTranscript reports whether the lines read are those of a host's
// transcript: at least one entry, and at most [junkPerEntry] malformed
// lines per entry. Random bytes and binaries fail it, even those that
// embed a few transcript lines.
func (d Diagnostics) IsTranscript() bool {
	return d.Entries > 0 && d.Malformed <= junkPerEntry*d.Entries
}

// String summarises the lines and entries read and the other counts that
// are not zero.
func (d Diagnostics) String() string {
	s := fmt.Sprintf("%d lines, %d entries", d.Lines, d.Entries)
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
	EvIDE                         // IDE context sent without words of the user's; IDE = what
	EvAnswer                      // the user's answers to AskUserQuestion, Text = them (digest.Answers); Tool = the call
	// EvCwd: the working directory changed, Text = the new one. A host
	// emits it when a turn runs in another folder than the one before
	// (not for the first); the first is Transcript.Cwd.
	EvCwd
)

// Event is one rendered item of the main thread, in file order. Text is raw:
// privacy stripping happens when it is rendered.
type Event struct {
	Kind   EventKind
	Time   time.Time
	Text   string
	Blocks []string // EvAssistant: text blocks in order, duplicates dropped
	Tool   int      // EvTool, EvAnswer: index into Transcript.Tools
	Images int      // EvPrompt, EvMidTurn: pasted images
	// From names who sent an EvPrompt or EvMidTurn when another party did
	// ("Teammate team-lead", "Agent reviewer": the first of SenderWords and
	// the sender's name); "" for the user's own words. An entry holding
	// several such messages is one EvPrompt and an EvMidTurn per further
	// message, all at its time. Raw, like Text.
	From string
	// IDE is what the IDE reported beside the user's words (EvPrompt), or
	// alone (EvIDE): a file opened, lines selected.
	IDE []IDEContext
}

// IDEContext is one report of the IDE's that Claude Code attaches to a
// user message (an <ide_opened_file> or <ide_selection> block): which file
// the user had open or which lines they selected, so that "the one here"
// keeps its referent. Path is raw: strip it before use.
type IDEContext struct {
	Selected bool   // lines were selected (else a file was opened)
	Path     string // the file, as the IDE names it (absolute)
	Lines    string // "12-40" for a selection, when the IDE says
}

// ToolCall is one distinct tool_use of the main thread. Its ordinal N
// (index+1) names it as [#tN]. Bulk (input, result) is not kept: Line is
// worked out when the result arrives; expansion re-reads the file.
type ToolCall struct {
	ID        string
	Name      string
	Time      time.Time
	HasResult bool
	IsError   bool
	// Line is the call's digest, already stripped: its full form
	// "<Tool>: <salient> — <outcome>", its pending form "<Tool> —
	// <salient>", its detail and short forms. Zero when digests were not
	// asked for.
	Line digest.Line
}

// Transcript is the main thread of a session transcript, reduced to what a
// bottle shows.
type Transcript struct {
	SessionID string // first sessionId of a main-thread entry
	// Host names the program that wrote the record when the reader says
	// so, for the bottle to show; "" leaves it unsaid.
	Host string
	// HasSession reports that a main-thread entry carries
	// ReadOptions.Session.
	HasSession  bool
	Cwd         string // first cwd of a main-thread entry
	Started     time.Time
	Last        time.Time // the newest timestamp of a main-thread entry
	Events      []Event
	Tools       []ToolCall
	Compactions int // compact boundaries and compact summaries seen
	// Captured holds the tool calls kept in full, by index into Tools
	// (ReadOptions.Capture); nil when none were asked for.
	Captured map[int]*ToolDetail
	// TextBytes and ToolBytes measure the conversation the bottle replaces:
	// user and assistant text; tool_use input and tool_result content.
	TextBytes, ToolBytes int
	Prompts              int
	Diag                 Diagnostics
	// Resume, when ReadOptions.Resume asked for it and the reader can
	// resume, is the point a later read of the same file, grown since,
	// can start from (ReadOptions.From); nil otherwise.
	Resume *ResumePoint
	// Resumed reports that the read started at ReadOptions.From: Events
	// and Diag are those of the lines from there on, Tools[:From.Tools]
	// are zero, and Prompts and Cwd go on from the point's.
	Resumed bool
}

// ResumePoint is where a read of a transcript that only grows can start
// again: Offset, the start of a line, and what the reader needs of the
// lines before it to go on exactly as a whole read would. A host's reader
// may offer it (ReadOptions.Resume); one that does not reads whole.
type ResumePoint struct {
	Offset int64
	// Turns counts the EvPrompt events before the point: the first one
	// read from it opens turn Turns+1.
	Turns int
	// Tools counts the tool calls before it: the first one read from it is
	// Transcript.Tools[Tools].
	Tools   int
	Prompts int    // Transcript.Prompts before it
	Cwd     string // Transcript.Cwd at it
	// State is the reader's own, opaque to everyone else: it is kept as it
	// is and handed back.
	State []byte
}

// ErrResume is a reader's answer to a ReadOptions.From it cannot go on
// from: the file changed before the point, or a line after it refers to
// one before it that the point does not carry. The file is then to be
// read whole.
var ErrResume = errors.New("the read cannot resume at the point given")

// PointHead is how many bytes before a resume point its check covers: a
// reader goes on from a point only while they hash as they did when it
// made the point (the file grew; it was not rewritten up to there).
const PointHead = 4096

// sumTable is made on first use: most processes check no point, and
// making it at start cost every hook about 0.1 ms.
var sumTable = sync.OnceValue(func() *crc64.Table { return crc64.MakeTable(crc64.ECMA) })

// Sum is the hash PointSum takes of the bytes before a point (CRC-64),
// for other checks of a file's bytes: an index telling a file from
// another by its first bytes.
func Sum(b []byte) uint64 { return crc64.Checksum(b, sumTable()) }

// PointSum is the check of the PointHead bytes of r before off (all of
// them when off is smaller): what a host's reader keeps in a point it
// makes, and compares before it goes on from one.
func PointSum(r io.ReaderAt, off int64) (uint64, error) {
	if off < 0 {
		return 0, fmt.Errorf("check the bytes before offset %d: %w", off, ErrResume)
	}
	buf := make([]byte, min(off, PointHead))
	if _, err := r.ReadAt(buf, off-int64(len(buf))); err != nil {
		return 0, fmt.Errorf("check the bytes before offset %d: %w", off, err)
	}
	return Sum(buf), nil
}

// ToolDetail is one tool call in full, kept only when [ReadOptions.Capture]
// asks for it. Input is the tool_use input as the transcript holds it (not
// stripped); Result is the tool_result content flattened to text (not
// stripped, not capped).
type ToolDetail struct {
	Name      string
	Time      time.Time
	Input     json.RawMessage
	HasResult bool
	Result    string
	IsError   bool
	// Head, set by a reader for a call it hands to Observe (and only
	// during that call), reads the start of the result without decoding
	// all of it; nil when Result is the result.
	Head ResultHead
	// Action, when a reader sets it, says what the call did in words no
	// host owns, so that the working state follows a host whose tool
	// names it does not know; nil when the reader leaves the call to be
	// known by its name.
	Action *Action
}

// ActionKind is what an [Action] did.
type ActionKind uint8

// The actions the working state follows.
const (
	ActCommand ActionKind = iota + 1 // ran a shell command: Command, Exit
	ActEdit                          // changed files: Files
	ActPlan                          // set the plan, all of it: Plan
)

// Action is what one tool call did, in words no host owns. Its text is
// raw: whoever shows it strips it.
type Action struct {
	Kind    ActionKind
	Command string // ActCommand: the command as run
	// Exit is the command's exit code when ExitKnown.
	Exit      int
	ExitKnown bool
	Files     []string   // ActEdit: the files changed, as absolute as the call tells
	Plan      []PlanStep // ActPlan: the plan as it now stands
}

// PlanStep is one step of a plan: its words and its status, "pending",
// "in_progress" or "completed".
type PlanStep struct{ Text, Status string }

// ResultHead reads the start of a tool call's result: at least n bytes of
// its text, or all of it.
type ResultHead interface {
	Start(n int) string
}

// ResultStart is the start of the call's result text: at least n bytes of
// it, or all of it. For a call handed to Observe (and only during that
// call) it decodes no more of the result than that when the result is
// one string, most are: Observe's result decodes it whole.
func (d *ToolDetail) ResultStart(n int) string {
	if d.Head == nil {
		return d.Result
	}
	return d.Head.Start(n)
}

// ReadOptions says what a read keeps beyond the main thread's events. The
// zero value (or nil) reads the whole transcript with digests.
type ReadOptions struct {
	// Capture keeps the tool calls whose indexes into Transcript.Tools are
	// its keys in full: the reader fills each value.
	Capture map[int]*ToolDetail
	// CaptureTools picks the tool calls, by tool name, that Observe is
	// handed (a search takes them all; the working state TodoWrite, the
	// Task tools, ExitPlanMode, Bash and the edits).
	CaptureTools func(name string) bool
	// Observe takes each call CaptureTools accepts once, as its result
	// arrives (in file order) or, for a call left without one, at the end
	// of the read, with its index into Transcript.Tools; nothing of it is
	// kept. d is the reader's own: d.Input is valid only during the call,
	// and d.Result is left empty — result decodes it on demand (a result is
	// decoded whole, and most are large and not wanted).
	Observe func(i int, d *ToolDetail, result func() string)
	// Actions hands Observe every call whose detail carries an Action,
	// whatever its name, besides those CaptureTools picks.
	Actions bool
	// UntilFirstPrompt stops at the first genuine prompt (listings want
	// only that).
	UntilFirstPrompt bool
	// NoDigests leaves ToolCall.Line zero.
	NoDigests bool
	// FewResults says Observe asks for the text of few results (a search
	// that knows which records it wants): a reader that decodes results
	// ahead of time, in parallel, then decodes only those asked for.
	FewResults bool
	// Session, when set, is looked for among the session ids of the
	// main-thread entries (Transcript.HasSession): a resumed session's
	// file holds several, so the first one alone does not tell.
	Session string
	// Resume asks a reader that can for Transcript.Resume.
	Resume bool
	// From, when set, starts the read at a point an earlier read of the
	// same file handed back (Transcript.Resumed); a reader that cannot go
	// on from it fails with ErrResume.
	From *ResumePoint
}

// WorkDir is the working directory the session was last in: the Text of
// its last EvCwd, else Cwd. What is shown relative to "here" (the working
// state's paths) is relative to it.
func (t *Transcript) WorkDir() string {
	for i := len(t.Events) - 1; i >= 0; i-- {
		if t.Events[i].Kind == EvCwd {
			return t.Events[i].Text
		}
	}
	return t.Cwd
}

// TurnSpan is one turn of a session's events: Events[Start:End]. Turn N
// (1, 2, …) opens with its prompt, the EvPrompt at Events[Start]; turn 0,
// the preamble, holds the events before the first prompt and may be
// empty. Bottle ids name turns by N ([#uN] the user's words of turn N,
// [#aN] its replies), so whatever numbers turns — a bottle, search
// records, expansion — takes N from here.
type TurnSpan struct{ N, Start, End int }

// Turns splits events into turns, the preamble first: the one rule by
// which events become turns.
func Turns(events []Event) []TurnSpan {
	n := 1
	for i := range events {
		if events[i].Kind == EvPrompt {
			n++
		}
	}
	spans := make([]TurnSpan, 1, n)
	for i := range events {
		if events[i].Kind == EvPrompt {
			spans[len(spans)-1].End = i
			spans = append(spans, TurnSpan{N: len(spans), Start: i})
		}
	}
	spans[len(spans)-1].End = len(events)
	return spans
}

// LastActivity is a session's last activity, as listings and the bottle
// show it: the time of its transcript's last entry, else that of its
// newest record in claude-mem's database, else the transcript file's
// modification time; zero when none is known.
func LastActivity(entry, stored, modified time.Time) time.Time {
	switch {
	case !entry.IsZero():
		return entry
	case !stored.IsZero():
		return stored
	}
	return modified
}
