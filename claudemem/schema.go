package claudemem

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// queries holds the SQL for one open database, built once from its columns.
// Only column names from a fixed list are spliced in; values are always bound.
// An empty string means the table is missing.
//
// Index use (EXPLAIN QUERY PLAN, pinned by TestQueryPlans on the current and
// older schemas): the session row by idx_sdk_sessions_claude_id; prompts by
// idx_user_prompts_lookup (session_db_id, or content_session_id before v34);
// observations and summaries by idx_observations_sdk_session and
// idx_session_summaries_sdk_session, then a sort of that one session's rows;
// observations by id through the primary key. Listing scans sdk_sessions (one
// row per session) and runs per-session subqueries on the same indexes. With
// 200,000 observations a session read takes about 1 ms (BenchmarkSession).
type queries struct {
	session      string // ?1 content_session_id
	prompts      string // ?1 sdk_sessions.id (promptsByID) or content_session_id
	promptsByID  bool
	observations string // ?1 memory_session_id
	summaries    string // ?1 memory_session_id
	obsByID      string // ?1 JSON array of ids
	listAll      string
	listProject  string // ?1 project
}

// table is the set of columns of one table; empty when the table is missing.
type table map[string]bool

// pick returns the first of names that the table has, or "".
func (t table) pick(names ...string) string {
	for _, n := range names {
		if t[n] {
			return n
		}
	}
	return ""
}

// col returns alias.name when the table has the column, else the SQL literal
// def (e.g. "NULL"), so that old schemas read missing columns as empty.
func (t table) col(alias, name, def string) string {
	if t[name] {
		return alias + "." + name
	}
	return def
}

func columns(ctx context.Context, db *sql.DB, name string) (table, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?1)", name)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", name, err)
	}
	defer rows.Close()
	t := table{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read columns of %s: %w", name, err)
		}
		t[strings.ToLower(c)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read columns of %s: %w", name, err)
	}
	return t, nil
}

