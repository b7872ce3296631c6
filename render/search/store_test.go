package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"bottle/internal/corpustest"
	"bottle/internal/gentranscript"
	"bottle/render/claudemem"
)

// corpusSources are the corpus's transcripts and, with db, the sessions
// claude-mem alone holds.
func corpusSources(t testing.TB, db *claudemem.DB) []Source {
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "transcripts", "*", "*.jsonl"))
	var srcs []Source
	have := map[string]bool{}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		srcs = append(srcs, Source{ID: id, Transcript: f})
		have[id] = true
	}
	if db != nil {
		list, err := db.Sessions(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			if !have[s.ContentSessionID] {
				srcs = append(srcs, Source{ID: s.ContentSessionID})
			}
		}
	}
	return srcs
}

// genSources writes n synthetic transcripts of about size bytes each into
// dir (seeds 1..n) and returns them.
func genSources(t testing.TB, dir string, n int, size int64) []Source {
	var srcs []Source
	for i := range n {
		id := fmt.Sprintf("9999%04d-0000-4000-8000-%012d", i, i)
		p := filepath.Join(dir, id+".jsonl")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gentranscript.Write(f, gentranscript.Config{Bytes: size, Seed: uint64(i + 1), SessionID: id}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		srcs = append(srcs, Source{ID: id, Transcript: p})
	}
	return srcs
}

// allRecords are the records of srcs, as the scan builds them.
func allRecords(t testing.TB, srcs []Source, db *claudemem.DB) []Record {
	var recs []Record
	for _, s := range srcs {
		if s.Transcript != "" {
			if _, err := transcriptRecords(context.Background(), s.Transcript, s.ID, func(r Record) { recs = append(recs, r) }); err != nil {
				t.Fatal(err)
			}
		}
		if db != nil {
			rs, _, err := readStored(context.Background(), db, s)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, rs...)
		}
	}
	return recs
}

// genQueries makes n queries from the records' text: whole words, short
// and long substrings (inside words, across punctuation and spaces),
// phrases, exclusions, upper-cased and Unicode ones, words that occur
// nowhere, and the given extra ones (private words).
func genQueries(recs []Record, n int, seed uint64, extra ...string) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	var unicodeRecs []int
	for i, rec := range recs {
		if len(unicodeRecs) < 2000 && strings.IndexFunc(rec.Text, func(c rune) bool { return c > 127 }) >= 0 {
			unicodeRecs = append(unicodeRecs, i)
		}
	}
	pick := func() string {
		i := r.IntN(len(recs))
		if len(unicodeRecs) > 0 && r.IntN(5) == 0 {
			i = unicodeRecs[r.IntN(len(unicodeRecs))]
		}
		return recs[i].Text
	}
	sub := func(text string, runes int) string {
		rs := []rune(text)
		if len(rs) == 0 {
			return "x"
		}
		start := r.IntN(len(rs))
		end := min(start+runes, len(rs))
		return string(rs[start:end])
	}
	word := func(text string) string {
		ws := strings.FieldsFunc(text, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsNumber(c) })
		if len(ws) == 0 {
			return sub(text, 4)
		}
		return ws[r.IntN(len(ws))]
	}
	quote := func(s string) string {
		s = strings.ReplaceAll(s, `"`, "")
		if strings.TrimSpace(s) == "" {
			return "zq"
		}
		return `"` + s + `"`
	}
	qs := append([]string(nil), extra...)
	for len(qs) < n {
		var q string
		switch r.IntN(12) {
		case 0:
			q = word(pick())
		case 1:
			q = strings.ToUpper(word(pick()))
		case 2:
			q = quote(sub(pick(), 1+r.IntN(2))) // one or two characters: the index cannot narrow
		case 3:
			q = quote(sub(pick(), 3+r.IntN(10))) // inside words, punctuation, spaces
		case 4:
			t := pick()
			q = word(t) + " " + word(t)
		case 5:
			q = word(pick()) + " -" + word(pick())
		case 6:
			q = word(pick()) + " -" + quote(sub(pick(), 2))
		case 7:
			q = quote(sub(pick(), 20+r.IntN(30)))
		case 8:
			q = "xyzzy" + fmt.Sprint(r.IntN(1000))
		case 9:
			q = sub(word(pick()), 3) // a word's inside: "test" finds "tests"
		case 10:
			q = strings.Join([]string{word(pick()), word(pick()), word(pick())}, " ")
		case 11:
			q = quote(sub(pick(), 4)) + " " + word(pick())[:1]
		}
		if _, err := Parse(q); err == nil {
			qs = append(qs, q)
		}
	}
	return qs
}

