package search

import (
	"bytes"
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

	"bottle/claudemem"
	"bottle/internal/measure/corpustest"
	"bottle/internal/measure/gentranscript"
	"bottle/internal/racemode"
	"bottle/locate"
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
			if _, err := transcriptRecords(context.Background(), s.reader(), s.Transcript, s.ID, nil, func(r Record) { recs = append(recs, r) }); err != nil {
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
		// Words' records counted from the postings, or found by trigrams
		// and read when they are few.
		wordConfirm = []int{-1, 1000}[r.IntN(2)]
		got, err := st.search(ctx, o)
		wordConfirm = -1
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
	n := 300
	if racemode.Enabled || testing.Short() {
		// The race detector makes reading the corpus ten times slower:
		// the smaller half of its transcripts and fewer queries.
		n = 60
		var small []Source
		for _, s := range srcs {
			if fi, err := os.Stat(s.Transcript); s.Transcript == "" || err == nil && fi.Size() < 512<<10 {
				small = append(small, s)
			}
		}
		srcs = small
	}
	recs := allRecords(t, srcs, db)
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
	if racemode.Enabled || testing.Short() {
		n = 40
	}
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	differential(t, st, srcs, nil, "", genQueries(recs, n, 2, "naïve café ✓", "→", "checkpoint", "\"if err != nil {\"", "the", "go", "observation index", "token -checkpoint"), toolPaths(recs))
}

// genBytes is a synthetic transcript of about size bytes.
func genBytes(t testing.TB, size int64, seed uint64, id string) []byte {
	var b strings.Builder
	if _, err := gentranscript.Write(&b, gentranscript.Config{Bytes: size, Seed: seed, SessionID: id}); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// checkSame runs queries through the scan (no index) and the store and
// compares; it returns the store's results.
func checkSame(t *testing.T, st *Store, what string, srcs []Source, db *claudemem.DB, dbPath string, queries ...string) {
	t.Helper()
	checkSameWith(t, st, what, Options{Sources: srcs, DB: db, DBPath: dbPath}, queries...)
}

// checkSameWith is checkSame with the sources and rules of base. The scan
// reads each source once for all the queries (an index of its own:
// TestScanOverflow holds it to the scan without one).
func checkSameWith(t *testing.T, st *Store, what string, base Options, queries ...string) {
	t.Helper()
	ix := &Index{}
	for _, qs := range queries {
		q, err := Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		o := base
		o.Query, o.Limit = q, MaxLimit
		want, err := Search(context.Background(), ix, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.search(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: store search %q: %v", what, qs, err)
		}
		sameResult(t, what+": "+qs, got, want)
	}
}

// grow appends to src's transcript, generated with seed at size from, what
// the generator writes after those bytes at size to (its output for a
// larger size starts with the smaller one's bytes).
func grow(t *testing.T, src Source, seed uint64, from, to int64) {
	t.Helper()
	small, big := genBytes(t, from, seed, src.ID), genBytes(t, to, seed, src.ID)
	if !strings.HasPrefix(string(big), string(small)) {
		t.Fatal("the generator's larger transcript does not extend the smaller one")
	}
	f, err := os.OpenFile(src.Transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(big[len(small):]); err != nil {
		t.Fatal(err)
	}
}

// storeRows counts the store's records and sources.
func storeRows(t *testing.T, st *Store) (recs, srcs int) {
	t.Helper()
	r, _, err := st.dbs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.QueryRow("SELECT (SELECT count(*) FROM rec), (SELECT count(*) FROM src)").Scan(&recs, &srcs); err != nil {
		t.Fatal(err)
	}
	return recs, srcs
}

// TestStoreUpkeep: a transcript that grows by a turn, is truncated, is
// replaced by another, or disappears changes the store's answers exactly
// as it changes the scan's; a grown transcript rewrites only the records
// that changed.
func TestStoreUpkeep(t *testing.T) {
	dir := t.TempDir()
	srcs := genSources(t, dir, 3, 330<<10)
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	queries := []string{"checkpoint", "go", `"if err != nil {"`, "naïve -strategy", "xyzzy"}
	checkSame(t, st, "first build", srcs, nil, "", queries...)
	recs0, _ := storeRows(t, st)

	// One more turn.
	grow(t, srcs[0], 1, 330<<10, 500<<10)
	r, _, _ := st.dbs(context.Background())
	key := "t\x00" + srcs[0].ID + "\x00" + srcs[0].Transcript
	var srcID, next int64
	if err := r.QueryRow("SELECT id, nextn FROM src WHERE key = ?", key).Scan(&srcID, &next); err != nil {
		t.Fatal(err)
	}
	watch := watchReads(st)
	checkSame(t, st, "appended", srcs, nil, "", queries...)
	st.onRead = nil
	reads := watch()
	// Read from the start of its last turn: only the lines from there.
	data, err := os.ReadFile(srcs[0].Transcript)
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) != 1 || !reads[0].resumed || reads[0].from <= 0 || reads[0].lines != bytes.Count(data[reads[0].from:], []byte("\n")) {
		t.Errorf("after one appended turn, the reads were %+v; want one from the last read's point, of the lines after it", reads)
	} else {
		t.Logf("one appended turn: read from byte %d of %d, %d lines", reads[0].from, len(data), reads[0].lines)
	}
	recs1, _ := storeRows(t, st)
	var rewritten int
	r.QueryRow("SELECT count(*) FROM rec WHERE src = ? AND id >= ?", srcID, srcID<<srcShift|next<<numShift).Scan(&rewritten)
	t.Logf("one appended turn: %d records before, %d after, %d written", recs0, recs1, rewritten)
	if recs1 <= recs0 || rewritten > recs1-recs0+2 {
		t.Errorf("after one appended turn: %d records (before %d), %d written anew; want only the new ones (and the last reply)", recs1, recs0, rewritten)
	}

	// Numbers run out (at a change): the source is written again under a
	// new id (so that no record id is used twice), the old records gone.
	_, w, _ := st.dbs(context.Background())
	if _, err := w.Exec("UPDATE src SET nextn = ? WHERE key = ?", maxNum-1, key); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(srcs[0].Transcript, genBytes(t, 200<<10, 5, srcs[0].ID), 0o600); err != nil {
		t.Fatal(err)
	}
	checkSame(t, st, "renumbered", srcs, nil, "", queries...)
	var newID int64
	if err := r.QueryRow("SELECT id FROM src WHERE key = ?", key).Scan(&newID); err != nil || newID == srcID {
		t.Errorf("renumbered: source id %d (before %d), %v; want a new one", newID, srcID, err)
	}

	// Truncated to a prefix, then replaced by another session's bytes.
	if err := os.WriteFile(srcs[1].Transcript, genBytes(t, 100<<10, 2, srcs[1].ID), 0o600); err != nil {
		t.Fatal(err)
	}
	checkSame(t, st, "truncated", srcs, nil, "", queries...)
	if err := os.WriteFile(srcs[2].Transcript, genBytes(t, 150<<10, 99, srcs[2].ID), 0o600); err != nil {
		t.Fatal(err)
	}
	checkSame(t, st, "replaced", srcs, nil, "", queries...)
	// Gone: the scan notes it, and so does the store.
	os.Remove(srcs[2].Transcript)
	checkSame(t, st, "removed", srcs, nil, "", queries...)
	// A directory where the transcript was.
	os.Mkdir(srcs[2].Transcript, 0o700)
	checkSame(t, st, "directory", srcs, nil, "", queries...)
}

// TestStoreSetAside: a corrupt file, a foreign database, a directory and
// an older layout where the store should be are set aside (with a log
// line) and rebuilt; deleting the store between searches loses nothing;
// the answers stay the scan's.
func TestStoreSetAside(t *testing.T) {
	srcs := genSources(t, t.TempDir(), 2, 100<<10)
	queries := []string{"checkpoint", `"err != nil"`}
	foreign := func(path string) {
		st := NewStore(path)
		r, w, err := st.open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec("UPDATE meta SET v = 'someone else' WHERE k = 'format'"); err != nil {
			t.Fatal(err)
		}
		r.Close()
		w.Close()
		st.Close()
	}
	// mangle builds a store and then runs query on it.
	mangle := func(query string) func(path string) {
		return func(path string) {
			st := NewStore(path)
			checkSame(t, st, "before mangling", srcs, nil, "", queries...)
			_, w, err := st.dbs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Exec(query); err != nil {
				t.Fatal(err)
			}
			st.Close()
		}
	}
	for name, spoil := range map[string]func(path string){
		"garbage":   func(path string) { os.WriteFile(path, []byte(strings.Repeat("not a database\n", 1000)), 0o600) },
		"directory": func(path string) { os.MkdirAll(filepath.Join(path, "x"), 0o700) },
		"foreign":   foreign,
		"truncated": func(path string) {
			st := NewStore(path)
			checkSame(t, st, "before truncation", srcs, nil, "", queries...)
			st.Close()
			data, _ := os.ReadFile(path)
			os.WriteFile(path, data[:len(data)/3], 0o600)
			os.Remove(path + "-wal")
		},
		// Rows SQLite reads well that the store cannot decode.
		"mangled": mangle("UPDATE gram SET lists = x'ffffffffffffffffffffff'; UPDATE rec SET text = x'07'"),
		// Word rows only: a word's search reads them and no record.
		"mangled words": mangle("UPDATE word SET voc = x'00ffffffffffffffffffff'; UPDATE wpost SET post = x'07'"),
		"deleted": func(path string) {
			st := NewStore(path)
			checkSame(t, st, "before deletion", srcs, nil, "", queries...)
			st.Close()
			os.Remove(path)
			os.Remove(path + "-wal")
			os.Remove(path + "-shm")
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "search", "index.db")
			os.MkdirAll(filepath.Dir(path), 0o700)
			spoil(path)
			st := NewStore(path)
			defer st.Close()
			var logs []string
			st.Log = func(s string) { logs = append(logs, s) }
			for _, qs := range queries {
				got, want := scanAndStore(t, st, qs, srcs)
				sameResult(t, name, got, want)
			}
			// Searched from the store, rebuilt.
			if recs, _ := storeRows(t, st); recs == 0 {
				t.Errorf("%s: the store was not rebuilt", name)
			}
			switch name {
			case "deleted":
				if len(logs) > 0 {
					t.Errorf("a deleted store logged %q", logs)
				}
			case "truncated":
				// SQLite may read a truncated file as a smaller valid one;
				// it either works or is set aside.
			default:
				if len(logs) == 0 || !strings.Contains(logs[0], "set aside") {
					t.Errorf("%s: logs %q, want a line saying the file was set aside", name, logs)
				}
				if _, err := os.Stat(path + ".broken"); err != nil {
					t.Errorf("%s: nothing set aside: %v", name, err)
				}
			}
		})
	}
}

// TestStoreConcurrent: several stores on one file (as several servers and
// CLI searches are) search at once while a transcript grows; none fails,
// and the answers after the last change are the scan's.
func TestStoreConcurrent(t *testing.T) {
	dir := t.TempDir()
	srcs := genSources(t, dir, 4, 150<<10)
	path := filepath.Join(t.TempDir(), "index.db")
	small, big := genBytes(t, 150<<10, 1, srcs[0].ID), genBytes(t, 400<<10, 1, srcs[0].ID)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, _ := os.OpenFile(srcs[0].Transcript, os.O_APPEND|os.O_WRONLY, 0)
		defer f.Close()
		rest := big[len(small):]
		for len(rest) > 0 {
			n := min(len(rest), 20<<10)
			f.Write(rest[:n])
			rest = rest[n:]
			time.Sleep(5 * time.Millisecond)
		}
	}()
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			st := NewStore(path)
			defer st.Close()
			st.Log = func(s string) { errs <- fmt.Errorf("store %d logged %s", i, s) }
			for _, qs := range []string{"checkpoint", "go test", "xyzzy", "strategy"} {
				q, _ := Parse(qs)
				if _, err := st.search(context.Background(), Options{Query: q, Sources: srcs}); err != nil {
					errs <- fmt.Errorf("store %d: %q: %w", i, qs, err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	<-done
	st := NewStore(path)
	defer st.Close()
	checkSame(t, st, "after concurrent searches", srcs, nil, "", "checkpoint", "go")
}

// TestStoreCatalogue: a listing through the store's catalogue equals one
// without it, before and after a transcript changes, and the second
// listing takes every unchanged transcript from the catalogue.
func TestStoreCatalogue(t *testing.T) {
	home := t.TempDir()
	env := locate.Env{Home: home, Getenv: func(k string) string {
		return map[string]string{"CLAUDE_CONFIG_DIR": home + "/.claude", "CLAUDE_MEM_DATA_DIR": home + "/mem"}[k]
	}}
	dir := filepath.Join(env.ProjectsDir(), "-p")
	os.MkdirAll(dir, 0o700)
	srcs := genSources(t, dir, 3, 100<<10)
	st := NewStore(env.SearchIndexPath())
	defer st.Close()
	ctx := context.Background()
	list := func() []locate.Listing {
		t.Helper()
		want, _, err := locate.List(ctx, env, "", "")
		if err != nil {
			t.Fatal(err)
		}
		c := st.Catalogue(ctx)
		got, _, err := locate.ListWith(ctx, env, "", "", c)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Save(ctx); err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, func(a, b locate.Listing) bool {
			return a.ID == b.ID && a.FirstPrompt == b.FirstPrompt && a.LastActivity.Equal(b.LastActivity) && a.TranscriptBytes == b.TranscriptBytes &&
				a.Cwd == b.Cwd && a.Empty == b.Empty
		}) {
			t.Fatalf("with the catalogue %+v\nwithout %+v", got, want)
		}
		return got
	}
	list()
	c := st.Catalogue(ctx)
	for _, s := range srcs {
		fi, _ := os.Stat(s.Transcript)
		if _, ok := c.Lookup(s.Transcript, fi.Size(), fi.ModTime()); !ok {
			t.Errorf("%s not in the catalogue after a listing", s.ID)
		}
	}
	if err := os.WriteFile(srcs[1].Transcript, genBytes(t, 50<<10, 42, srcs[1].ID), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(srcs[1].Transcript)
	if _, ok := st.Catalogue(ctx).Lookup(srcs[1].Transcript, fi.Size(), fi.ModTime()); ok {
		t.Error("a rewritten transcript is still in the catalogue")
	}
	list()
}

// TestStoreBackground: a server's store asked for more than BuildBytes of
// transcripts it does not have answers by scanning (the same hits) and
// builds in the background; once built it answers itself.
func TestStoreBackground(t *testing.T) {
	srcs := genSources(t, t.TempDir(), 3, 100<<10)
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	st.Background, st.BuildBytes = true, 1<<10
	logs := make(chan string, 10)
	st.Log = func(s string) { logs <- s }
	got, want := scanAndStore(t, st, "checkpoint", srcs)
	sameResult(t, "during the background build", got, want)
	if l := <-logs; !strings.Contains(l, "in the background") {
		t.Fatalf("log %q", l)
	}
	if l := <-logs; !strings.Contains(l, "built in the background") {
		t.Fatalf("log %q", l)
	}
	q, _ := Parse("checkpoint")
	got, err := st.search(context.Background(), Options{Query: q, Sources: srcs, Limit: MaxLimit, Store: st})
	if err != nil {
		t.Fatalf("after the background build: %v", err)
	}
	sameResult(t, "after the background build", got, want)
}

// scanAndStore is Search of qs over srcs through st (which scans when it
// cannot answer) and without it.
func scanAndStore(t *testing.T, st *Store, qs string, srcs []Source) (got, want *Result) {
	t.Helper()
	q, err := Parse(qs)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Query: q, Sources: srcs, Limit: MaxLimit}
	if want, err = Search(context.Background(), nil, o); err != nil {
		t.Fatal(err)
	}
	o.Store = st
	if got, err = Search(context.Background(), nil, o); err != nil {
		t.Fatalf("search through the store: %v", err)
	}
	return got, want
}

// TestStoreMergesSegments: a transcript that grows a little before each
// of many searches leaves a few trigram segments, not one per search, and
// the answers stay the scan's.
func TestStoreMergesSegments(t *testing.T) {
	if racemode.Enabled {
		// One store, one goroutine, many small updates: nothing the
		// detector looks at; .ci/run runs it without it.
		t.Skip("sequential updates, run without the race detector")
	}
	dir := t.TempDir()
	srcs := genSources(t, dir, 2, 100<<10)
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	queries := []string{"zqxw", "checkpoint", "glob", `"if err != nil {"`}
	checkSame(t, st, "first build", srcs, nil, "", queries...)
	full := genBytes(t, 400<<10, 1, srcs[0].ID)
	written := len(genBytes(t, 100<<10, 1, srcs[0].ID))
	r, _, _ := st.dbs(context.Background())
	for k := 0; k < 3*tailSegs; k++ {
		// Two more lines.
		end := written
		for range 2 {
			if i := strings.IndexByte(string(full[end:]), '\n'); i >= 0 {
				end += i + 1
			}
		}
		f, err := os.OpenFile(srcs[0].Transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		// A word only the appended records hold, for a search the
		// trigram index narrows.
		f.Write([]byte(strings.ReplaceAll(string(full[written:end]), "the ", "zqxw ")))
		f.Close()
		written = end
		checkSame(t, st, fmt.Sprintf("append %d", k), srcs, nil, "", queries[k%len(queries)])
		if testing.Verbose() {
			n, _ := storeRows(t, st)
			var sg int
			r.QueryRow("SELECT count(*) FROM seg").Scan(&sg)
			t.Logf("append %d: %d bytes, %d records, %d segments", k, written, n, sg)
		}
	}
	var segs int
	if err := r.QueryRow("SELECT count(*) FROM seg").Scan(&segs); err != nil {
		t.Fatal(err)
	}
	if segs >= tailSegs+2 {
		t.Errorf("%d segments after %d small updates, want fewer than %d", segs, 3*tailSegs, tailSegs+2)
	}
	checkSame(t, st, "after merging", srcs, nil, "", queries...)
}

// TestStorePromptCounts: the turn counts a listing takes from the store
// are the transcripts' own, and none for a transcript changed since it was
// indexed.
func TestStorePromptCounts(t *testing.T) {
	srcs := genSources(t, t.TempDir(), 3, 100<<10)
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()
	ctx := context.Background()
	if got := st.PromptCounts(ctx); got != nil {
		if _, ok := got(srcs[0].ID, srcs[0].Transcript, 0, time.Time{}); ok {
			t.Error("an empty store gave a turn count")
		}
	}
	checkSame(t, st, "build", srcs, nil, "", "checkpoint")
	os.WriteFile(srcs[2].Transcript, genBytes(t, 50<<10, 7, srcs[2].ID), 0o600)
	counts := st.PromptCounts(ctx)
	if counts == nil {
		t.Fatal("no turn counts from a built store")
	}
	for i, src := range srcs {
		want, err := (*Index)(nil).Prompts(ctx, src.Transcript)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(src.Transcript)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := counts(src.ID, src.Transcript, fi.Size(), fi.ModTime())
		switch {
		case i == 2 && ok:
			t.Errorf("a changed transcript's turn count came from the store: %d", got)
		case i < 2 && (!ok || got != want):
			t.Errorf("session %d: turn count %d, %v; want %d", i, got, ok, want)
		}
		if n, ok := st.PromptsNow(ctx, src.ID, src.Transcript); ok != (i < 2) || ok && n != want {
			t.Errorf("session %d: PromptsNow %d, %v; want %d", i, n, ok, want)
		}
	}
}

// The tests' stores are small: narrow them with the trigram index all the
// same, as a large history's are.
// The tests narrow their small stores with the index, count words from
// the postings unless a test says otherwise, and cut postings in many
// chunks.
func init() { scanRecords, wordConfirm, chunkBytes = 0, -1, 256 }
