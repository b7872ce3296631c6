package record

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"bottle/claudemem"
	"bottle/internal/shown"
	"bottle/privacy"
	"bottle/session"
)

// Where says where [Lookup] looks.
type Where struct {
	// SessionID is the session the ids belong to; "" looks in every
	// session.
	SessionID string
	// DB is claude-mem's database, open; nil opens DBPath for the call.
	DB *claudemem.DB
	// DBPath is claude-mem's database path ("" or a missing file: no
	// database). It names the database in messages even when DB is given.
	DBPath string
}

// Stored is what [Lookup] found in claude-mem's database. Its zero value
// found nothing and was not asked.
type Stored struct {
	Records map[int64]claudemem.Observation // found, and the session's own
	Session *claudemem.Session              // the stored session, when asked for
	Err     error                           // the database could not be read
	where   Where
	refused map[int64]bool // found, but another session's
}

// Lookup reads observations by id, checks that they belong to the session
// (stored under its observer id), and reads the stored session when
// wantSession.
func Lookup(ctx context.Context, w Where, ids []int64, wantSession bool) *Stored {
	st := &Stored{Records: map[int64]claudemem.Observation{}, where: w, refused: map[int64]bool{}}
	db := w.DB
	if db == nil {
		if w.DBPath == "" {
			st.Err = fs.ErrNotExist
			return st
		}
		var err error
		if db, err = claudemem.Open(ctx, w.DBPath); err != nil {
			st.Err = err
			return st
		}
		defer db.Close()
	}
	if wantSession && w.SessionID != "" {
		s, err := db.Session(ctx, w.SessionID)
		if err != nil && !errors.Is(err, claudemem.ErrNoSession) {
			st.Err = err
			return st
		}
		st.Session = s
	}
	if len(ids) == 0 {
		return st
	}
	// Membership: an observation belongs to the session when it is stored
	// under the session's observer id ("" matches nothing).
	memory := ""
	if w.SessionID != "" {
		m, err := db.MemorySessionID(ctx, w.SessionID)
		switch {
		case errors.Is(err, claudemem.ErrNoSession):
		case err != nil:
			st.Err = err
			return st
		default:
			memory = m
		}
	}
	list, err := db.Observations(ctx, ids)
	if err != nil {
		st.Err = err
		return st
	}
	for _, r := range list {
		if w.SessionID != "" && (memory == "" || r.MemorySessionID != memory) {
			st.refused[r.ID] = true
			continue
		}
		st.Records[r.ID] = r
	}
	return st
}

// Missing says why observation id is not among the records, in words that
// suit a model and a user alike.
func (st *Stored) Missing(id string) string {
	n, _ := strconv.ParseInt(id, 10, 64)
	switch {
	case st.Err != nil && errors.Is(st.Err, fs.ErrNotExist):
		where := ""
		if st.where.DBPath != "" {
			where = " at " + st.where.DBPath
		}
		return "no claude-mem database" + where + " (observation ids come from claude-mem; " +
			"set CLAUDE_MEM_DATA_DIR if it lives elsewhere)"
	case st.Err != nil:
		return fmt.Sprintf("claude-mem's database could not be read (%v); try again later", st.Err)
	case st.refused[n]:
		return fmt.Sprintf("not an observation of session %s (it belongs to another session; "+
			"expand it with that session's id)", st.where.SessionID)
	}
	return "no such observation in claude-mem"
}

