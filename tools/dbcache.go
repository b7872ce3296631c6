package tools

import (
	"context"
	"os"
	"sync"

	"bottle/claudemem"
)

// DBCache keeps claude-mem's database open between tool calls: opening it
// (connection, schema introspection) costs more than a lookup. The handle is
// replaced when the file at the path is no longer the same file, or changed
// size or modification time (claude-mem replaced or rewrote it); replaced
// handles stay open until Close, since a concurrent call may still use one.
// The zero value is ready to use.
type DBCache struct {
	mu   sync.Mutex
	path string
	fi   os.FileInfo
	db   *claudemem.DB
	old  []*claudemem.DB
}

// get returns an open handle for path.
func (c *DBCache) get(ctx context.Context, path string) (*claudemem.DB, error) {
	fi, statErr := os.Stat(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if statErr == nil && c.db != nil && c.path == path && os.SameFile(c.fi, fi) &&
		c.fi.Size() == fi.Size() && c.fi.ModTime().Equal(fi.ModTime()) {
		return c.db, nil
	}
	db, err := claudemem.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if c.db != nil {
		c.old = append(c.old, c.db)
	}
	c.path, c.fi, c.db = path, fi, db
	if c.fi == nil {
		c.fi, _ = os.Stat(path)
	}
	return db, nil
}

// Close closes every handle the cache opened.
func (c *DBCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for _, db := range append(c.old, c.db) {
		if db == nil {
			continue
		}
		if err := db.Close(); err != nil && first == nil {
			first = err
		}
	}
	c.db, c.old = nil, nil
	return first
}

// openDB opens claude-mem's database for one call: through the cache when
// the server has one (release does nothing), else fresh (release closes it).
func (d Deps) openDB(ctx context.Context, path string) (db *claudemem.DB, release func(), err error) {
	if d.DB != nil {
		db, err = d.DB.get(ctx, path)
		return db, func() {}, err
	}
	db, err = claudemem.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// Warm opens the database at path, if it exists, so that the first call
// that needs it finds it open (opening reads the schema: milliseconds).
func (c *DBCache) Warm(ctx context.Context, path string) {
	if path == "" {
		return
	}
	if _, err := os.Stat(path); err == nil {
		c.get(ctx, path) // an error is the first call's to report
	}
}
