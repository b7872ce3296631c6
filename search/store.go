package search

import (
	"bottle/privacy"

	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// storeFormat names the layout of a store's tables and whether its text is
// redacted; a file without it is not ours (or an older layout, or one
// written with redaction switched the other way) and is set aside.
var storeFormat = "bottle search index 7" + map[bool]string{true: "", false: " unredacted"}[privacy.Redacting()]

// The store is a cache: it is written without fsync (synchronous=OFF), and
// a file a crash left corrupt is set aside and rebuilt.
//
// Store busy timeouts. Only searches write the store, so a writer waits
// for another search's batch (a few hundred ms at most) and then gives up:
// the search scans instead. Readers of a WAL database do not wait on a
// writer.
const (
	writeBusyMS = 3000
	readBusyMS  = 1000
)

// Store is the persistent search index: an SQLite database of the records
// [Search] builds (their folded text compressed, each one's byte
// trigrams, see grams.go, and its words' counts, see words.go), each as
// the scan would see it,
// kept up to date from the sources at every search. It is derived and
// disposable: deleting the file loses nothing (the next search rebuilds
// what it needs), a file that is not a store (corrupt, foreign, an older
// layout) is set aside as <path>.broken and rebuilt, and any trouble with
// it makes the search scan the sources instead. A Store is safe for
// concurrent use, by several processes too (WAL, one writer at a time).
type Store struct {
	path string
	// Log, when set, is told of what a user may want to know: a file set
	// aside, a search answered by scanning because the store failed.
	Log func(string)
	// Background, when set, makes a search whose scope holds more than
	// BuildBytes of transcripts the store does not have scan instead,
	// while the store reads them on a goroutine of its own (a server,
	// whose first search of a large history must not wait for the
	// build). Without it a search builds what it needs first, and logs
	// that it does when that is more than BuildBytes.
	Background bool
	// BuildBytes is that bound (0: DefaultBuildBytes).
	BuildBytes int64
	// MemoryBytes, when set, makes a search with an in-memory [Index]
	// whose scope's transcripts total at most this many bytes use that
	// index instead of the store: a few sessions' records kept in memory
	// answer in a millisecond or two, the store's lookups in ten (a
	// server's session and project scopes). The answers are the same.
	MemoryBytes int64

	mu       sync.Mutex
	rdb      *sql.DB // readers
	wdb      *sql.DB // the one writer connection
	err      error   // why the store cannot be used (searches scan)
	building bool    // a background build runs
	cache    *srcCache
	// onRead, in tests, is told of each transcript read into the store.
	onRead func(path string, info transcriptInfo)
}

// DefaultBuildBytes is how much transcript a search of a server's store
// reads into it before answering; more is read in the background.
const DefaultBuildBytes = 32 << 20

// errBuilding: the store is being built in the background.
var errBuilding = errors.New("being built in the background")

// NewStore returns the store at path; the file is opened (and created) at
// the first search.
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

func (s *Store) log(format string, args ...any) {
	if s.Log != nil {
		s.Log(fmt.Sprintf(format, args...))
	}
}

// Close closes the store's connections.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.rdb != nil {
		err = errors.Join(s.rdb.Close(), s.wdb.Close())
		s.rdb, s.wdb = nil, nil
	}
	return err
}

// Warm opens the store, when its file exists, and reads its sources, so
// that the first search finds them (opening reads the schema, and the
// first queries of a process bring in the database engine's code: about
// 10 ms that a server spends while its client initializes). An error is
// the first search's to report.
func (s *Store) Warm(ctx context.Context) {
	if _, err := os.Stat(s.path); err != nil {
		return
	}
	r, w, err := s.dbs(ctx)
	if err != nil {
		return
	}
	s.sources(ctx, r, w)
}

// dbs opens the store when it is not open yet: a file that is not a store
// is set aside and a new one created.
func (s *Store) dbs(ctx context.Context) (r, w *sql.DB, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rdb != nil {
		return s.rdb, s.wdb, nil
	}
	if s.err != nil {
		return nil, nil, s.err
	}
	r, w, err = s.open(ctx)
	if err != nil && ctx.Err() == nil && isBroken(err) {
		if aside := s.setAside(); aside != "" {
			s.log("search index %s unreadable (%v): set aside as %s and rebuilt", s.path, err, aside)
			r, w, err = s.open(ctx)
		}
	}
	if err != nil {
		if ctx.Err() == nil && !isBusy(err) {
			s.err = err // not retried: every search would pay for it
		}
		return nil, nil, err
	}
	s.rdb, s.wdb, s.cache = r, w, nil
	return r, w, nil
}

// errForeign: the file is an SQLite database, but not a store.
var errForeign = errors.New("not a bottle search index")

