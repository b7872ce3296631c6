package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/bottles"
	"bottle/claudemem/memtest"
	"bottle/host/claudecode/transcript"
	"bottle/internal/measure/gentranscript"
)

// BenchmarkRenderScaling renders whole bottles (budget 0) of synthetic
// transcripts of growing size: MB/s stays flat when time grows linearly.
func BenchmarkRenderScaling(b *testing.B) {
	for _, mb := range []int64{4, 8, 16, 32} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "gen.jsonl")
			data := genTranscript(b, mb<<20)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			o := Options{TranscriptPath: path, NoBudget: true, Now: time.Unix(0, 0), Location: time.UTC}
			for b.Loop() {
				if _, err := Render(context.Background(), o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// rowsRenderDB stores the synthetic session (100 observations, 3 prompts,
// a summary) among filler sessions of 100 observations each.
func rowsRenderDB(filler int) string {
	id := gentranscript.DefaultSessionID
	r := strings.NewReplacer("@ID@", id, "@N@", fmt.Sprint(filler), "@OBS@", fmt.Sprint(100*filler))
	return r.Replace(`
INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
VALUES ('@ID@', 'mem-main', 'proj', 'prompt', 'x', 1769504400000, 'completed');
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
VALUES (1, '@ID@', 1, 'first', 'x', 1769504400000), (1, '@ID@', 2, 'second', 'x', 1769504500000), (1, '@ID@', 3, 'third', 'x', 1769504600000);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
INSERT INTO observations (memory_session_id, project, type, title, narrative, facts, concepts, files_read,
  prompt_number, created_at, created_at_epoch, content_hash)
SELECT 'mem-main', 'proj', 'discovery', 'Read file ' || i, 'A narrative of moderate length about call ' || i,
  '["fact"]', '["how-it-works"]', '["internal/x.go"]', 1 + (i % 3), 'x', 1769504400000 + i * 60000, 'm' || i FROM n;
INSERT INTO session_summaries (memory_session_id, project, request, completed, next_steps, prompt_number, created_at, created_at_epoch)
VALUES ('mem-main', 'proj', 'request', 'completed', 'next', 3, 'x', 1769590800000);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @N@)
INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
SELECT 'sess-' || i, 'mem-' || i, 'proj' || (i % 10), 'prompt', 'x', 1769468400000 + i * 60000, 'completed' FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @OBS@)
INSERT INTO observations (memory_session_id, project, type, title, narrative, facts, concepts, files_read,
  prompt_number, created_at, created_at_epoch, content_hash)
SELECT 'mem-' || (1 + (i % @N@)), 'proj', 'discovery', 'Read file ' || i, 'A narrative of moderate length about call ' || i,
  '["fact one","fact two"]', '["how-it-works"]', '["internal/x.go"]', 1 + (i % 3), 'x', 1769468400000 + i * 1000, 'h' || i FROM n;
`)
}

// BenchmarkRenderDB renders a 4 MB session with its 100 observations from
// databases holding 2,000 and 200,000 observations in all: the render
// does not slow down as claude-mem's history grows.
func BenchmarkRenderDB(b *testing.B) {
	data := genTranscript(b, 4<<20)
	for _, filler := range []int{19, 1999} {
		b.Run(fmt.Sprintf("observations=%d", 100*(filler+1)), func(b *testing.B) {
			dir := b.TempDir()
			tp := filepath.Join(dir, gentranscript.DefaultSessionID+".jsonl")
			if err := os.WriteFile(tp, data, 0o600); err != nil {
				b.Fatal(err)
			}
			db := memtest.Create(b, filepath.Join(dir, "claude-mem.db"), memtest.SchemaCurrent, rowsRenderDB(filler), "wal")
			o := Options{SessionID: gentranscript.DefaultSessionID, TranscriptPath: tp, DBPath: db, Now: time.Unix(0, 0), Location: time.UTC}
			for b.Loop() {
				res, err := Render(context.Background(), o)
				if err != nil || res.Observations != 100 {
					b.Fatalf("Render: %v (%d observations)", err, res.Observations)
				}
			}
		})
	}
}

// BenchmarkWriteBottle writes a 100 KB bottle atomically (temp file, fsync,
// rename, fsync of the folder): the durability every hook pays.
func BenchmarkWriteBottle(b *testing.B) {
	dir := b.TempDir()
	md := []byte(strings.Repeat("a line of a bottle, about sixty bytes long, give or take.\n", 1700))
	for b.Loop() {
		if _, err := bottles.Write(dir, "bench", md); err != nil {
			b.Fatal(err)
		}
	}
}

// benchBottleTranscript is the transcript of BenchmarkRenderBottle and
// BenchmarkMarkdown: $BOTTLE_BENCH_TRANSCRIPT, else a 400 MB synthetic one
// (scripts/gentranscript's default seed) generated in dir.
func benchBottleTranscript(b *testing.B, dir string) string {
	if p := os.Getenv("BOTTLE_BENCH_TRANSCRIPT"); p != "" {
		return p
	}
	path := filepath.Join(dir, "gen.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gentranscript.Write(f, gentranscript.Config{Bytes: 400 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkRenderBottle renders a whole bottle of a large transcript the
// way hookbin render does (no database), with the default budget and with
// none (--budget 0), the markdown written in two halves at once and on
// one goroutine.
//
//	go test ./render -run '^$' -bench RenderBottle -benchtime 1x -count 10
func BenchmarkRenderBottle(b *testing.B) {
	path := benchBottleTranscript(b, b.TempDir())
	for _, budget := range []struct {
		name     string
		noBudget bool
	}{{"default", false}, {"0", true}} {
		for _, par := range []bool{true, false} {
			b.Run(fmt.Sprintf("budget=%s/par=%s", budget.name, onOff(par)), func(b *testing.B) {
				o := Options{TranscriptPath: path, NoBudget: budget.noBudget, Now: time.Unix(0, 0), Location: time.UTC, serialMarkdown: !par}
				for b.Loop() {
					if _, err := Render(context.Background(), o); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkMarkdown is the markdown step alone: the whole bottle of
// BenchmarkRenderBottle's transcript, nothing folded.
func BenchmarkMarkdown(b *testing.B) {
	tr, err := transcript.Read(context.Background(), benchBottleTranscript(b, b.TempDir()), nil)
	if err != nil {
		b.Fatal(err)
	}
	bt := fromTranscript(tr)
	for _, par := range []bool{true, false} {
		b.Run("par="+onOff(par), func(b *testing.B) {
			for b.Loop() {
				b.SetBytes(int64(len(writeMarkdown(bt, time.UTC, !par))))
			}
		})
	}
}

func onOff(v bool) string {
	if v {
		return "on"
	}
	return "off"
}