// sameResult fails t when the store's result differs from the scan's.
func sameResult(t *testing.T, what string, got, want *Result) bool {
	t.Helper()
	if got.Total != want.Total || got.Records != want.Records || got.Sessions != want.Sessions || !slices.Equal(got.Notes, want.Notes) {
		t.Errorf("%s: store total %d records %d sessions %d notes %q; scan %d %d %d %q", what,
			got.Total, got.Records, got.Sessions, got.Notes, want.Total, want.Records, want.Sessions, want.Notes)
		return false
	}
	if len(got.Hits) != len(want.Hits) {
		t.Errorf("%s: store %d hits, scan %d", what, len(got.Hits), len(want.Hits))
		return false
	}
	for i := range got.Hits {
		g, w := got.Hits[i], want.Hits[i]
		if g.Session != w.Session || g.ID != w.ID || g.Kind != w.Kind || g.Label != w.Label || !g.Time.Equal(w.Time) ||
			g.Time.Format(time.RFC3339Nano) != w.Time.Format(time.RFC3339Nano) || g.Snippet != w.Snippet || g.Score != w.Score || g.seq != w.seq {
			t.Errorf("%s: hit %d: store %+v\nscan %+v", what, i, g, w)
			return false
		}
	}
	return true
}

// queryOptions are the filters and pages each query runs with.
func queryOptions(r *rand.Rand, paths []string) (kinds []Kind, file string, limit, offset int) {
	switch r.IntN(6) {
	case 0:
		kinds = []Kind{KindTool}
	case 1:
		kinds = []Kind{KindPrompt, KindObservation}
	case 2:
		if len(paths) > 0 {
			file = paths[r.IntN(len(paths))]
			if r.IntN(2) == 0 {
				file = filepath.Base(file)
			}
		}
	}
	switch r.IntN(3) {
	case 0:
		limit, offset = MaxLimit, 0
	case 1:
		limit, offset = 5, r.IntN(8)
	}
	return kinds, file, limit, offset
}

// differential runs every query through the scan (warm, from an in-memory
// index) and the store, with random filters and pages, and compares.
func differential(t *testing.T, st *Store, srcs []Source, db *claudemem.DB, dbPath string, queries []string, paths []string) {
	t.Helper()
	ctx := context.Background()
	ix := &Index{MaxBytes: 1 << 30}
	r := rand.New(rand.NewPCG(3, 4))
	failed, hit := 0, 0
	defer func() { t.Logf("%d queries, %d with hits", len(queries), hit) }()
	for _, qs := range queries {
		q, err := Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		kinds, file, limit, offset := queryOptions(r, paths)
		o := Options{Query: q, Sources: srcs, DB: db, DBPath: dbPath, Kinds: kinds, File: file, Limit: limit, Offset: offset}
		want, err := Search(ctx, ix, o)
		if err != nil {
			t.Fatal(err)
		}
		if want.Total > 0 {
			hit++
		}
		o.Store = st
		got, err := st.search(ctx, o)
		if err != nil {
			t.Fatalf("store search %q: %v", qs, err)
		}
		if !sameResult(t, fmt.Sprintf("query %q kinds %v file %q limit %d offset %d", qs, kinds, file, limit, offset), got, want) {
			if failed++; failed > 5 {
				t.Fatal("too many differences")
			}
		}
	}
}

func toolPaths(recs []Record) []string {
	var paths []string
	for _, r := range recs {
		if len(paths) < 500 {
			paths = append(paths, r.Paths...)
		}
	}
	return paths
}

// TestStoreDifferential: over the corpus (its transcripts and a copy of
// its claude-mem database), the store answers hundreds of generated
// queries (words, substrings inside words, phrases, exclusions,
// punctuation, Unicode, private words, one- and two-character terms) with
// exactly the scan's hits in the scan's order, totals, snippets and
// scores, with kinds, file filters and pages.
func TestStoreDifferential(t *testing.T) {
	dbPath := corpustest.CopyDB(t, "corpus.db")
	db, err := claudemem.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srcs := corpusSources(t, db)
	recs := allRecords(t, srcs, db)
	n := 300
	if raceEnabled || testing.Short() {
		n = 60
	}
	queries := genQueries(recs, n, 1, "SECRET-d6e0bada", "correct-horse-battery-staple", `"do not store"`, "test", "the", "go test",
		`"fmt.Errorf("`, "naïve café", "✓", "ÉTAT", "a", "-", `"\n"`, `"--"`, "x -x")
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	differential(t, st, srcs, db, dbPath, queries, toolPaths(recs))
}

// TestStoreDifferentialGenerated: the same over generated transcripts.
func TestStoreDifferentialGenerated(t *testing.T) {
	srcs := genSources(t, t.TempDir(), 6, 1<<20)
	recs := allRecords(t, srcs, nil)
	n := 200
	if raceEnabled || testing.Short() {
		n = 40
	}
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	differential(t, st, srcs, nil, "", genQueries(recs, n, 2, "naïve café ✓", "→", "checkpoint", "\"if err != nil {\""), toolPaths(recs))
}

var _ = utf8.RuneLen