func (s *Store) open(ctx context.Context) (r, w *sql.DB, err error) {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("open search index: %w", err)
	}
	if fi, err := os.Stat(s.path); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("open search index %s: %w (not a regular file)", s.path, errForeign)
	}
	abs, err := filepath.Abs(s.path)
	if err != nil {
		return nil, nil, fmt.Errorf("open search index: %w", err)
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	if !strings.HasPrefix(filepath.ToSlash(abs), "/") {
		u = (&url.URL{Scheme: "file", Path: "/" + filepath.ToSlash(abs)}).String()
	}
	pragmas := "&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=cache_size(-2048)&_pragma=temp_store(MEMORY)"
	w, err = sql.Open("sqlite", u+fmt.Sprintf("?_txlock=immediate&_pragma=busy_timeout(%d)", writeBusyMS)+pragmas)
	if err != nil {
		return nil, nil, fmt.Errorf("open search index %s: %w", s.path, err)
	}
	w.SetMaxOpenConns(1)
	if err := initSchema(ctx, w); err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("open search index %s: %w", s.path, err)
	}
	r, err = sql.Open("sqlite", u+fmt.Sprintf("?_pragma=busy_timeout(%d)", readBusyMS)+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("open search index %s: %w", s.path, err)
	}
	// Each connection has its own page cache (2 MB): two bound a
	// server's memory and serve a search and a listing at once.
	r.SetMaxOpenConns(2)
	r.SetMaxIdleConns(1)
	return r, w, nil
}

// schema is the store's layout. A record's id is its source's id << 28,
// its number in the source << 3, and its kind: a search filters the
// trigram index's ids by source and kind without reading the records.
// Neither a source's id nor a record's is ever used twice (a deleted
// record's id goes into dead), so the index's entries for a deleted
// record never count for another.
const schema = `
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS src(
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	key TEXT NOT NULL UNIQUE,
	session TEXT NOT NULL,
	size INTEGER NOT NULL DEFAULT -1,
	mtime INTEGER NOT NULL DEFAULT 0,
	fp TEXT NOT NULL DEFAULT '',
	prompts INTEGER NOT NULL DEFAULT 0,
	nextn INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS rec(
	id INTEGER PRIMARY KEY,
	src INTEGER NOT NULL,
	rid TEXT NOT NULL,
	label TEXT NOT NULL,
	tsec INTEGER NOT NULL,
	tnsec INTEGER NOT NULL,
	tz TEXT NOT NULL,
	seq INTEGER NOT NULL,
	paths TEXT,
	len INTEGER NOT NULL,
	h INTEGER NOT NULL,
	text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS rec_src ON rec(src, seq);
CREATE TABLE IF NOT EXISTS agg(src INTEGER NOT NULL, kind INTEGER NOT NULL, n INTEGER NOT NULL, sum INTEGER NOT NULL,
	PRIMARY KEY(src, kind)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cat(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
	first TEXT NOT NULL, cwd TEXT NOT NULL, flags INTEGER NOT NULL, lsec INTEGER NOT NULL, lnsec INTEGER NOT NULL, ltz TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seg(id INTEGER PRIMARY KEY, rids BLOB NOT NULL, bytes INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS gram(bucket INTEGER NOT NULL, seg INTEGER NOT NULL, lists BLOB NOT NULL,
	PRIMARY KEY(bucket, seg)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS gram_seg ON gram(seg);
CREATE TABLE IF NOT EXISTS word(seg INTEGER PRIMARY KEY, voc BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS wpost(id INTEGER PRIMARY KEY, post BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS dead(id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS resume(src INTEGER PRIMARY KEY, state BLOB NOT NULL);
CREATE TRIGGER IF NOT EXISTS rec_dead AFTER DELETE ON rec BEGIN INSERT OR IGNORE INTO dead(id) VALUES(old.id); END;
`

// initSchema creates the tables in a new file and checks an old one's
// format.
func initSchema(ctx context.Context, w *sql.DB) error {
	// A store in use is checked without the write lock, which another
	// process may hold.
	var format string
	if err := w.QueryRowContext(ctx, "SELECT v FROM meta WHERE k = 'format'").Scan(&format); err == nil && format == storeFormat {
		return nil
	}
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var tables int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
		return err
	}
	if tables == 0 {
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta(k, v) VALUES('format', ?)", storeFormat); err != nil {
			return err
		}
		return tx.Commit()
	}
	if err := tx.QueryRowContext(ctx, "SELECT v FROM meta WHERE k = 'format'").Scan(&format); err != nil || format != storeFormat {
		return fmt.Errorf("%w (format %q)", errForeign, format)
	}
	return tx.Commit()
}

// isBroken reports whether err says the file is not a usable store.
func isBroken(err error) bool {
	if errors.Is(err, errForeign) || errors.Is(err, errGramRow) || errors.Is(err, errPacked) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_FORMAT:
			return true
		}
	}
	return false
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return true
		}
	}
	return false
}

// setAside moves the store's file (and its -wal and -shm) to
// <path>.broken, replacing an earlier one, and returns that name ("" when
// it could not be moved).
func (s *Store) setAside() string {
	aside := s.path + ".broken"
	os.RemoveAll(aside)
	if err := os.Rename(s.path, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	os.Remove(s.path + "-wal")
	os.Remove(s.path + "-shm")
	return aside
}

// broken closes the store after a search found its file corrupt: the next
// search sets it aside and rebuilds.
func (s *Store) broken(err error) {
	if !isBroken(err) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rdb != nil {
		s.rdb.Close()
		s.wdb.Close()
		s.rdb, s.wdb = nil, nil
	}
	s.cache = nil
	if aside := s.setAside(); aside != "" {
		s.log("search index %s unreadable (%v): set aside as %s; the next search rebuilds it", s.path, err, aside)
	}
}
