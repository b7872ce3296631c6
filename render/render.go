// Package render turns a Claude Code session's records — its transcript and,
// where the user runs claude-mem, the stored observations — into a bottle:
// a markdown file holding the conversation verbatim with one line per tool
// activity. It is the core of bottle: no MCP, no stdout, no logging.
package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options says what to render and how.
type Options struct {
	// SessionID names the session; with no TranscriptPath the transcript is
	// found under Env's projects folder.
	SessionID string
	// TranscriptPath is the transcript to read ("" = find it by SessionID).
	TranscriptPath string
	// Env resolves default locations.
	Env Env
	// DBPath is claude-mem's database ("" = Env.DBPath(); a missing file
	// means standalone mode, not an error).
	DBPath string
	// NoDB renders from the transcript alone, ignoring any database.
	NoDB bool
	// BudgetTokens bounds the bottle's estimated tokens (0 = the default
	// budget, negative = render everything).
	BudgetTokens int
	// Now is the render time written in the header (zero = time.Now()).
	Now time.Time
	// Location is the zone of the times shown (nil = time.Local).
	Location *time.Location
}

// Result is a rendered bottle and what went into it.
type Result struct {
	SessionID      string
	Mode           Mode
	Markdown       []byte
	TranscriptPath string
	Turns          int
	Observations   int
	Digests        int
	Diag           Diagnostics
	Notes          []string
}

// Render renders the bottle of a session.
func Render(ctx context.Context, o Options) (*Result, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	path := o.TranscriptPath
	if path == "" {
		if o.SessionID == "" {
			return nil, errors.New("render: no session id and no transcript given")
		}
		p, err := FindTranscript(o.Env, o.SessionID)
		if err != nil {
			return nil, err
		}
		path = p
	} else if o.SessionID != "" {
		if err := checkID(o.SessionID); err != nil {
			return nil, err
		}
	}
	t, err := ReadTranscriptFile(ctx, path)
	if err != nil {
		return nil, err
	}
	id := o.SessionID
	if id == "" {
		id = SessionIDOf(path, t)
	}
	if err := checkID(id); err != nil {
		return nil, fmt.Errorf("session of %s: %w", path, err)
	}
	b := fromTranscript(t)
	b.SessionID = id
	b.Rendered = o.Now
	res := &Result{
		SessionID:      id,
		Mode:           b.Mode,
		TranscriptPath: path,
		Turns:          len(b.Turns),
		Digests:        len(t.Tools),
		Diag:           t.Diag,
		Notes:          b.Notes,
	}
	res.Markdown = markdown(b, o.Location)
	return res, nil
}

// SessionIDOf is the session id of a transcript file: its name when that is
// a valid id, else the first sessionId inside.
func SessionIDOf(path string, t *Transcript) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if ValidSessionID(name) {
		return name
	}
	if t != nil {
		return t.SessionID
	}
	return ""
}

// ReadTranscriptFile reads the transcript at path. Anything but a regular
// file (a directory, a FIFO, a device) is refused before it is opened, so a
// FIFO cannot block the reader.
func ReadTranscriptFile(ctx context.Context, path string) (*Transcript, error) {
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
	defer f.Close()
	t, err := ReadTranscript(ctxReader{ctx, f}, defaultDigester)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return t, nil
}

// ctxReader stops a read when its context is done.
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
