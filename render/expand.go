package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"bottle/render/locate"
	"bottle/render/transcript"

	"bottle/render/claudemem"
)

// IDKind is what a bottle id names.
type IDKind int

// Id kinds: an observation ("102401"), a tool call ("t17"), a turn's user
// words ("u3") or its assistant reply ("a3").
const (
	IDInvalid IDKind = iota
	IDObservation
	IDTool
	IDUser
	IDAssistant
)

// ParseID reads an id as the bottle writes it, with or without '#'
// ("#102401", "t17", "#u3"). It returns the canonical form and its number.
func ParseID(s string) (kind IDKind, canonical string, n int64) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if s == "" || len(s) > 20 {
		return IDInvalid, "", 0
	}
	kind = IDObservation
	digits := s
	switch s[0] {
	case 't', 'T':
		kind, digits = IDTool, s[1:]
	case 'u', 'U':
		kind, digits = IDUser, s[1:]
	case 'a', 'A':
		kind, digits = IDAssistant, s[1:]
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return IDInvalid, "", 0
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return IDInvalid, "", 0
	}
	prefix := map[IDKind]string{IDTool: "t", IDUser: "u", IDAssistant: "a"}[kind]
	return kind, prefix + strconv.FormatInt(v, 10), v
}

// Expansion is the full text behind one id.
type Expansion struct {
	ID    string // canonical id, or the input as given when it is invalid
	Found bool
	// Text is the record, stripped of private text; a tool call's input and
	// result are capped (with a note of the cut).
	Text string
	// Missing says why an id was not expanded.
	Missing string
}

// Expansion caps for a tool call.
const (
	maxInputChars  = 8000
	maxResultChars = 20000
)

// Expand returns the full text behind bottle ids: observations from
// claude-mem, tool calls and turns from the transcript. Ids it cannot find
// are returned with Found false and a reason (partial success); the error is
// for failures that stop every id (an unreadable transcript).
func Expand(ctx context.Context, o Options, ids []string) ([]Expansion, error) {
	out := make([]Expansion, len(ids))
	var obs []int64
	tools := map[int]*transcript.ToolDetail{}
	needTranscript := false
	for i, raw := range ids {
		kind, id, n := ParseID(raw)
		out[i].ID = id
		switch kind {
		case IDInvalid:
			out[i].ID = raw
			out[i].Missing = "not a bottle id (use 102401, #102401, t17, u3 or a3)"
		case IDObservation:
			obs = append(obs, n)
		case IDTool:
			if n >= 1 && n <= 1<<30 {
				tools[int(n-1)] = nil
			}
			needTranscript = true
		default:
			needTranscript = true
		}
	}
	if o.SessionID != "" {
		if err := locate.CheckID(o.SessionID); err != nil {
			return nil, err
		}
	}
	var t *transcript.Transcript
	var b *Bottle
	var stored *claudemem.Session
	path := o.TranscriptPath
	if needTranscript && path != "" {
		tr, err := transcript.Read(ctx, path, &transcript.ReadOptions{Capture: tools})
		if err != nil {
			return nil, err
		}
		t, b = tr, fromTranscript(tr)
	}
	dbPath := o.DBPath
	var records map[int64]claudemem.Observation
	var dbErr error
	if len(obs) > 0 || (needTranscript && b == nil && o.SessionID != "") {
		records, stored, dbErr = loadExpansions(ctx, dbPath, o.SessionID, obs)
	}
	if b == nil && stored != nil {
		b, _ = fromStored(stored)
	}
	loc := o.Location
	if loc == nil {
		loc = time.Local
	}
	for i := range out {
		if out[i].Missing != "" {
			continue
		}
		kind, _, n := ParseID(ids[i])
		e := &out[i]
		switch kind {
		case IDObservation:
			if r, ok := records[n]; ok {
				e.Found, e.Text = true, formatObservation(r, loc)
			} else if dbErr != nil {
				e.Missing = "claude-mem database unavailable: " + dbErr.Error()
			} else {
				e.Missing = "no such observation in the claude-mem database"
			}
		case IDTool:
			switch {
			case t == nil:
				e.Missing = "tool calls expand from the transcript, and there is none for this session"
			case n < 1 || int(n) > len(t.Tools) || tools[int(n-1)] == nil:
				e.Missing = fmt.Sprintf("no such tool call (the session has %d)", len(t.Tools))
			default:
				e.Found, e.Text = true, formatTool(tools[int(n-1)], loc)
			}
		case IDUser, IDAssistant:
			tu := turnN(b, int(n))
			switch {
			case b == nil:
				e.Missing = "no transcript and no stored prompts for this session"
			case tu == nil:
				e.Missing = fmt.Sprintf("no such turn (the session has %d)", len(b.Turns))
			case kind == IDAssistant && b.Mode == ModeReconstructed:
				e.Missing = "assistant messages were not preserved (reconstructed session)"
			case kind == IDUser:
				e.Found, e.Text = true, clean(userText(tu))
			case len(tu.Reply) == 0:
				e.Found, e.Text = true, noReply
			default:
				e.Found, e.Text = true, clean(strings.Join(tu.Reply, "\n\n"))
			}
		}
	}
	return out, nil
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

// loadExpansions reads observations by id, and the stored session when
// there is no transcript to expand turns from.
func loadExpansions(ctx context.Context, dbPath, sessionID string, ids []int64) (map[int64]claudemem.Observation, *claudemem.Session, error) {
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
	records := map[int64]claudemem.Observation{}
	if len(ids) > 0 {
		list, err := db.Observations(ctx, ids)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range list {
			records[r.ID] = r
		}
	}
	var s *claudemem.Session
	if sessionID != "" {
		s, err = db.Session(ctx, sessionID)
		if err != nil && !errors.Is(err, claudemem.ErrNoSession) {
			return records, nil, err
		}
	}
	return records, s, nil
}

// formatObservation writes a full observation record, stripped.
func formatObservation(o claudemem.Observation, loc *time.Location) string {
	var w strings.Builder
	line := func(k, v string) {
		if v = strings.TrimSpace(clean(v)); v != "" {
			w.WriteString(k + ": " + v + "\n")
		}
	}
	list := func(k string, vs []string) {
		var kept []string
		for _, v := range vs {
			if v = strings.TrimSpace(clean(v)); v != "" {
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

// formatTool writes a tool call's input and result, stripped and capped.
func formatTool(d *transcript.ToolDetail, loc *time.Location) string {
	var w strings.Builder
	w.WriteString("tool: " + clean(d.Name) + "\n")
	if !d.Time.IsZero() {
		w.WriteString("time: " + d.Time.In(loc).Format(time.RFC3339) + "\n")
	}
	input := d.Input
	var pretty bytes.Buffer
	if json.Indent(&pretty, d.Input, "", "  ") == nil {
		input = pretty.Bytes()
	}
	w.WriteString("input:\n" + capText(clean(string(input)), maxInputChars) + "\n")
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
