package claudemem

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"bottle/claudemem/memtest"
)

// Fixture schemas, written after claude-mem's own DDL (its 13.25 schema):
// only the four tables this package
// reads, with their indexes, so that query plans are realistic.

const schemaCurrent = memtest.SchemaCurrent

const schemaV10 = memtest.SchemaV10

// schemaAncient predates v6, v8, v10 and v17: claude_session_id and
// sdk_session_id, no prompt numbers, no structured observation fields and no
// user_prompts table.
const schemaAncient = `
CREATE TABLE sdk_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  claude_session_id TEXT UNIQUE NOT NULL,
  sdk_session_id TEXT UNIQUE,
  project TEXT NOT NULL,
  user_prompt TEXT,
  started_at TEXT NOT NULL,
  started_at_epoch INTEGER NOT NULL,
  completed_at TEXT,
  completed_at_epoch INTEGER,
  status TEXT NOT NULL DEFAULT 'active');
CREATE INDEX idx_sdk_sessions_claude_id ON sdk_sessions(claude_session_id);
CREATE INDEX idx_sdk_sessions_sdk_id ON sdk_sessions(sdk_session_id);
CREATE TABLE observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sdk_session_id TEXT NOT NULL,
  project TEXT NOT NULL,
  text TEXT NOT NULL,
  type TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_at_epoch INTEGER NOT NULL);
CREATE INDEX idx_observations_sdk_session ON observations(sdk_session_id);
CREATE TABLE session_summaries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sdk_session_id TEXT NOT NULL,
  project TEXT NOT NULL,
  request TEXT, investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT, notes TEXT,
  created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL);
CREATE INDEX idx_session_summaries_sdk_session ON session_summaries(sdk_session_id);
`

// t0 is 2026-01-26T23:00:00Z in claude-mem's epoch milliseconds.
const t0 = 1769468400000

// at is t0 plus sec seconds, as this package returns times.
func at(sec int64) time.Time { return time.UnixMilli(t0 + sec*1000).UTC() }

// rowsCurrent fills schemaCurrent. created_at text is deliberately wrong
// ("x"): the epoch columns are the source of truth.
const rowsCurrent = `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt,
  started_at, started_at_epoch, completed_at_epoch, status) VALUES
 (1, 'sess-a', 'mem-a', 'proj', 'claude', '<private>pw hunter2</private>', 'x', 1769468400000, NULL, 'completed'),
 (2, 'sess-b', NULL, 'proj', 'claude', 'only prompt', 'x', 1769472000000, NULL, 'active'),
 (3, 'mem-stub', 'mem-stub', 'proj', 'claude', NULL, 'x', 1769400000000, NULL, 'completed'),
 (4, 'sess-observer', 'mem-observer', 'observer-sessions', 'claude', 'observe', 'x', 1769468400000, NULL, 'completed'),
 (5, 'sess-multi', 'mem-codex', 'proj', 'codex', 'codex run', 'x', 1769490000000, NULL, 'completed'),
 (6, 'sess-multi', 'mem-multi', 'proj', 'claude', 'claude run', 'x', 1769475600000, 1769476000000, 'completed'),
 (7, 'sess-merged', 'mem-m', 'proj/wt', 'claude', 'worktree', 'x', 1769300000000, NULL, 'completed'),
 (8, 'sess-other', 'mem-o', 'other', 'claude', NULL, 'x', 1769200000000, NULL, 'completed');

INSERT INTO user_prompts (id, session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch) VALUES
 (1, 1, 'sess-a', 1, 'first', 'x', 1769468401000),
 (2, 1, 'sess-a', 2, 'second', 'x', 1769468402000),
 (3, 1, 'sess-a', 1, 'first again', 'x', 1769468403000),
 (4, 2, 'sess-b', 1, 'only prompt', 'x', 1769472001000),
 (5, 5, 'sess-multi', 1, 'codex run', 'x', 1769490001000),
 (6, 6, 'sess-multi', 1, 'claude run', 'x', 1769475601000),
 (7, 4, 'sess-observer', 1, 'observe', 'x', 1769468401000);

INSERT INTO observations (id, memory_session_id, project, text, type, title, subtitle, facts, narrative, concepts,
  files_read, files_modified, prompt_number, created_at, created_at_epoch, content_hash, merged_into_project) VALUES
 (1, 'mem-a', 'proj', NULL, 'discovery', 'Read a.go', NULL, '["f1","f2"]', 'Read it; found X', 'how-it-works',
  NULL, '["a.go", 3, null, ""]', 1, 'x', 1769468430000, 'h1', NULL),
 (2, 'mem-a', 'proj', NULL, 'change', 'Early', 'sub', '"just a string"', NULL, '[]',
  '["b.go"]', NULL, NULL, 'x', 1769468410000, 'h2', NULL),
 (3, 'mem-a', 'proj', 'legacy text', 'bugfix', 'Same time', NULL, '{"k":1}', 'n3', '["gotcha"]',
  '', '[]', 2, 'x', 1769468430000, 'h3', NULL),
 (4, 'mem-gone', 'proj', NULL, 'discovery', 'Orphan', NULL, NULL, NULL, NULL, NULL, NULL, 1, 'x', 1769468440000, 'h4', NULL),
 (5, 'mem-stub', 'proj', NULL, 'discovery', 'Stub child', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'x', 1769400001000, 'h5', NULL),
 (6, 'mem-m', 'proj/wt', NULL, 'feature', 'Worktree work', NULL, NULL, NULL, NULL, NULL, NULL, 1, 'x', 1769300001000, 'h6', 'proj'),
 (7, 'mem-multi', 'proj', NULL, 'discovery', 'Multi', NULL, NULL, NULL, NULL, NULL, NULL, 1, 'x', 1769475700000, 'h7', NULL);

INSERT INTO session_summaries (id, memory_session_id, project, request, investigated, learned, completed, next_steps,
  notes, prompt_number, created_at, created_at_epoch) VALUES
 (1, 'mem-a', 'proj', 'r1', 'i1', 'l1', 'c1', 'n1', NULL, 1, 'x', 1769468460000),
 (2, 'mem-a', 'proj', '', '', '', '', '', 'private turn', NULL, 'x', 1769468450000),
 (3, 'mem-o', 'other', 'other', '', '', '', '', NULL, 1, 'x', 1769200001000);
`

