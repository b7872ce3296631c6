package claudemem

import (
	"path/filepath"
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
	path := mustCreateDB(b, filepath.Join(b.TempDir(), "large.db"), schemaCurrent, rowsLarge, "wal")
	return mustOpen(b, path)
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
