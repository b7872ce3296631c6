package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/privacy"
	"bottle/session"

	"github.com/sourcegraph/conc"

	"bottle/claudemem"
	"bottle/ident"
	"bottle/workstate"
)

// Options says what to render and how. Paths come resolved (package
// locate finds them): Render knows no folder layout.
type Options struct {
	// SessionID names the session; "" takes it from the transcript's name,
	// else from its entries.
	SessionID string
	// TranscriptPath is the transcript to read; "" renders the session
	// from claude-mem's records alone (reconstructed mode).
	TranscriptPath string
	// Reader reads the transcript into the session model: the host's
	// reader (session.Reader); nil is Claude Code's.
	Reader session.Reader
	// TranscriptErr says why TranscriptPath is empty (for instance
	// locate.ErrNoTranscript); Render names it when the database holds
	// nothing either.
	TranscriptErr error
	// DBPath is claude-mem's database; "" or a missing file means
	// standalone mode, not an error.
	DBPath string
	// BudgetTokens bounds the bottle's estimated tokens; 0 means
	// [DefaultBudgetTokens].
	BudgetTokens int
	// NoBudget renders every turn in full, whatever BudgetTokens says.
	NoBudget bool
	// RequireEntries refuses, with [ErrNotTranscript], a file that is not
	// a transcript (see session.Diagnostics.IsTranscript): one named by
	// hand, or junk where a session's transcript should be. The hooks
	// leave it unset, as a session's transcript may still be empty at its
	// very start.
	RequireEntries bool
	// RequireSession refuses, with [ErrOtherSession], a transcript in which
	// entries carry session ids but no main-thread entry carries SessionID:
	// the file of another session. A transcript named after SessionID is
	// never refused, as the file name is the key (a resumed session's file
	// also holds the ids it resumed).
	RequireSession bool
	// Now is the render time written in the header (zero = time.Now()).
	Now time.Time
	// Location is the zone of the times shown (nil = time.Local).
	Location *time.Location
	// serialMarkdown writes the markdown on one goroutine (the benchmarks
	// compare).
	serialMarkdown bool
}

// ErrNothingToRender means that neither a transcript nor stored records of
// the session exist.
var ErrNothingToRender = errors.New("nothing to render: no transcript and no stored prompts or observations")

// ErrNotTranscript means that a file holds no transcript entry, or mostly
// lines that are not JSON (Options.RequireEntries).
var ErrNotTranscript = errors.New("not a Claude Code transcript")

// ErrOtherSession means that a transcript holds entries of other sessions
// only (Options.RequireSession).
var ErrOtherSession = errors.New("transcript of another session")

// DefaultBudgetTokens is the default bottle budget in estimated tokens.
const DefaultBudgetTokens = 20000

// What Claude Code's Read returns at most in one call.
const (
	ReadMaxTokens = 25000
	ReadMaxLines  = 2000
)

// Result is a rendered bottle and what went into it.
type Result struct {
	SessionID string
	// IDFromEntries reports that SessionID was taken from the transcript's
	// entries: neither Options nor the file's name gave it.
	IDFromEntries bool
	Mode          Mode
	// Host is the program that wrote the record when its reader says
	// (session.Transcript.Host); "" is Claude Code.
	Host           string
	Markdown       []byte
	TranscriptPath string // "" in reconstructed mode
	Turns          int
	Observations   int // observation lines
	// ToolCalls counts the transcript's tool calls (see [Result.Empty]).
	ToolCalls int
	// Standalone reports that claude-mem holds no record of the session:
	// tool activity shows as digests only.
	Standalone bool
	Digests    int // [#tN] digest lines
	Pending    int // ⏳ pending lines
	Folded     int // turns folded to fit the budget
	// OverBudget is the note (also in Notes) saying that the bottle exceeds
	// its budget with every turn folded that may be, only parts that never
	// fold remaining over it; "" when the bottle fits.
	OverBudget string
	Tokens     int // estimated tokens of Markdown (UTF-8 bytes / 3)
	Lines      int // lines of Markdown
	// NeedsPaging reports that the bottle exceeds one Read (a single huge final
	// message); it must be paged with read_bottle.
	NeedsPaging bool
	// Compacted reports that the transcript holds a compaction (boundary
	// or summary).
	Compacted bool
	// LastPrompt is the last genuine user prompt, or the last input of
	// another party's as "<sender>: <message>", raw (strip before use),
	// and LastPromptTime when it was sent.
	LastPrompt     string
	LastPromptTime time.Time
	// LastActivity is the session's last activity: its transcript's newest
	// main-thread entry, else its newest stored record (see
	// session.LastActivity, which listings use).
	LastActivity time.Time
	// LatestSummary is claude-mem's newest session summary, raw; nil if none.
	LatestSummary *Summary
	Diag          session.Diagnostics
	Notes         []string
}

