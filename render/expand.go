package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"bottle/host/claudecode/transcript"
	"bottle/privacy"
	"bottle/render/record"
	"bottle/session"

	"bottle/claudemem"
	"bottle/ident"
)

// Expansion is the full record behind one id.
type Expansion struct {
	// ID is the canonical id, or the input as given when it is invalid.
	ID   string
	Kind ident.Kind
	// Found reports whether the record was found and belongs to the
	// session; else Missing says why not.
	Found bool
	// Text is the record as plain text, stripped of private text; a tool
	// call's input and result are capped (with a note of the cut).
	Text string
	// Missing says why an id was not expanded, in words that suit a
	// model and a user alike.
	Missing string
}

// ExpandOptions says where [Expand] looks for the records behind ids.
type ExpandOptions struct {
	// SessionID is the session the ids belong to. With it, observations of
	// other sessions are refused; without it, observations are looked up in
	// every session, and turn and tool ids need TranscriptPath.
	SessionID string
	// TranscriptPath is the session's transcript; "" when it has none
	// (turns then come from claude-mem's stored prompts).
	TranscriptPath string
	// Reader reads the transcript into the session model: the host's
	// reader (session.Reader); nil is Claude Code's.
	Reader session.Reader
	// DB is claude-mem's database, open; nil opens DBPath for the call.
	DB *claudemem.DB
	// DBPath is claude-mem's database path ("" or a missing file: no
	// database). It names the database in messages even when DB is given.
	DBPath string
	// Location is the zone of the times shown (nil = time.Local).
	Location *time.Location
}

// Expand returns the full records behind bottle ids, one per id in order:
// observations from claude-mem (only the session's own when a session is
// named), tool calls and turns from the transcript, turns from claude-mem's
// stored prompts when there is no transcript. Ids it cannot find or must
// refuse come back with Found false and the reason (partial success); the
// error is for failures that stop every id (an invalid session id, an
// unreadable transcript).
func Expand(ctx context.Context, o ExpandOptions, ids []string) ([]Expansion, error) {
	if o.SessionID != "" {
		if err := ident.CheckSession(o.SessionID); err != nil {
			return nil, err
		}
	}
	out := make([]Expansion, len(ids))
	var (
		obs            []int64
		tools          = map[int]*session.ToolDetail{}
		needTranscript bool
		needSummaries  bool
		nums           = make([]int64, len(ids))
	)
	for i, raw := range ids {
		kind, id, n := ident.Parse(raw)
		out[i].ID, out[i].Kind, nums[i] = id, kind, n
		switch kind {
		case ident.Invalid:
			out[i].ID = raw
			out[i].Missing = "not a bottle id (ids look like " + ident.Examples + ")"
		case ident.Observation:
			obs = append(obs, n)
		case ident.Tool:
			if n >= 1 {
				tools[int(n-1)] = nil
			}
			needTranscript = true
		case ident.Summary:
			needSummaries = true
		default:
			needTranscript = true
		}
	}
	var t *session.Transcript
	var b *Bottle
	if needTranscript && o.TranscriptPath != "" {
		read := o.Reader
		if read == nil {
			read = transcript.Read
		}
		tr, err := read(ctx, o.TranscriptPath, &session.ReadOptions{Capture: tools})
		if err != nil {
			return nil, err
		}
		t, b = tr, fromTranscript(tr)
	}
	st := &record.Stored{}
	if len(obs) > 0 || (needTranscript && b == nil || needSummaries) && o.SessionID != "" {
		st = record.Lookup(ctx, record.Where{SessionID: o.SessionID, DB: o.DB, DBPath: o.DBPath}, obs, needTranscript && b == nil || needSummaries)
	}
	if b == nil && st.Session != nil {
		b, _ = fromStored(st.Session)
	}
	loc := o.Location
	if loc == nil {
		loc = time.Local
	}
	for i := range out {
		e := &out[i]
		if e.Missing != "" {
			continue
		}
		n := nums[i]
		switch e.Kind {
		case ident.Observation:
			if r, ok := st.Records[n]; ok {
				e.Found, e.Text = true, record.Observation(r, loc)
			} else {
				e.Missing = st.Missing(e.ID)
			}
		case ident.Tool:
			switch {
			case t == nil && o.SessionID == "" && o.TranscriptPath == "":
				e.Missing = "tool-call and turn ids need a session; name the session"
			case t == nil:
				e.Missing = "tool calls expand from the transcript, and there is none for this session"
			case n < 1 || int(n) > len(t.Tools) || tools[int(n-1)] == nil:
				e.Missing = fmt.Sprintf("no such tool call (the session has %d)", len(t.Tools))
			default:
				e.Found, e.Text = true, record.Tool(tools[int(n-1)], loc)
			}
		case ident.Summary:
			e.Found, e.Text, e.Missing = st.Summary(n, loc)
		case ident.User, ident.Assistant:
			tu := turnN(b, int(n))
			switch {
			case b == nil && o.SessionID == "" && o.TranscriptPath == "":
				e.Missing = "tool-call and turn ids need a session; name the session"
			case b == nil && st.Err != nil && !errors.Is(st.Err, fs.ErrNotExist):
				e.Missing = fmt.Sprintf("claude-mem's database could not be read (%v); try again later", st.Err)
			case b == nil:
				e.Missing = "no transcript and no stored prompts for this session"
			case tu == nil:
				e.Missing = fmt.Sprintf("no such turn (the session has %d)", len(b.Turns))
			case e.Kind == ident.Assistant && b.Mode == ModeReconstructed:
				e.Missing = "assistant messages were not preserved (reconstructed session)"
			case e.Kind == ident.User && tu.From != "":
				e.Found, e.Text = true, clean(tu.From+":\n"+userText(tu)+typedText(tu))
			case e.Kind == ident.User:
				e.Found, e.Text = true, clean(strings.TrimPrefix(userText(tu)+typedText(tu), "\n\n"))
			case len(tu.Reply) == 0:
				e.Found, e.Text = true, noReply
			default:
				e.Found, e.Text = true, clean(strings.Join(tu.Reply, "\n\n"))
			}
		}
	}
	for i := range out {
		out[i].Text = privacy.Redact(out[i].Text)
	}
	return out, nil
}

// typedText is what the user typed in turn t beside its words, the bare
// commands and bash-mode inputs its activity shows, each after "\n\n": a
// search finds them under the turn's [#uN].
func typedText(t *Turn) string {
	var b strings.Builder
	for i := range t.Happened {
		if it := &t.Happened[i]; it.typed {
			b.WriteString("\n\n")
			b.WriteString(it.Text)
		}
	}
	return b.String()
}

func turnN(b *Bottle, n int) *Turn {
	if b == nil {
		return nil
	}
	if n == 0 {
		return &b.Preamble
	}
	if n < 1 || n > len(b.Turns) {
		return nil
	}
	return &b.Turns[n-1]
}
