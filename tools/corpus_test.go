package tools

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"bottle/internal/measure/corpustest"
)

func copyFile(tb testing.TB, src, dst string) {
	tb.Helper()
	if err := corpustest.CopyFile(src, dst); err != nil {
		tb.Fatal(err)
	}
}

var obsTag = regexp.MustCompile(`\[#([0-9]+)\]`)

// TestCorpus renders every corpus transcript (with the corpus claude-mem
// database) through render_bottle, pages it whole with read_bottle, and
// expands the observations it names.
func TestCorpus(t *testing.T) {
	dir := corpustest.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "transcripts", "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus transcripts: %v", err)
	}
	f := newFixture(t)
	os.MkdirAll(f.deps.Env.DataDir(), 0o700)
	db := filepath.Join(dir, "claude-mem", "corpus.db")
	copyFile(t, db, f.deps.Env.DBPath())
	if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 0 {
		copyFile(t, db+"-wal", f.deps.Env.DBPath()+"-wal")
	}
	c := newClient(t, f.deps)

	expanded := 0
	for _, src := range files {
		id := strings.TrimSuffix(filepath.Base(src), ".jsonl")
		t.Run(id, func(t *testing.T) {
			dst := filepath.Join(f.projDir, id+".jsonl")
			copyFile(t, src, dst)
			old := fixedNow.Add(-time.Hour)
			os.Chtimes(dst, old, old)
			got := wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": id}))
			wantContains(t, got, "mode: full", "path: "+f.bottlePath(id))
			want, err := os.ReadFile(f.bottlePath(id))
			if err != nil {
				t.Fatal(err)
			}
			pages := readAll(t, c, id, DefaultPageChars)
			if strings.Join(pages, "") != string(want) {
				t.Fatalf("%d pages do not join to the %d-byte bottle", len(pages), len(want))
			}
			for i, p := range pages {
				if n := utf8.RuneCountInString(p); n > DefaultPageChars {
					t.Errorf("page %d has %d characters", i, n)
				}
			}
			var ids []any
			for _, m := range obsTag.FindAllStringSubmatch(string(want), 5) {
				ids = append(ids, m[1])
			}
			if len(ids) == 0 {
				return
			}
			exp := wantOK(t, call(t, c, "expand_observation", map[string]any{"ids": ids, "session_id": id}))
			if strings.Contains(exp, "not an observation of session") || strings.Contains(exp, "no such observation") {
				t.Errorf("ids shown in the bottle do not expand:\n%s", exp)
			}
			if strings.Contains(strings.ToLower(exp), "<private>") {
				t.Errorf("expanded records hold a private tag")
			}
			expanded += strings.Count(exp, "\n## #") + 1
		})
	}
	if expanded == 0 {
		t.Error("no bottle of the corpus named an observation to expand")
	}
	t.Logf("%d transcripts, %d observations expanded", len(files), expanded)
}

// TestCorpusReconstructed renders the corpus sessions that have no
// transcript from the database alone.
func TestCorpusReconstructed(t *testing.T) {
	dir := corpustest.Dir(t)
	mf, err := os.Open(filepath.Join(dir, "claude-mem", "manifest.jsonl"))
	if err != nil {
		t.Skip(err)
	}
	defer mf.Close()
	f := newFixture(t)
	os.MkdirAll(f.deps.Env.DataDir(), 0o700)
	copyFile(t, filepath.Join(dir, "claude-mem", "corpus.db"), f.deps.Env.DBPath())
	c := newClient(t, f.deps)
	sc := bufio.NewScanner(mf)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var e struct {
			DB           string `json:"db"`
			ID           string `json:"content_session_id"`
			Kind         string `json:"kind"`
			Prompts      int    `json:"user_prompts"`
			Observations int    `json:"observations"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || !strings.HasSuffix(e.DB, "/corpus.db") || e.Kind != "no-transcript" {
			continue
		}
		n++
		t.Run(e.ID, func(t *testing.T) {
			res := call(t, c, "render_bottle", map[string]any{"session_id": e.ID})
			if e.Prompts == 0 && e.Observations == 0 {
				wantError(t, res, "Nothing to render")
				return
			}
			wantContains(t, wantOK(t, res), "mode: reconstructed")
			wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": e.ID}))
		})
	}
	if n == 0 {
		t.Skip("no transcript-less sessions in the manifest")
	}
}