// Summary expands summary id n of the session: found, its text, or why it
// was not.
func (st *Stored) Summary(n int64, loc *time.Location) (bool, string, string) {
	switch {
	case st.where.SessionID == "":
		return false, "", "summary ids need a session; name the session"
	case st.Err != nil && errors.Is(st.Err, fs.ErrNotExist):
		return false, "", st.Missing("0")
	case st.Err != nil:
		return false, "", fmt.Sprintf("claude-mem's database could not be read (%v); try again later", st.Err)
	case st.Session == nil:
		return false, "", "claude-mem holds no records of this session"
	}
	for _, sm := range st.Session.Summaries {
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
	return false, "", fmt.Sprintf("no such summary of session %s (it has %d)", st.where.SessionID, len(st.Session.Summaries))
}

// A tool call's input and result are capped at these many characters.
const (
	MaxInputChars  = 8000
	MaxResultChars = 20000
)

// Observation lays out an observation record, every text stripped: a
// first line of its type, prompt and time ("discovery · prompt 1 ·
// 2026-01-05 10:03 UTC"), then a line per field; multi-line texts are
// indented, so no stored text can read as the heading of another record.
// It is the one layout of an observation, whoever shows it (the CLI under
// its record heading, the MCP tool after "## #<id> · ").
func Observation(o claudemem.Observation, loc *time.Location) string {
	var b strings.Builder
	var head []string
	if t := clean(o.Type); t != "" {
		head = append(head, t)
	}
	if o.PromptNumber > 0 {
		head = append(head, "prompt "+strconv.Itoa(o.PromptNumber))
	} else {
		head = append(head, "before the first stored prompt")
	}
	if !o.Created.IsZero() {
		head = append(head, o.Created.In(loc).Format("2006-01-02 15:04 MST"))
	}
	b.WriteString(strings.Join(head, " · ") + "\n")
	field := func(name, text string) {
		if text = clean(text); text != "" {
			b.WriteString(name + ": " + flat(text) + "\n")
		}
	}
	block := func(name, text string) {
		if text = clean(text); text != "" {
			b.WriteString(name + ":\n" + indent(text) + "\n")
		}
	}
	list := func(name string, items []string, bullets bool) {
		var kept []string
		for _, it := range items {
			if it = clean(privacy.StripValue(it)); it != "" {
				kept = append(kept, flat(it))
			}
		}
		switch {
		case len(kept) == 0:
		case bullets:
			b.WriteString(name + ":\n")
			for _, it := range kept {
				b.WriteString("  - " + it + "\n")
			}
		default:
			b.WriteString(name + ": " + strings.Join(kept, ", ") + "\n")
		}
	}
	field("title", o.Title)
	field("subtitle", o.Subtitle)
	block("narrative", o.Narrative)
	list("facts", o.Facts, true)
	list("concepts", o.Concepts, false)
	list("files read", o.FilesRead, false)
	list("files modified", o.FilesModified, false)
	block("text", o.Text)
	field("project", o.Project)
	return b.String()
}

// clean is shown.Clean without the space around.
func clean(s string) string { return strings.TrimSpace(shown.Clean(s)) }

// flat joins s's words with single spaces, on one line.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// indent indents every line of s by two spaces.
func indent(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// writeField writes "k: v" and a newline when v, cleaned, is not blank.
func writeField(w *strings.Builder, k, v string) {
	if v = strings.TrimSpace(shown.Clean(v)); v != "" {
		w.WriteString(k + ": " + v + "\n")
	}
}

// Tool writes a tool call's input and result, stripped and capped.
func Tool(d *session.ToolDetail, loc *time.Location) string {
	var w strings.Builder
	w.WriteString("tool: " + shown.Clean(d.Name) + "\n")
	if !d.Time.IsZero() {
		w.WriteString("time: " + d.Time.In(loc).Format(time.RFC3339) + "\n")
	}
	// The input's strings are stripped decoded, one by one: a tag written
	// with JSON escapes is still a tag, and a block never spans the JSON
	// between two strings.
	input, err := privacy.JSON(d.Input, "  ", shown.Clean)
	if err != nil {
		input = shown.Clean(string(d.Input))
	}
	w.WriteString("input:\n" + Cap(input, MaxInputChars) + "\n")
	switch {
	case !d.HasResult:
		w.WriteString("result: none in the transcript (the call was interrupted or is still running)\n")
	case d.IsError:
		w.WriteString("result (error):\n" + Cap(shown.Clean(d.Result), MaxResultChars) + "\n")
	default:
		w.WriteString("result:\n" + Cap(shown.Clean(d.Result), MaxResultChars) + "\n")
	}
	return w.String()
}

// Cap keeps the first max characters of s and says what it cut.
func Cap(s string, max int) string {
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
