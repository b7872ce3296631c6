package search

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"maps"
)

// srcCache is what the store holds of its sources, as of one generation of
// the store: every source's row (its stamp, by key) and its records'
// count and length per kind. A search checks its scope against it without
// a query per source; a server keeps it between searches.
//
// Every transaction that writes sources bumps the generation (the meta
// row "gen"), so a cache is current exactly when the store's generation
// is its own: another process's write makes the next search load it
// again, and the process's own writes carry it forward.
type srcCache struct {
	gen  int64
	rows map[string]srcRow
	agg  map[int64]*kindAgg // by source id
}

// kindAgg is a source's records' count and folded length, by kind code.
type kindAgg [8]struct{ n, sum int64 }

// readGen is the store's generation as q sees it (0 before the first
// write).
func readGen(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var gen int64
	err := q.QueryRowContext(ctx, "SELECT CAST(v AS INTEGER) FROM meta WHERE k = 'gen'").Scan(&gen)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return gen, err
}

// bumpGen moves the store to its next generation in tx, and returns it.
func bumpGen(ctx context.Context, tx *sql.Tx) (int64, error) {
	var gen int64
	err := tx.QueryRowContext(ctx, "INSERT INTO meta(k, v) VALUES('gen', 1) ON CONFLICT(k) DO UPDATE SET v = CAST(v AS INTEGER) + 1 RETURNING CAST(v AS INTEGER)").Scan(&gen)
	return gen, err
}

// sources is the store's cache of its sources at its current generation,
// loaded when the one kept is older (one read transaction: the rows and
// their counts agree).
func (s *Store) sources(ctx context.Context, r, w *sql.DB) (*srcCache, error) {
	tx, err := r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	gen, err := readGen(ctx, tx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	c := s.cache
	s.mu.Unlock()
	if c != nil && c.gen == gen {
		return c, nil
	}
	if gen == 0 {
		// A store no write of this version touched cannot tell its
		// changes yet: it gets a generation first (once), under the
		// write lock, or is read as it is (another writer holds it).
		if c, err := s.adopt(ctx, w); err == nil {
			return c, nil
		}
	}
	c, err = loadSources(ctx, tx, gen)
	if err != nil {
		return nil, err
	}
	s.keep(c)
	return c, nil
}

// adopt gives a store without a generation its first one, and loads the
// cache in the same transaction.
func (s *Store) adopt(ctx context.Context, w *sql.DB) (*srcCache, error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	gen, err := bumpGen(ctx, tx)
	if err != nil {
		return nil, err
	}
	c, err := loadSources(ctx, tx, gen)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	s.keep(c)
	return c, nil
}

// keep makes c the store's cache unless it holds a newer one. Generation
// 0 is a store no write of this version touched: nothing is kept.
func (s *Store) keep(c *srcCache) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.gen > 0 && (s.cache == nil || s.cache.gen < c.gen) {
		s.cache = c
	}
}

// loadSources reads the store's sources and their counts in tx, at
// generation gen.
func loadSources(ctx context.Context, tx *sql.Tx, gen int64) (*srcCache, error) {
	c := &srcCache{gen: gen, rows: map[string]srcRow{}, agg: map[int64]*kindAgg{}}
	q, err := tx.QueryContext(ctx, "SELECT id, key, size, mtime, fp, prompts FROM src")
	if err != nil {
		return nil, err
	}
	for q.Next() {
		var row srcRow
		var key string
		if err := q.Scan(&row.id, &key, &row.size, &row.mtime, &row.fp, &row.prompts); err != nil {
			q.Close()
			return nil, err
		}
		c.rows[key] = row
	}
	q.Close()
	if err := q.Err(); err != nil {
		return nil, err
	}
	if err := scanAggs(tx.QueryContext(ctx, "SELECT src, kind, n, sum FROM agg")).into(c.agg); err != nil {
		return nil, err
	}
	return c, nil
}

// aggRows are agg rows being read.
type aggRows struct {
	rows *sql.Rows
	err  error
}

func scanAggs(rows *sql.Rows, err error) aggRows { return aggRows{rows, err} }

// into adds the rows to m.
func (a aggRows) into(m map[int64]*kindAgg) error {
	if a.err != nil {
		return a.err
	}
	defer a.rows.Close()
	for a.rows.Next() {
		var src, kind, n, sum int64
		if err := a.rows.Scan(&src, &kind, &n, &sum); err != nil {
			return err
		}
		g := m[src]
		if g == nil {
			g = &kindAgg{}
			m[src] = g
		}
		g[kind&7].n, g[kind&7].sum = n, sum
	}
	return a.rows.Err()
}

// writtenAggs reads, in the transaction that wrote them, the counts of
// the sources written.
func writtenAggs(ctx context.Context, tx *sql.Tx, written []*job) (map[int64]*kindAgg, error) {
	ids := make([]int64, len(written))
	for i, j := range written {
		ids[i] = j.id
	}
	idJSON, _ := json.Marshal(ids)
	m := map[int64]*kindAgg{}
	for _, id := range ids {
		m[id] = &kindAgg{} // a source without records has no agg rows
	}
	err := scanAggs(tx.QueryContext(ctx, "SELECT src, kind, n, sum FROM agg WHERE src IN (SELECT value FROM json_each(?))", string(idJSON))).into(m)
	return m, err
}

// committed carries the cache forward over a transaction of this process
// that moved the store to generation gen, writing the sources in rows
// (by key) with the counts in aggs; when another process wrote in
// between, the cache is dropped (the next search loads it again).
func (s *Store) committed(gen int64, rows map[string]srcRow, aggs map[int64]*kindAgg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cache
	if c == nil || gen != c.gen+1 {
		s.cache = nil
		return
	}
	next := &srcCache{gen: gen, rows: maps.Clone(c.rows), agg: maps.Clone(c.agg)}
	for key, row := range rows {
		if old, ok := next.rows[key]; ok && old.id != row.id {
			delete(next.agg, old.id)
		}
		next.rows[key] = row
		next.agg[row.id] = aggs[row.id]
	}
	s.cache = next
}

// scopeCounts are the number and total folded length of the records of
// the sources (by id) of the kinds codes, from the cache.
func (c *srcCache) scopeCounts(srcs []int64, codes []int64) (n, sum int) {
	for _, id := range srcs {
		g := c.agg[id]
		if g == nil {
			continue
		}
		for _, k := range codes {
			n += int(g[k&7].n)
			sum += int(g[k&7].sum)
		}
	}
	return n, sum
}
