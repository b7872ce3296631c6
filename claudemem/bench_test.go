package claudemem

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// rowsLarge adds 2,000 sessions with 100 observations, 3 prompts and 3
// summaries each (200,000 observations) to schemaCurrent.
const rowsLarge = `
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
SELECT 'sess-' || i, 'mem-' || i, 'proj' || (i % 10), 'prompt', 'x', 1769468400000 + i * 60000, 'completed' FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
SELECT 1 + (i % 2000), 'sess-' || (1 + (i % 2000)), 1 + i / 2000, 'prompt text ' || i, 'x', 1769468400000 + i * 1000 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO observations (memory_session_id, project, type, title, narrative, facts, concepts, files_read,
  prompt_number, created_at, created_at_epoch, content_hash)
SELECT 'mem-' || (1 + (i % 2000)), 'proj', 'discovery', 'Read file ' || i, 'A narrative of moderate length about call ' || i,
  '["fact one","fact two"]', '["how-it-works"]', '["internal/x.go"]', 1 + (i % 3), 'x', 1769468400000 + i * 1000, 'h' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
INSERT INTO session_summaries (memory_session_id, project, request, completed, prompt_number, created_at, created_at_epoch)
SELECT 'mem-' || (1 + (i % 2000)), 'proj', 'request', 'completed', 1 + i / 2000, 'x', 1769468400000 + i * 1000 FROM n;
`

func mustLarge(b *testing.B) *DB {
	b.Helper()
	return mustOpen(b, largePath(b, 2000))
}

// rowsSessions is rowsLarge for n sessions (100 observations, 3 prompts and
// 3 summaries each).
func rowsSessions(n int) string {
	r := strings.NewReplacer("i < 2000)", fmt.Sprintf("i < %d)", n), "i < 6000)", fmt.Sprintf("i < %d)", 3*n),
		"i < 200000)", fmt.Sprintf("i < %d)", 100*n), "(i % 2000)", fmt.Sprintf("(i %% %d)", n), "i / 2000", fmt.Sprintf("i / %d", n))
	return r.Replace(rowsLarge)
}

// largePath builds a database of n sessions in the benchmark's temp dir.
func largePath(b *testing.B, sessions int) string {
	b.Helper()
	return mustCreateDB(b, filepath.Join(b.TempDir(), fmt.Sprintf("large-%d.db", sessions)), schemaCurrent, rowsSessions(sessions), "wal")
}

// BenchmarkSession reads one session (100 observations) out of 200,000.
func BenchmarkSession(b *testing.B) {
	db := mustLarge(b)
	for b.Loop() {
		s, err := db.Session(b.Context(), "sess-1234")
		if err != nil || len(s.Observations) != 100 {
			b.Fatalf("Session: %v", err)
		}
	}
}

// BenchmarkSessions lists 2,000 sessions with their counts.
func BenchmarkSessions(b *testing.B) {
	db := mustLarge(b)
	for b.Loop() {
		if list, err := db.Sessions(b.Context(), ""); err != nil || len(list) != 2000 {
			b.Fatalf("Sessions: %d, %v", len(list), err)
		}
	}
}

// BenchmarkSessionsProject lists the 200 sessions of one project.
func BenchmarkSessionsProject(b *testing.B) {
	db := mustLarge(b)
	for b.Loop() {
		if list, err := db.Sessions(b.Context(), "proj3"); err != nil || len(list) != 200 {
			b.Fatalf("Sessions: %d, %v", len(list), err)
		}
	}
}

// BenchmarkObservations expands 20 observations by id.
func BenchmarkObservations(b *testing.B) {
	db := mustLarge(b)
	ids := make([]int64, 20)
	for i := range ids {
		ids[i] = int64(1 + i*9973)
	}
	for b.Loop() {
		if obs, err := db.Observations(b.Context(), ids); err != nil || len(obs) != len(ids) {
			b.Fatalf("Observations: %d, %v", len(obs), err)
		}
	}
}

// BenchmarkOpen opens the 200,000-observation database and closes it: the
// connection, a first read and the schema introspection every command pays.
func BenchmarkOpen(b *testing.B) {
	path := largePath(b, 2000)
	for b.Loop() {
		db, err := Open(b.Context(), path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

// BenchmarkSessionScaling reads a session of 100 observations from
// databases of 2,000 and 200,000 observations: with the indexes used, the
// time does not grow with the history.
func BenchmarkSessionScaling(b *testing.B) {
	for _, sessions := range []int{20, 2000} {
		b.Run(fmt.Sprintf("observations=%d", 100*sessions), func(b *testing.B) {
			db := mustOpen(b, largePath(b, sessions))
			for b.Loop() {
				s, err := db.Session(b.Context(), "sess-7")
				if err != nil || len(s.Observations) != 100 {
					b.Fatalf("Session: %v", err)
				}
			}
		})
	}
}

// BenchmarkQueryPlans prints the plans of the per-session queries on the
// 200,000-observation database (go test -bench QueryPlans -v) and fails if
// one scans a table that grows with history.
func BenchmarkQueryPlans(b *testing.B) {
	db := mustLarge(b)
	q := db.q
	var out strings.Builder
	for _, p := range []struct {
		name, sql string
		arg       any
	}{{"session", q.session, "sess-7"}, {"prompts", q.prompts, int64(7)}, {"observations", q.observations, "mem-7"},
		{"summaries", q.summaries, "mem-7"}, {"observations by id", q.obsByID, "[1,2,3]"}} {
		plan := explain(b, db.db, p.sql, p.arg)
		if strings.Contains(plan, "SCAN o") || strings.Contains(plan, "SCAN m") || strings.Contains(plan, "SCAN p") {
			b.Errorf("%s scans a history table:\n%s", p.name, plan)
		}
		fmt.Fprintf(&out, "%s: %s; ", p.name, strings.ReplaceAll(strings.TrimSpace(plan), "\n", ", "))
	}
	b.Log(out.String())
	for b.Loop() {
		explain(b, db.db, q.observations, "mem-7")
	}
}
