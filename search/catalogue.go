package search

import (
	"context"
	"os"
	"time"

	"bottle/locate"
)

// Catalogue is the store's catalogue of transcripts for session listings
// (see locate.Catalogue): loaded whole by [Store.Catalogue], extended by
// Remember and written back by Save.
type Catalogue struct {
	s     *Store
	known map[string]catEntry
	added map[string]catEntry
}

type catEntry struct {
	size, mtime int64
	head        locate.Head
}

// The flags column of the catalogue.
const (
	catEmpty = 1 << iota
	catNotTranscript
)

// Catalogue loads the store's catalogue; when the store cannot be used it
// is empty and Save does nothing.
func (s *Store) Catalogue(ctx context.Context) *Catalogue {
	c := &Catalogue{s: s, known: map[string]catEntry{}, added: map[string]catEntry{}}
	if s == nil {
		return c
	}
	r, _, err := s.dbs(ctx)
	if err != nil {
		c.s = nil
		return c
	}
	rows, err := r.QueryContext(ctx, "SELECT path, size, mtime, first, cwd, flags, lsec, lnsec, ltz FROM cat")
	if err != nil {
		return c
	}
	defer rows.Close()
	for rows.Next() {
		var path, tz string
		var e catEntry
		var sec, flags int64
		var nsec int
		if rows.Scan(&path, &e.size, &e.mtime, &e.head.FirstPrompt, &e.head.Cwd, &flags, &sec, &nsec, &tz) == nil {
			e.head.Last = partsTime(sec, nsec, tz)
			e.head.Empty = flags&catEmpty != 0
			e.head.NotTranscript = flags&catNotTranscript != 0
			c.known[path] = e
		}
	}
	return c
}

// Lookup is what the catalogue holds of the transcript at path, if it
// was read at this size and modification time.
func (c *Catalogue) Lookup(path string, size int64, mtime time.Time) (locate.Head, bool) {
	e, ok := c.known[path]
	if !ok || e.size != size || e.mtime != mtime.UnixNano() {
		return locate.Head{}, false
	}
	return e.head, true
}

// Remember notes what a listing read of the transcript at path.
func (c *Catalogue) Remember(path string, size int64, mtime time.Time, h locate.Head) {
	c.added[path] = catEntry{size: size, mtime: mtime.UnixNano(), head: h}
}

// Save writes what was remembered, in one transaction; a store busy with
// another writer is left as it is (the next listing reads those
// transcripts again).
func (c *Catalogue) Save(ctx context.Context) error {
	if c.s == nil || len(c.added) == 0 {
		return nil
	}
	_, w, err := c.s.dbs(ctx)
	if err != nil {
		return err
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, "INSERT OR REPLACE INTO cat(path, size, mtime, first, cwd, flags, lsec, lnsec, ltz) VALUES(?,?,?,?,?,?,?,?,?)")
	if err != nil {
		return err
	}
	for path, e := range c.added {
		sec, nsec, tz := timeParts(e.head.Last)
		var flags int64
		if e.head.Empty {
			flags |= catEmpty
		}
		if e.head.NotTranscript {
			flags |= catNotTranscript
		}
		if _, err := st.ExecContext(ctx, path, e.size, e.mtime, e.head.FirstPrompt, e.head.Cwd, flags, sec, nsec, tz); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	clear(c.added)
	return nil
}

// PromptCounts reads the turn counts of every transcript the store holds
// in one query, for a listing of many sessions: the lookup it returns is
// Prompts without a query per session, given the stamp the listing read
// (nil when the store cannot be used).
func (s *Store) PromptCounts(ctx context.Context) func(id, path string, size int64, mtime time.Time) (int, bool) {
	if s == nil {
		return nil
	}
	r, _, err := s.dbs(ctx)
	if err != nil {
		return nil
	}
	rows, err := r.QueryContext(ctx, "SELECT key, prompts, size, mtime FROM src WHERE key >= 't' AND key < 'u'")
	if err != nil {
		return nil
	}
	defer rows.Close()
	type count struct{ n, size, mtime int64 }
	counts := map[string]count{}
	for rows.Next() {
		var key string
		var c count
		if rows.Scan(&key, &c.n, &c.size, &c.mtime) == nil {
			counts[key] = c
		}
	}
	if rows.Err() != nil {
		return nil
	}
	return func(id, path string, size int64, mtime time.Time) (int, bool) {
		c, ok := counts["t\x00"+id+"\x00"+path]
		if !ok || size != c.size || mtime.UnixNano() != c.mtime {
			return 0, false
		}
		return int(c.n), true
	}
}

// PromptsNow is Prompts of the transcript at path as it is now.
func (s *Store) PromptsNow(ctx context.Context, id, path string) (int, bool) {
	if s == nil {
		return 0, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	return s.Prompts(ctx, id, path, fi.Size(), fi.ModTime())
}

// Prompts is the number of genuine prompts of session id's transcript at
// path, when the store holds it at the file's current size and
// modification time.
func (s *Store) Prompts(ctx context.Context, id, path string, size int64, mtime time.Time) (int, bool) {
	if s == nil {
		return 0, false
	}
	r, _, err := s.dbs(ctx)
	if err != nil {
		return 0, false
	}
	var n int
	var sz, mt int64
	err = r.QueryRowContext(ctx, "SELECT prompts, size, mtime FROM src WHERE key = ?", "t\x00"+id+"\x00"+path).Scan(&n, &sz, &mt)
	if err != nil || sz != size || mt != mtime.UnixNano() {
		return 0, false
	}
	return n, true
}