// introspect reads the schema and builds the queries. Column names changed at
// claude-mem's v17 (claude_session_id -> content_session_id, sdk_session_id
// -> memory_session_id); user_prompts gained session_db_id at v34.
func introspect(ctx context.Context, db *sql.DB) (queries, []string, error) {
	var q queries
	var notes []string
	t := map[string]table{}
	for _, name := range []string{"sdk_sessions", "user_prompts", "observations", "session_summaries"} {
		cols, err := columns(ctx, db, name)
		if err != nil {
			return q, nil, err
		}
		t[name] = cols
	}
	ss, up, ob, su := t["sdk_sessions"], t["user_prompts"], t["observations"], t["session_summaries"]
	content := ss.pick("content_session_id", "claude_session_id")
	memory := ss.pick("memory_session_id", "sdk_session_id")
	if len(ss) == 0 || content == "" || memory == "" || !ss["id"] {
		return q, nil, errors.New("not a claude-mem database: no sdk_sessions table with session ids")
	}

	// Rows claude-mem itself never shows: its internal observer project, and
	// stub parents created for orphaned rows (content id = memory id).
	visible := fmt.Sprintf("s.project IS NOT 'observer-sessions' AND (s.%[1]s IS NULL OR s.%[1]s <> s.%[2]s)", memory, content)
	platform := ss.col("s", "platform_source", "'claude'")

	q.session = fmt.Sprintf(`SELECT s.id, s.%[1]s, s.%[2]s, s.project, %[3]s, %[4]s, %[5]s, %[6]s, %[7]s
FROM sdk_sessions s
WHERE s.%[1]s = ?1 AND %[8]s
ORDER BY %[3]s = 'claude' DESC, %[6]s DESC, s.id DESC
LIMIT 1`, content, memory, platform, ss.col("s", "user_prompt", "NULL"), ss.col("s", "status", "NULL"),
		intCol(ss, "s", "started_at_epoch"), ss.col("s", "started_at", "NULL"), visible)

	// user_prompts: linked by session_db_id since v34, by content id before.
	var promptLink, promptKey string
	if upContent := up.pick("content_session_id", "claude_session_id"); up["prompt_text"] && up["prompt_number"] {
		switch {
		case up["session_db_id"]:
			q.promptsByID, promptLink, promptKey = true, "p.session_db_id", "s.id"
		case upContent != "":
			promptLink, promptKey = "p."+upContent, "s."+content
		}
	}
	if promptLink != "" {
		q.prompts = fmt.Sprintf(`SELECT %s, p.prompt_text, %s, %s
FROM user_prompts p WHERE %s = ?1 ORDER BY p.prompt_number, p.id`,
			intCol(up, "p", "prompt_number"), intCol(up, "p", "created_at_epoch"), up.col("p", "created_at", "NULL"), promptLink)
	} else {
		notes = append(notes, "no usable user_prompts table: stored prompts unavailable")
	}

	obMem := ob.pick("memory_session_id", "sdk_session_id")
	if obMem != "" {
		sel := fmt.Sprintf(`SELECT o.id, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, o.project, o.%s
FROM observations o`,
			intCol(ob, "o", "prompt_number"), ob.col("o", "type", "NULL"), ob.col("o", "title", "NULL"), ob.col("o", "subtitle", "NULL"),
			ob.col("o", "narrative", "NULL"), ob.col("o", "text", "NULL"), ob.col("o", "facts", "NULL"),
			ob.col("o", "concepts", "NULL"), ob.col("o", "files_read", "NULL"), ob.col("o", "files_modified", "NULL"),
			intCol(ob, "o", "created_at_epoch"), ob.col("o", "created_at", "NULL"), obMem)
		q.observations = sel + fmt.Sprintf(" WHERE o.%s = ?1 ORDER BY %s, o.id", obMem, intCol(ob, "o", "created_at_epoch"))
		q.obsByID = sel + " WHERE o.id IN (SELECT value FROM json_each(?1))"
	} else {
		notes = append(notes, "no usable observations table: observations unavailable")
	}

	suMem := su.pick("memory_session_id", "sdk_session_id")
	if suMem != "" {
		q.summaries = fmt.Sprintf(`SELECT m.id, %s, %s, %s, %s, %s, %s, %s, %s, %s
FROM session_summaries m WHERE m.%s = ?1 ORDER BY %s, m.id`,
			intCol(su, "m", "prompt_number"), su.col("m", "request", "NULL"), su.col("m", "investigated", "NULL"),
			su.col("m", "learned", "NULL"), su.col("m", "completed", "NULL"), su.col("m", "next_steps", "NULL"),
			su.col("m", "notes", "NULL"), intCol(su, "m", "created_at_epoch"), su.col("m", "created_at", "NULL"),
			suMem, intCol(su, "m", "created_at_epoch"))
	} else {
		notes = append(notes, "no usable session_summaries table: summaries unavailable")
	}

	// Listing: per-session counts and newest times through the same indexes.
	promptCount, firstPrompt, lastPrompt := "0", "NULL", "NULL"
	if promptLink != "" {
		w := fmt.Sprintf("FROM user_prompts p WHERE %s = %s", promptLink, promptKey)
		promptCount = "(SELECT count(*) " + w + ")"
		firstPrompt = "(SELECT p.prompt_text " + w + " ORDER BY p.prompt_number, p.id LIMIT 1)"
		lastPrompt = fmt.Sprintf("(SELECT max(%s) %s)", intCol(up, "p", "created_at_epoch"), w)
	}
	obCount, obLast := "0", "NULL"
	if obMem != "" {
		w := fmt.Sprintf("FROM observations o WHERE o.%s = s.%s", obMem, memory)
		obCount = "(SELECT count(*) " + w + ")"
		obLast = fmt.Sprintf("(SELECT max(%s) %s)", intCol(ob, "o", "created_at_epoch"), w)
	}
	suCount, suLast := "0", "NULL"
	if suMem != "" {
		w := fmt.Sprintf("FROM session_summaries m WHERE m.%s = s.%s", suMem, memory)
		suCount = "(SELECT count(*) " + w + ")"
		suLast = fmt.Sprintf("(SELECT max(%s) %s)", intCol(su, "m", "created_at_epoch"), w)
	}
	list := fmt.Sprintf(`SELECT s.id, s.%s, s.project, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s
FROM sdk_sessions s WHERE %s`,
		content, platform, ss.col("s", "user_prompt", "NULL"), intCol(ss, "s", "started_at_epoch"),
		ss.col("s", "started_at", "NULL"), intCol(ss, "s", "completed_at_epoch"),
		promptCount, firstPrompt, lastPrompt, obCount, obLast, suCount, suLast, visible)
	q.listAll = list
	// A project also owns sessions whose rows were merged into it
	// (worktree adoption sets merged_into_project), as in claude-mem's queries.
	var merged []string
	if ob["merged_into_project"] && obMem != "" {
		merged = append(merged, fmt.Sprintf("SELECT o.%s FROM observations o WHERE o.merged_into_project = ?1", obMem))
	}
	if su["merged_into_project"] && suMem != "" {
		merged = append(merged, fmt.Sprintf("SELECT m.%s FROM session_summaries m WHERE m.merged_into_project = ?1", suMem))
	}
	if len(merged) > 0 {
		q.listProject = list + fmt.Sprintf(" AND (s.project = ?1 OR s.%s IN (%s))", memory, strings.Join(merged, " UNION "))
	} else {
		q.listProject = list + " AND s.project = ?1"
	}
	return q, notes, nil
}

// intCol selects an integer column (an *_epoch or a prompt number) as an
// integer, whatever its stored type, or NULL when the table lacks it.
func intCol(t table, alias, name string) string {
	if t[name] {
		return "CAST(" + alias + "." + name + " AS INTEGER)"
	}
	return "NULL"
}
