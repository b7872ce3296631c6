// Package claudemem reads claude-mem's SQLite database (claude-mem.db) for bottle:
// the stored sessions, their user prompts, the observer's observations and the
// per-turn summaries. It is the only package that knows claude-mem's schema.
//
// The database belongs to claude-mem, whose worker writes it concurrently in WAL
// mode, so it is opened read-only with a busy timeout, through one connection,
// and each call reads one consistent snapshot. Columns are discovered once per
// [Open] with PRAGMA table_info and selected by name, so databases written by
// older claude-mem releases (10.x, 13.x) read the same way; missing tables and
// columns read as empty.
//
// # Privacy
//
// Every string this package returns is raw, exactly as stored. claude-mem strips
// its tags from user_prompts.prompt_text, but not reliably elsewhere: in
// particular [Session.UserPrompt] (sdk_sessions.user_prompt) can hold an
// entire <private>…</private> prompt, secret included. Callers must pass all
// text through bottle/privacy.Strip before rendering, returning or
// writing it.
//
// # What is left out
//
// As claude-mem does: sessions of its internal "observer-sessions" project, and
// stub sessions whose content_session_id equals their memory_session_id (rows
// claude-mem's migrations created as parents for orphaned observations; no
// transcript has such an id). Observations and summaries are joined through
// sdk_sessions.memory_session_id only, so rows orphaned under an earlier
// memory id (claude-mem 13.4.0 without foreign keys) are not part of any session.
//
// Times are UTC, from claude-mem's *_epoch columns (milliseconds since the
// Unix epoch), falling back to its ISO-8601 *_at columns.
//
// It reads only; it imports nothing of bottle's (the SQLite driver is
// modernc.org/sqlite, pure Go).
package claudemem

import (
	"errors"
	"time"
)

// ErrNoSession means the database holds no (visible) session with the given
// content session id.
var ErrNoSession = errors.New("no stored session")

// Session is one stored Claude Code session: an sdk_sessions row and everything
// joined to it. All text is raw and unstripped (see the package comment).
type Session struct {
	// ContentSessionID is Claude Code's session id, the transcript's file name.
	ContentSessionID string
	// MemorySessionID is claude-mem's observer session id; "" when the observer
	// never answered (then there are no observations or summaries).
	MemorySessionID string
	// Project is claude-mem's project name (basename of the git top level);
	// it may be "".
	Project string
	// Platform is sdk_sessions.platform_source ("claude" for Claude Code, and
	// for databases older than that column).
	Platform string
	// UserPrompt is sdk_sessions.user_prompt, the first prompt as submitted.
	// UNSTRIPPED: it may be an entire <private> prompt, tags and secret
	// included, which claude-mem kept out of Prompts.
	UserPrompt string
	// Status is sdk_sessions.status; claude-mem never resets it, so it is
	// unreliable ("active" sessions are often finished).
	Status string
	// Started is sdk_sessions.started_at_epoch, in UTC.
	Started time.Time
	// Prompts are the stored user prompts by prompt number, then id.
	Prompts []Prompt
	// Observations are ordered by creation time, then id.
	Observations []Observation
	// Summaries are ordered by creation time, then id.
	Summaries []Summary
}

// Prompt is one user_prompts row. Text is raw (claude-mem strips its tags
// before storing it, but callers strip again).
type Prompt struct {
	// Number is claude-mem's 1-based prompt number within the session. It
	// counts stored prompts only, so it drifts from the transcript where
	// claude-mem skipped a fully private or 10-second duplicate prompt; numbers
	// may also repeat.
	Number int
	// Text is the prompt as stored: "[media prompt]" for an empty prompt, and
	// since 13.25 cut to 4,000 UTF-16 units ending in "…".
	Text string
	// Created is when the prompt was submitted, in UTC.
	Created time.Time
}

// Observation is one observations row, the observer's one-record summary of a
// batch of tool calls. All text is raw and unstripped.
type Observation struct {
	// ID is observations.id, the id bottle lines show as [#id].
	ID int64
	// PromptNumber is the user prompt that was current when the batch's tool
	// calls were ingested; 0 means NULL (activity before the first stored
	// prompt, or a manual memory).
	PromptNumber int
	// Type is e.g. "discovery", "change", "bugfix" (mode-dependent).
	Type     string
	Title    string
	Subtitle string
	// Narrative may be "".
	Narrative string
	// Text is the legacy free-text column ("" for current rows).
	Text string
	// Facts, Concepts, FilesRead and FilesModified are decoded from JSON
	// arrays; text that is not a JSON array becomes a single item.
	Facts, Concepts, FilesRead, FilesModified []string
	// Created is the enqueue time of the batch's first tool call (≈ tool
	// time, not generation time), in UTC.
	Created time.Time
	// Project is the observation's project.
	Project string
	// MemorySessionID is the observer session the observation is stored
	// under (compare with [DB.MemorySessionID]).
	MemorySessionID string
}

// Summary is one session_summaries row: claude-mem's generated summary of one
// turn (one per Stop). It is not verbatim text and is raw and unstripped.
type Summary struct {
	// ID is session_summaries.id.
	ID int64
	// PromptNumber is the turn it summarises; 0 means NULL (13.25 writes such a
	// summary, with an empty Request, for a turn whose prompt was fully private).
	PromptNumber int
	Request      string
	Investigated string
	Learned      string
	Completed    string
	NextSteps    string
	Notes        string
	// Created is the end of the turn, in UTC.
	Created time.Time
}

// SessionInfo describes one stored session for listings.
type SessionInfo struct {
	ContentSessionID string
	Project          string
	Platform         string
	// FirstPrompt is the lowest-numbered stored prompt, else the raw
	// sdk_sessions.user_prompt. UNSTRIPPED: strip before showing it.
	FirstPrompt string
	// Started and LastActivity are in UTC. LastActivity is the newest of the
	// session start and end and its newest prompt, observation and summary.
	Started, LastActivity time.Time
	// Prompts, Observations and Summaries count the stored rows.
	Prompts, Observations, Summaries int
}