// Empty reports that the session holds no prompt and no tool call: one
// Claude Code started for a command ("claude mcp list", a slash command
// alone), which is no session to continue.
func (r *Result) Empty() bool {
	return r.Turns == 0 && r.ToolCalls == 0 && r.Observations == 0
}

// Render renders the bottle of a session: full mode from its transcript
// (with claude-mem's observations when the database has them), else
// reconstructed mode from the database alone. The transcript is read and
// the database queried at the same time.
func Render(ctx context.Context, o Options) (*Result, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.SessionID != "" {
		if err := ident.CheckSession(o.SessionID); err != nil {
			return nil, err
		}
	}
	path, dbPath := o.TranscriptPath, o.DBPath
	if path == "" && o.SessionID == "" {
		return nil, errors.New("render: no session id and no transcript given")
	}
	// The session id is known before reading unless a file with an
	// unusual name has to say it.
	id := o.SessionID
	if id == "" {
		if name := strings.TrimSuffix(filepath.Base(path), ".jsonl"); ident.ValidSession(name) {
			id = name
		}
	}

	var (
		t       *session.Transcript
		tErr    error
		stored  *claudemem.Session
		dbErr   error
		dbNotes []string
		wg      conc.WaitGroup
		state   workstate.Builder
	)
	checkSession := o.RequireSession && o.SessionID != "" && filepath.Base(path) != o.SessionID+".jsonl"
	if path != "" {
		session := ""
		if checkSession {
			session = o.SessionID
		}
		ro := state.ReadOptions(session)
		read := o.Reader
		if read == nil {
			read = transcript.Read
		}
		wg.Go(func() { t, tErr = read(ctx, path, ro) })
	}
	if id != "" {
		wg.Go(func() { stored, dbNotes, dbErr = loadStored(ctx, dbPath, id) })
	}
	wg.Wait()
	if tErr != nil {
		return nil, tErr
	}
	if t != nil && o.RequireEntries && !t.Diag.IsTranscript() {
		return nil, fmt.Errorf("%s: %w: %d of %d lines are transcript entries", path, ErrNotTranscript, t.Diag.Entries, t.Diag.Lines)
	}
	if t != nil && checkSession && t.SessionID != "" && !t.HasSession {
		first := "an invalid id"
		if ident.ValidSession(t.SessionID) {
			first = t.SessionID
		}
		return nil, fmt.Errorf("render %s: %w: no entry of %s carries that id (the first carries %s)", id, ErrOtherSession, path, first)
	}
	noTranscript := o.TranscriptErr
	if noTranscript == nil {
		noTranscript = errors.New("none given")
	}
	fromEntries := id == "" && t != nil
	if fromEntries {
		id = t.SessionID
		if err := ident.CheckSession(id); err != nil {
			return nil, fmt.Errorf("session of %s: %w", path, err)
		}
		stored, dbNotes, dbErr = loadStored(ctx, dbPath, id)
	}

	var b *Bottle
	res := &Result{SessionID: id, IDFromEntries: fromEntries, TranscriptPath: path}
	if t != nil {
		b = fromTranscript(t)
		b.State = state.Lines(t.WorkDir())
		res.Diag = t.Diag
		res.Compacted = t.Compactions > 0
		if stored != nil {
			res.Observations = mergeObservations(b, t, stored)
		}
		if dbErr != nil {
			b.Notes = append(b.Notes, "claude-mem observations unavailable ("+dbErr.Error()+"); tool activity is shown as digests")
		}
	} else {
		if dbErr != nil {
			return nil, fmt.Errorf("render %s: no transcript (%v), and the claude-mem database failed: %w", id, noTranscript, dbErr)
		}
		if stored == nil {
			where := "no stored session in " + dbPath
			if dbPath == "" {
				where = "no claude-mem database known: set HOME or CLAUDE_MEM_DATA_DIR"
			}
			return nil, fmt.Errorf("render %s: %w (%v; %s)", id, ErrNothingToRender, noTranscript, where)
		}
		var err error
		if b, err = fromStored(stored); err != nil {
			return nil, err
		}
		res.Observations = len(stored.Observations)
	}
	b.SessionID = id
	b.Rendered = o.Now
	res.Mode = b.Mode
	res.Host = b.Host
	res.Turns = len(b.Turns)
	res.Standalone = stored == nil
	if t != nil {
		res.ToolCalls = len(t.Tools)
	}
	if len(b.Turns) > 0 {
		last := &b.Turns[len(b.Turns)-1]
		res.LastPrompt, res.LastPromptTime = last.Prompt, last.Time
		if last.From != "" {
			// Another party's input: the task is theirs, and says so.
			res.LastPrompt = inputText(last)
		}
	}
	if stored != nil && len(stored.Summaries) > 0 {
		sm := stored.Summaries[len(stored.Summaries)-1]
		res.LatestSummary = &Summary{Request: sm.Request, Investigated: sm.Investigated, Learned: sm.Learned,
			Completed: sm.Completed, NextSteps: sm.NextSteps, Notes: sm.Notes, Time: sm.Created}
	}
	res.LastActivity = lastActivity(t, stored)
	b.LastActive = res.LastActivity
	countItems(b, res)
	budget := o.BudgetTokens
	switch {
	case o.NoBudget:
		budget = -1
	case budget <= 0:
		budget = DefaultBudgetTokens
	}
	res.Markdown, res.Folded, res.OverBudget = fitBudget(b, o.Location, budget, o.serialMarkdown)
	// Credentials are replaced in the finished bottle, one scan of what it
	// shows: every message, digest and state line alike.
	res.Markdown = privacy.RedactBytes(res.Markdown)
	res.Notes = append(dbNotes, b.Notes...)
	res.Tokens = EstimateTokens(len(res.Markdown))
	res.Lines = bytes.Count(res.Markdown, []byte("\n"))
	res.NeedsPaging = res.Tokens > ReadMaxTokens || res.Lines > ReadMaxLines
	return res, nil
}

