package claudemem

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Session returns the stored session whose content session id (Claude Code's
// session id) is contentSessionID, with its prompts, observations and
// summaries, read in one snapshot. It returns [ErrNoSession] when there is
// none. Where several rows share the id (one per platform), the Claude Code
// one wins, else the newest.
func (db *DB) Session(ctx context.Context, contentSessionID string) (s *Session, err error) {
	defer wrap(&err, "read session %s", contentSessionID)
	tx, err := db.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // read-only: nothing to commit

	var (
		id                                 int64
		content, memory, project, platform sql.NullString
		userPrompt, status, startedAt      sql.NullString
		startedEpoch                       sql.NullInt64
	)
	err = tx.QueryRowContext(ctx, db.q.session, contentSessionID).Scan(&id, &content, &memory, &project,
		&platform, &userPrompt, &status, &startedEpoch, &startedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, err
	}
	s = &Session{
		ContentSessionID: content.String,
		MemorySessionID:  memory.String,
		Project:          project.String,
		Platform:         platform.String,
		UserPrompt:       userPrompt.String,
		Status:           status.String,
		Started:          stamp(startedEpoch, startedAt),
	}
	if db.q.prompts != "" {
		var key any = contentSessionID
		if db.q.promptsByID {
			key = id
		}
		if s.Prompts, err = db.prompts(ctx, tx, key); err != nil {
			return nil, err
		}
	}
	if s.MemorySessionID == "" {
		return s, nil // the observer never answered: nothing is linked
	}
	if db.q.observations != "" {
		if s.Observations, err = queryObservations(ctx, tx, db.q.observations, s.MemorySessionID); err != nil {
			return nil, err
		}
	}
	if db.q.summaries != "" {
		if s.Summaries, err = db.summaries(ctx, tx, s.MemorySessionID); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (db *DB) prompts(ctx context.Context, tx *sql.Tx, key any) ([]Prompt, error) {
	rows, err := tx.QueryContext(ctx, db.q.prompts, key)
	if err != nil {
		return nil, fmt.Errorf("query prompts: %w", err)
	}
	defer rows.Close()
	var out []Prompt
	for rows.Next() {
		var (
			num, ep   sql.NullInt64
			text, iso sql.NullString
		)
		if err := rows.Scan(&num, &text, &ep, &iso); err != nil {
			return nil, fmt.Errorf("scan prompt: %w", err)
		}
		out = append(out, Prompt{Number: int(num.Int64), Text: text.String, Created: stamp(ep, iso)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query prompts: %w", err)
	}
	return out, nil
}

func (db *DB) summaries(ctx context.Context, tx *sql.Tx, memory string) ([]Summary, error) {
	rows, err := tx.QueryContext(ctx, db.q.summaries, memory)
	if err != nil {
		return nil, fmt.Errorf("query summaries: %w", err)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var (
			sm                                                    Summary
			num, ep                                               sql.NullInt64
			req, inv, learned, completed, next, notes, createdISO sql.NullString
		)
		if err := rows.Scan(&sm.ID, &num, &req, &inv, &learned, &completed, &next, &notes, &ep, &createdISO); err != nil {
			return nil, fmt.Errorf("scan summary: %w", err)
		}
		sm.PromptNumber = int(num.Int64)
		sm.Request, sm.Investigated, sm.Learned = req.String, inv.String, learned.String
		sm.Completed, sm.NextSteps, sm.Notes = completed.String, next.String, notes.String
		sm.Created = stamp(ep, createdISO)
		out = append(out, sm)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query summaries: %w", err)
	}
	return out, nil
}

// queryer is what *sql.DB and *sql.Tx share.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryObservations(ctx context.Context, q queryer, query string, arg any) ([]Observation, error) {
	rows, err := q.QueryContext(ctx, query, arg)
	if err != nil {
		return nil, fmt.Errorf("query observations: %w", err)
	}
	defer rows.Close()
	var out []Observation
	for rows.Next() {
		var (
			o                                  Observation
			num, ep                            sql.NullInt64
			typ, title, subtitle, narrative    sql.NullString
			text, facts, concepts, read, modif sql.NullString
			createdISO, project, memory        sql.NullString
		)
		if err := rows.Scan(&o.ID, &num, &typ, &title, &subtitle, &narrative, &text, &facts, &concepts,
			&read, &modif, &ep, &createdISO, &project, &memory); err != nil {
			return nil, fmt.Errorf("scan observation: %w", err)
		}
		o.PromptNumber = int(num.Int64)
		o.Type, o.Title, o.Subtitle, o.Narrative, o.Text = typ.String, title.String, subtitle.String, narrative.String, text.String
		o.Facts, o.Concepts = decodeList(facts.String), decodeList(concepts.String)
		o.FilesRead, o.FilesModified = decodeList(read.String), decodeList(modif.String)
		o.Created, o.Project, o.MemorySessionID = stamp(ep, createdISO), project.String, memory.String
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query observations: %w", err)
	}
	return out, nil
}

// MemorySessionID returns the observer session id under which claude-mem
// stores the observations of the session contentSessionID ("" when the
// observer never answered), choosing the row as [DB.Session] does. It
// returns [ErrNoSession] when the session is not stored.
func (db *DB) MemorySessionID(ctx context.Context, contentSessionID string) (_ string, err error) {
	defer wrap(&err, "read session %s", contentSessionID)
	var (
		id                                 int64
		content, memory, project, platform sql.NullString
		userPrompt, status, startedAt      sql.NullString
		startedEpoch                       sql.NullInt64
	)
	err = db.db.QueryRowContext(ctx, db.q.session, contentSessionID).Scan(&id, &content, &memory, &project,
		&platform, &userPrompt, &status, &startedEpoch, &startedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNoSession
	}
	if err != nil {
		return "", err
	}
	return memory.String, nil
}

// Observations returns the observations with the given ids, in the order of
// ids (each once); unknown ids are simply absent. Text is raw and unstripped.
func (db *DB) Observations(ctx context.Context, ids []int64) (_ []Observation, err error) {
	defer wrap(&err, "read observations")
	if len(ids) == 0 || db.q.obsByID == "" {
		return nil, nil
	}
	arg, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	got, err := queryObservations(ctx, db.db, db.q.obsByID, string(arg))
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]Observation, len(got))
	for _, o := range got {
		byID[o.ID] = o
	}
	out := make([]Observation, 0, len(got))
	for _, id := range ids {
		if o, ok := byID[id]; ok {
			out = append(out, o)
			delete(byID, id)
		}
	}
	return out, nil
}

// Sessions lists every stored session of project ("" = all projects), newest
// activity first. A project matches by sdk_sessions.project or, as in
// claude-mem, through observations or summaries merged into it. Where several
// rows share a content session id, only the one [DB.Session] returns is listed.
func (db *DB) Sessions(ctx context.Context, project string) (_ []SessionInfo, err error) {
	defer wrap(&err, "list sessions")
	query, args := db.q.listAll, []any(nil)
	if project != "" {
		query, args = db.q.listProject, []any{project}
	}
	rows, err := db.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type row struct {
		SessionInfo
		id int64
	}
	best := map[string]row{}
	for rows.Next() {
		var (
			r                                          row
			content, proj, platform, userPrompt, first sql.NullString
			startedISO                                 sql.NullString
			started, completed, lastP, lastO, lastS    sql.NullInt64
		)
		if err := rows.Scan(&r.id, &content, &proj, &platform, &userPrompt, &started, &startedISO, &completed,
			&r.Prompts, &first, &lastP, &r.Observations, &lastO, &r.Summaries, &lastS); err != nil {
			return nil, err
		}
		r.ContentSessionID, r.Project, r.Platform = content.String, proj.String, platform.String
		r.FirstPrompt = cmp.Or(first.String, userPrompt.String)
		r.Started = stamp(started, startedISO)
		r.LastActivity = r.Started
		for _, e := range []sql.NullInt64{completed, lastP, lastO, lastS} {
			if t := stamp(e, sql.NullString{}); t.After(r.LastActivity) {
				r.LastActivity = t
			}
		}
		if prev, ok := best[r.ContentSessionID]; !ok || preferred(r.Platform, r.Started, r.id, prev.Platform, prev.Started, prev.id) {
			best[r.ContentSessionID] = r
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]SessionInfo, 0, len(best))
	for _, r := range best {
		out = append(out, r.SessionInfo)
	}
	slices.SortFunc(out, func(a, b SessionInfo) int {
		return cmp.Or(b.LastActivity.Compare(a.LastActivity), b.Started.Compare(a.Started),
			strings.Compare(a.ContentSessionID, b.ContentSessionID))
	})
	return out, nil
}

// preferred reports whether row a beats row b for the same content session
// id, in the order of the session query: Claude Code first, then newest.
func preferred(aPlat string, aStart time.Time, aID int64, bPlat string, bStart time.Time, bID int64) bool {
	if (aPlat == "claude") != (bPlat == "claude") {
		return aPlat == "claude"
	}
	if c := aStart.Compare(bStart); c != 0 {
		return c > 0
	}
	return aID > bID
}

// stamp converts claude-mem's *_epoch (milliseconds since the Unix epoch) to
// UTC, falling back to its ISO-8601 *_at text when the epoch is missing.
// Values below 1e11 are taken as seconds (no millisecond stamp is that small).
func stamp(epoch sql.NullInt64, iso sql.NullString) time.Time {
	if epoch.Valid && epoch.Int64 > 0 {
		if epoch.Int64 < 1e11 {
			return time.Unix(epoch.Int64, 0).UTC()
		}
		return time.UnixMilli(epoch.Int64).UTC()
	}
	if iso.Valid {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05"} {
			if t, err := time.Parse(layout, strings.TrimSpace(iso.String)); err == nil {
				return t.UTC()
			}
		}
	}
	return time.Time{}
}

// decodeList decodes a JSON-array column leniently: strings are kept, other
// JSON values keep their JSON text, a JSON string is one item, and text that
// is not JSON at all is one item. Empty items are dropped; nil for none.
func decodeList(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || s == "null" || s == "[]" {
		return nil
	}
	if out, ok := decodeStrings(s); ok {
		return out
	}
	return decodeListJSON(s)
}

// decodeStrings decodes the common case of a list column, an array of
// strings without escapes, as decodeList does, without encoding/json (a
// search reads every observation's four lists); ok is false for anything
// else.
func decodeStrings(s string) (out []string, ok bool) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' || strings.IndexByte(s, '\\') >= 0 || !utf8.ValidString(s) {
		return nil, false
	}
	i := 1
	space := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	space()
	if s[i] == ']' {
		return nil, i == len(s)-1
	}
	for {
		if s[i] != '"' {
			return nil, false
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return nil, false
		}
		item := s[i+1 : i+1+j]
		for k := 0; k < len(item); k++ {
			if item[k] < 0x20 {
				return nil, false // not JSON: encoding/json decides
			}
		}
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
		i += j + 2
		space()
		if i >= len(s) {
			return nil, false
		}
		switch s[i] {
		case ']':
			return out, i == len(s)-1
		case ',':
			i++
			space()
		default:
			return nil, false
		}
	}
}

// decodeListJSON is decodeList with encoding/json, for any text.
func decodeListJSON(s string) []string {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		var one string
		if json.Unmarshal([]byte(s), &one) == nil {
			s = strings.TrimSpace(one)
		}
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var out []string
	for _, r := range raw {
		if string(r) == "null" {
			continue
		}
		var item string
		if json.Unmarshal(r, &item) != nil {
			item = string(r)
		}
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// wrap prefixes a non-nil *errp with context; errors.Is still finds
// ErrNoSession and the driver's errors through it.
func wrap(errp *error, format string, args ...any) {
	if *errp != nil {
		*errp = fmt.Errorf(format+": %w", append(args, describe(*errp))...)
	}
}
