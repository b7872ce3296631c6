package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"bottle/host/claudecode/transcript"
	"bottle/privacy"
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
	// Observation is the stored record of a found observation, raw (strip
	// before use), for callers that lay it out their own way.
	Observation *claudemem.Observation
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

// Expansion caps for a tool call.
const (
	maxInputChars  = 8000
	maxResultChars = 20000
)

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
	st := storeLookup{missing: func(string) string { return "" }}
	if len(obs) > 0 || (needTranscript && b == nil || needSummaries) && o.SessionID != "" {
		st = lookUpStored(ctx, o, obs, needTranscript && b == nil || needSummaries)
	}
	if b == nil && st.session != nil {
		b, _ = fromStored(st.session)
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
			if r, ok := st.records[n]; ok {
				e.Found, e.Text, e.Observation = true, formatObservation(r, loc), &r
			} else {
				e.Missing = st.missing(e.ID)
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
				e.Found, e.Text = true, formatTool(tools[int(n-1)], loc)
			}
		case ident.Summary:
			e.Found, e.Text, e.Missing = summaryOf(st, o, n, loc)
		case ident.User, ident.Assistant:
			tu := turnN(b, int(n))
			switch {
			case b == nil && o.SessionID == "" && o.TranscriptPath == "":
				e.Missing = "tool-call and turn ids need a session; name the session"
			case b == nil && st.err != nil && !errors.Is(st.err, fs.ErrNotExist):
				e.Missing = fmt.Sprintf("claude-mem's database could not be read (%v); try again later", st.err)
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

// storeLookup is what Expand found in claude-mem's database.
type storeLookup struct {
	records map[int64]claudemem.Observation // found, and the session's own
	session *claudemem.Session              // the stored session, when asked for
	err     error                           // the database could not be read
	// missing says why an observation id is not among records.
	missing func(id string) string
}

// lookUpStored reads observations by id, checks that they belong to the
// session (stored under its observer id), and reads the stored session when
// turns must come from it.
func lookUpStored(ctx context.Context, o ExpandOptions, ids []int64, wantSession bool) storeLookup {
	st := storeLookup{records: map[int64]claudemem.Observation{}}
	refused := map[int64]bool{}
	st.missing = func(id string) string {
		n, _ := strconv.ParseInt(id, 10, 64)
		switch {
		case st.err != nil && errors.Is(st.err, fs.ErrNotExist):
			where := ""
			if o.DBPath != "" {
				where = " at " + o.DBPath
			}
			return "no claude-mem database" + where + " (observation ids come from claude-mem; " +
				"set CLAUDE_MEM_DATA_DIR if it lives elsewhere)"
		case st.err != nil:
			return fmt.Sprintf("claude-mem's database could not be read (%v); try again later", st.err)
		case refused[n]:
			return fmt.Sprintf("not an observation of session %s (it belongs to another session; "+
				"expand it with that session's id)", o.SessionID)
		}
		return "no such observation in claude-mem"
	}
	db := o.DB
	if db == nil {
		if o.DBPath == "" {
			st.err = fs.ErrNotExist
			return st
		}
		var err error
		if db, err = claudemem.Open(ctx, o.DBPath); err != nil {
			st.err = err
			return st
		}
		defer db.Close()
	}
	if wantSession && o.SessionID != "" {
		s, err := db.Session(ctx, o.SessionID)
		if err != nil && !errors.Is(err, claudemem.ErrNoSession) {
			st.err = err
			return st
		}
		st.session = s
	}
	if len(ids) == 0 {
		return st
	}
	// Membership: an observation belongs to the session when it is stored
	// under the session's observer id ("" matches nothing).
	memory := ""
	if o.SessionID != "" {
		m, err := db.MemorySessionID(ctx, o.SessionID)
		switch {
		case errors.Is(err, claudemem.ErrNoSession):
		case err != nil:
			st.err = err
			return st
		default:
			memory = m
		}
	}
	list, err := db.Observations(ctx, ids)
	if err != nil {
		st.err = err
		return st
	}
	for _, r := range list {
		if o.SessionID != "" && (memory == "" || r.MemorySessionID != memory) {
			refused[r.ID] = true
			continue
		}
		st.records[r.ID] = r
	}
	return st
}

// summaryOf expands summary id n of the session: found, its text, or why
// it was not.
func summaryOf(st storeLookup, o ExpandOptions, n int64, loc *time.Location) (bool, string, string) {
	switch {
	case o.SessionID == "":
		return false, "", "summary ids need a session; name the session"
	case st.err != nil && errors.Is(st.err, fs.ErrNotExist):
		return false, "", st.missing("0")
	case st.err != nil:
		return false, "", fmt.Sprintf("claude-mem's database could not be read (%v); try again later", st.err)
	case st.session == nil:
		return false, "", "claude-mem holds no records of this session"
	}
	for _, sm := range st.session.Summaries {
		if sm.ID != n {
			continue
		}
		var w strings.Builder
		line := func(k, v string) { writeField(&w, k, v) }
		w.WriteString("claude-mem session summary (generated, not verbatim)\n")
		if sm.PromptNumber > 0 {
			line("prompt number", strconv.Itoa(sm.PromptNumber))
		}
		if !sm.Created.IsZero() {
			line("time", sm.Created.In(loc).Format(time.RFC3339))
		}
		for _, f := range [][2]string{{"request", sm.Request}, {"investigated", sm.Investigated}, {"learned", sm.Learned},
			{"completed", sm.Completed}, {"next steps", sm.NextSteps}, {"notes", sm.Notes}} {
			line(f[0], f[1])
		}
		return true, w.String(), ""
	}
	return false, "", fmt.Sprintf("no such summary of session %s (it has %d)", o.SessionID, len(st.session.Summaries))
}

// formatObservation writes a full observation record, stripped.
func formatObservation(o claudemem.Observation, loc *time.Location) string {
	var w strings.Builder
	line := func(k, v string) { writeField(&w, k, v) }
	list := func(k string, vs []string) {
		var kept []string
		for _, v := range vs {
			if v = strings.TrimSpace(clean(privacy.StripValue(v))); v != "" {
				kept = append(kept, v)
			}
		}
		if len(kept) > 0 {
			w.WriteString(k + ":\n")
			for _, v := range kept {
				w.WriteString("  - " + v + "\n")
			}
		}
	}
	line("type", o.Type)
	line("title", o.Title)
	line("subtitle", o.Subtitle)
	if o.PromptNumber > 0 {
		line("prompt number", strconv.Itoa(o.PromptNumber))
	} else {
		line("prompt number", "none (before the first stored prompt)")
	}
	if !o.Created.IsZero() {
		line("time", o.Created.In(loc).Format(time.RFC3339))
	}
	line("project", o.Project)
	line("narrative", o.Narrative)
	line("text", o.Text)
	list("facts", o.Facts)
	list("concepts", o.Concepts)
	list("files read", o.FilesRead)
	list("files modified", o.FilesModified)
	return w.String()
}

// writeField writes "k: v" and a newline when v, cleaned, is not blank.
func writeField(w *strings.Builder, k, v string) {
	if v = strings.TrimSpace(clean(v)); v != "" {
		w.WriteString(k + ": " + v + "\n")
	}
}

// formatTool writes a tool call's input and result, stripped and capped.
func formatTool(d *session.ToolDetail, loc *time.Location) string {
	var w strings.Builder
	w.WriteString("tool: " + clean(d.Name) + "\n")
	if !d.Time.IsZero() {
		w.WriteString("time: " + d.Time.In(loc).Format(time.RFC3339) + "\n")
	}
	// The input's strings are stripped decoded, one by one: a tag written
	// with JSON escapes is still a tag, and a block never spans the JSON
	// between two strings.
	input, err := privacy.JSON(d.Input, "  ", clean)
	if err != nil {
		input = clean(string(d.Input))
	}
	w.WriteString("input:\n" + capText(input, maxInputChars) + "\n")
	switch {
	case !d.HasResult:
		w.WriteString("result: none in the transcript (the call was interrupted or is still running)\n")
	case d.IsError:
		w.WriteString("result (error):\n" + capText(clean(d.Result), maxResultChars) + "\n")
	default:
		w.WriteString("result:\n" + capText(clean(d.Result), maxResultChars) + "\n")
	}
	return w.String()
}

// capText keeps the first max characters of s and says what it cut.
func capText(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	i := 0
	for k := 0; k < max; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + fmt.Sprintf("\n[cut: %d of %d characters shown]", max, n)
}