// loadStored reads a session from claude-mem's database. A missing database
// or session is not an error: the bottle is then standalone.
func loadStored(ctx context.Context, dbPath, id string) (*claudemem.Session, []string, error) {
	if dbPath == "" {
		return nil, nil, nil
	}
	db, err := claudemem.Open(ctx, dbPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	defer db.Close()
	s, err := db.Session(ctx, id)
	if errors.Is(err, claudemem.ErrNoSession) {
		return nil, db.Notes(), nil
	}
	if err != nil {
		return nil, db.Notes(), err
	}
	return s, db.Notes(), nil
}

func countItems(b *Bottle, res *Result) {
	count := func(items []Item) {
		for _, it := range items {
			switch it.Kind {
			case ItemTool:
				res.Digests++
			case ItemPending:
				res.Pending++
			}
		}
	}
	count(b.Preamble.Happened)
	for i := range b.Turns {
		count(b.Turns[i].Happened)
	}
}

// lastActivity is a session's last activity (session.LastActivity): its
// transcript's newest main-thread entry, else its newest stored prompt,
// observation or summary.
func lastActivity(t *session.Transcript, s *claudemem.Session) time.Time {
	var entry time.Time
	if t != nil {
		entry = t.Last
	}
	return session.LastActivity(entry, storedActivity(s), time.Time{})
}

// storedActivity is the time of a stored session's newest record: its
// start, prompts, observations and summaries.
func storedActivity(s *claudemem.Session) time.Time {
	var last time.Time
	if s == nil {
		return last
	}
	later := func(c time.Time) {
		if c.After(last) {
			last = c
		}
	}
	later(s.Started)
	for _, p := range s.Prompts {
		later(p.Created)
	}
	for _, o := range s.Observations {
		later(o.Created)
	}
	for _, sm := range s.Summaries {
		later(sm.Created)
	}
	return last
}
