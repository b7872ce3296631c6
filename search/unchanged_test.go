package search

import (
	"context"
	"path/filepath"
	"testing"

	"bottle/claudemem"
	"bottle/claudemem/memtest"
)

const unchangedSID = "99990000-0000-4000-8000-000000000000"

// TestStoreUnchanged: a search whose sources (a transcript and claude-mem's
// records of its session) are as the store read them writes nothing: the
// store's generation stays, and so other processes' caches of it. A
// changed database is read again, and the new observation found.
func TestStoreUnchanged(t *testing.T) {
	dir := t.TempDir()
	srcs := genSources(t, dir, 1, 40<<10)
	srcs[0].ID = unchangedSID
	dbPath := memtest.Create(t, filepath.Join(dir, "claude-mem.db"), memtest.SchemaCurrent, `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, started_at, started_at_epoch, status) VALUES
 (1, '`+unchangedSID+`', 'mem-1', 'proj', 'claude', 'x', 1767607260000, 'completed');
INSERT INTO observations (id, memory_session_id, project, type, title, narrative, prompt_number, created_at, created_at_epoch, content_hash) VALUES
 (4242, 'mem-1', 'proj', 'discovery', 'Listed the quokka files', 'quokka', 1, 'x', 1767607380000, 'h1');`, "wal")
	ctx := context.Background()
	st := NewStore(filepath.Join(dir, "index.db"))
	defer st.Close()
	search := func(what, query string) (*Result, int64) {
		t.Helper()
		db, err := claudemem.Open(ctx, dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		q, _ := Parse(query)
		res, err := st.search(ctx, Options{Query: q, Sources: srcs, DB: db, DBPath: dbPath})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		r, _, _ := st.dbs(ctx)
		gen, err := readGen(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return res, gen
	}
	_, gen1 := search("first", "quokka")
	res, gen2 := search("again", "quokka")
	if gen2 != gen1 {
		t.Errorf("a search of unchanged sources moved the store from generation %d to %d; want no write", gen1, gen2)
	}
	if res.Total != 1 {
		t.Errorf("again: %d hits, want the observation", res.Total)
	}

	w := memtest.Writer(t, dbPath)
	if _, err := w.Exec(`INSERT INTO observations (id, memory_session_id, project, type, title, narrative, prompt_number, created_at, created_at_epoch, content_hash) VALUES
 (4243, 'mem-1', 'proj', 'discovery', 'Another quokka', 'more', 1, 'x', 1767607390000, 'h2')`); err != nil {
		t.Fatal(err)
	}
	res, gen3 := search("after a new observation", "quokka")
	if gen3 == gen2 || res.Total != 2 {
		t.Errorf("after a new observation: generation %d (before %d), %d hits; want a write and both observations", gen3, gen2, res.Total)
	}
}
