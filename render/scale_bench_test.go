package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/claudemem/memtest"
	"bottle/host/claudecode/transcript"
	"bottle/internal/measure/gentranscript"
)

// runTranscript writes an autonomous run of calls tool calls under one
// prompt (gentranscript's ToolCalls) into dir and returns its path.
func runTranscript(tb testing.TB, dir string, calls int64) string {
	tb.Helper()
	path := filepath.Join(dir, gentranscript.DefaultSessionID+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := gentranscript.Write(f, gentranscript.Config{ToolCalls: calls, Seed: 1}); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkRenderRun renders, with the default budget, one prompt and an
// autonomous run of 20,000 and 100,000 tool calls the way the Stop hook
// does (no database): the time against the hook's 2 s deadline, and the
// bottle's estimated tokens (tokens/op) against the 20,000-token budget.
//
//	go test ./render -run '^$' -bench RenderRun -benchtime 3x
func BenchmarkRenderRun(b *testing.B) {
	for _, calls := range []int64{20000, 100000} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			path := runTranscript(b, b.TempDir(), calls)
			o := Options{TranscriptPath: path, Now: time.Unix(0, 0), Location: time.UTC}
			var res *Result
			for b.Loop() {
				var err error
				if res, err = Render(context.Background(), o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Tokens), "tokens/op")
			b.ReportMetric(float64(res.Lines), "lines/op")
		})
	}
}

// rowsOneTurn stores the generated session with one prompt and n
// observations of it, a second apart from its start.
func rowsOneTurn(n int) string {
	r := strings.NewReplacer("@ID@", gentranscript.DefaultSessionID, "@N@", fmt.Sprint(n))
	return r.Replace(`
INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
VALUES ('@ID@', 'mem-main', 'proj', 'prompt', 'x', 1769504400000, 'active');
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
VALUES (1, '@ID@', 1, 'first', 'x', 1769504400000);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @N@)
INSERT INTO observations (memory_session_id, project, type, title, narrative, facts, concepts, files_read,
  prompt_number, created_at, created_at_epoch, content_hash)
SELECT 'mem-main', 'proj', 'discovery', 'Read file ' || i, 'A narrative of moderate length about call ' || i,
  '["fact"]', '["how-it-works"]', '["internal/x.go"]', 1, 'x', 1769504400000 + i * 100, 'm' || i FROM n;
`)
}

// BenchmarkRenderObservations renders, with the default budget, a session
// of one prompt (a run of 2,000 tool calls) whose turn claude-mem stored
// 80,000 observations of: the merge and the fold of SessionStart's render,
// against its 8 s deadline.
func BenchmarkRenderObservations(b *testing.B) {
	const n = 80000
	dir := b.TempDir()
	tp := runTranscript(b, dir, 2000)
	db := memtest.Create(b, filepath.Join(dir, "claude-mem.db"), memtest.SchemaCurrent, rowsOneTurn(n), "wal")
	o := Options{SessionID: gentranscript.DefaultSessionID, TranscriptPath: tp, DBPath: db, Now: time.Unix(0, 0), Location: time.UTC}
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Render(context.Background(), o); err != nil || res.Observations != n {
			b.Fatalf("Render: %v (%d observations)", err, res.Observations)
		}
	}
	b.ReportMetric(float64(res.Tokens), "tokens/op")
}

// BenchmarkMergeObservations is the merge alone: 80,000 observations into
// the one turn of BenchmarkRenderObservations's session (the bottle built
// from the transcript again each time, which the merge changes).
func BenchmarkMergeObservations(b *testing.B) {
	const n = 80000
	dir := b.TempDir()
	tp := runTranscript(b, dir, 2000)
	db := memtest.Create(b, filepath.Join(dir, "claude-mem.db"), memtest.SchemaCurrent, rowsOneTurn(n), "wal")
	tr, err := transcript.Read(context.Background(), tp, nil)
	if err != nil {
		b.Fatal(err)
	}
	stored, _, err := loadStored(context.Background(), db, gentranscript.DefaultSessionID)
	if err != nil || stored == nil || len(stored.Observations) != n {
		b.Fatalf("loadStored: %v", err)
	}
	for b.Loop() {
		if got := mergeObservations(fromTranscript(tr), tr, stored); got != n {
			b.Fatalf("merged %d observations, want %d", got, n)
		}
	}
}