// rowsV10 fills schemaV10: user_prompts found by content_session_id.
const rowsV10 = `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status) VALUES
 (1, 'sess-a', 'mem-a', 'proj', 'first', 'x', 1769468400000, 'active'),
 (2, 'sess-b', NULL, 'proj', 'b', '2026-01-27T00:00:00.000Z', 0, 'active');
INSERT INTO user_prompts (id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch) VALUES
 (1, 'sess-a', 2, 'second', 'x', 1769468402000),
 (2, 'sess-a', 1, 'first', 'x', 1769468401000),
 (3, 'sess-b', 1, 'b', 'x', 1769472001000);
INSERT INTO observations (id, memory_session_id, project, type, title, narrative, facts, prompt_number, created_at, created_at_epoch) VALUES
 (1, 'mem-a', 'proj', 'discovery', 'Read a.go', 'n', '["f"]', 1, 'x', 1769468430000),
 (2, 'mem-a', 'proj', 'change', 'Edit a.go', 'n', 'not json', 2, 'x', 1769468420000);
INSERT INTO session_summaries (id, memory_session_id, project, request, prompt_number, created_at, created_at_epoch) VALUES
 (1, 'mem-a', 'proj', 'r', 1, 'x', 1769468460000);
`

// rowsAncient fills schemaAncient.
const rowsAncient = `
INSERT INTO sdk_sessions (id, claude_session_id, sdk_session_id, project, user_prompt, started_at, started_at_epoch, status) VALUES
 (1, 'sess-a', 'mem-a', 'proj', 'first', 'x', 1769468400, 'completed');
INSERT INTO observations (id, sdk_session_id, project, text, type, created_at, created_at_epoch) VALUES
 (1, 'mem-a', 'proj', 'did a thing', 'discovery', 'x', 1769468430000);
INSERT INTO session_summaries (id, sdk_session_id, project, request, created_at, created_at_epoch) VALUES
 (1, 'mem-a', 'proj', 'r', 'x', 1769468460000);
`

// mustWriter opens a read-write connection to path, closed at the end of the test.
func mustWriter(tb testing.TB, path string) *sql.DB { return memtest.Writer(tb, path) }

// mustCreateDB creates a database at path from ddl and rows in the given
// journal mode ("wal" or "delete") and closes it.
func mustCreateDB(tb testing.TB, path, ddl, rows, journal string) string {
	return memtest.Create(tb, path, ddl, rows, journal)
}

// mustOpen opens path with Open and closes it at the end of the test.
func mustOpen(tb testing.TB, path string) *DB {
	tb.Helper()
	db, err := Open(tb.Context(), path)
	if err != nil {
		tb.Fatalf("Open(%q): %v", path, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// mustCurrent creates the current-schema fixture (WAL) in a temp dir.
func mustCurrent(tb testing.TB) string {
	tb.Helper()
	return mustCreateDB(tb, filepath.Join(tb.TempDir(), "claude-mem.db"), schemaCurrent, rowsCurrent, "wal")
}
