package claudemem

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	// The driver lives here, in the one file that calls sql.Open: both binaries
	// need it, and a missing import would fail only at run time.
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// busyTimeoutMS is how long a read waits for a lock held by claude-mem's
// worker (the value claude-mem's own readers use). In WAL mode readers are
// not blocked by writers, so this matters for rollback-journal databases.
const busyTimeoutMS = 5000

// DB is an open claude-mem database. It is safe for concurrent use; calls are
// serialised on one connection.
type DB struct {
	db    *sql.DB
	notes []string
	q     queries
}

// Open opens the claude-mem database at path read-only.
//
// A missing file returns an error wrapping [io/fs.ErrNotExist], which callers
// treat as standalone mode. A directory, a file that is not an SQLite database,
// or an SQLite database without claude-mem's sdk_sessions table is an error.
// Where SQLite cannot create the -shm/-wal files of a WAL database because the
// folder is not writable, the database is opened immutable instead (changes
// still in the WAL are then invisible) and [DB.Notes] says so.
func Open(ctx context.Context, path string) (*DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open claude-mem db: %w", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("open claude-mem db %s: is a directory, not a database file", path)
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or device would block SQLite's open(2) or read garbage.
		return nil, fmt.Errorf("open claude-mem db %s: not a regular file", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open claude-mem db: %w", err)
	}

	var notes []string
	sdb, err := connect(ctx, abs, false)
	if err != nil && needsImmutable(err) {
		if idb, ierr := connect(ctx, abs, true); ierr == nil {
			notes = append(notes, fmt.Sprintf("opened immutable: folder not writable, so SQLite cannot "+
				"create %s-shm/-wal (%v); changes claude-mem has not checkpointed yet are not visible",
				filepath.Base(abs), err))
			sdb, err = idb, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open claude-mem db %s: %w", path, describe(err))
	}

	q, qnotes, err := introspect(ctx, sdb)
	if err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open claude-mem db %s: %w", path, err)
	}
	return &DB{db: sdb, notes: append(notes, qnotes...), q: q}, nil
}

// connect opens one read-only connection and really reads from the file, so
// that corrupt files and unopenable WAL databases fail here rather than later.
func connect(ctx context.Context, abs string, immutable bool) (*sql.DB, error) {
	sdb, err := sql.Open("sqlite", dsn(abs, immutable))
	if err != nil {
		return nil, err
	}
	// One connection: the DB is read in short bursts, each call is one
	// snapshot, and a single connection keeps the -shm mapping and file
	// handles to one per process.
	sdb.SetMaxOpenConns(1)
	var n int
	if err = sdb.PingContext(ctx); err == nil {
		err = sdb.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n)
	}
	if err != nil {
		sdb.Close()
		return nil, err
	}
	return sdb, nil
}

// needsImmutable reports whether err is SQLite failing to open a WAL database
// read-only because it cannot create or write its -shm/-wal files (as happens
// in a folder the process may not write). A database with a hot rollback
// journal is not read immutable: its file may be half-written.
func needsImmutable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code()
	switch {
	case code == sqlite3.SQLITE_READONLY_ROLLBACK:
		return false
	case code&0xff == sqlite3.SQLITE_READONLY, code&0xff == sqlite3.SQLITE_CANTOPEN:
		return true
	}
	return false
}

// describe adds a plain explanation to the SQLite errors a user is likely to
// meet here.
func describe(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("not an SQLite database: %w", err)
		case sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("database is corrupt: %w", err)
		case sqlite3.SQLITE_BUSY:
			return fmt.Errorf("database is locked: %w", err)
		}
	}
	return err
}

// dsn is the modernc DSN for a read-only open of the absolute path abs.
func dsn(abs string, immutable bool) string {
	q := "?mode=ro"
	if immutable {
		q += "&immutable=1"
	}
	return fileURI(filepath.ToSlash(abs)) + q + fmt.Sprintf("&_pragma=busy_timeout(%d)", busyTimeoutMS)
}

// fileURI turns an absolute slash-separated path into an SQLite file: URI
// (https://sqlite.org/uri.html): "/a b/x.db" -> "file:///a%20b/x.db",
// Windows "C:/x.db" -> "file:///C:/x.db", UNC "//srv/share/x.db" ->
// "file:////srv/share/x.db". Everything but unreserved characters, '/' and
// ':' is percent-encoded, so '?', '#', '%' and spaces in names are safe.
func fileURI(slashPath string) string {
	var b strings.Builder
	b.WriteString("file://")
	if !strings.HasPrefix(slashPath, "/") {
		b.WriteByte('/') // Windows drive letter: file:///C:/...
	}
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(slashPath); i++ {
		c := slashPath[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/', c == ':':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// Close closes the database.
func (db *DB) Close() error { return db.db.Close() }

// Notes returns diagnostics about how the database was opened and what its
// schema lacks, e.g. "opened immutable: folder not writable ...".
func (db *DB) Notes() []string { return append([]string(nil), db.notes...) }
