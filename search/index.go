package search

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"bottle/claudemem"
	"bottle/host/claudecode/transcript"
	"bottle/locate"
	"bottle/session"
)

// DefaultMaxBytes is how much record text an index keeps by default.
const DefaultMaxBytes = 48 << 20

// maxCachedFile is the largest transcript whose records are kept; larger
// ones are streamed at every search.
const maxCachedFile = 64 << 20

// Index keeps the records of recently searched sources in memory, each
// with the size and modification time its source had when it was read: a
// source that changed since is read again (a transcript by its own file;
// the records from claude-mem's database by the database file and its
// write-ahead log). It keeps at most MaxBytes of record text, dropping the
// least recently used sources first. An Index is safe for concurrent use;
// a nil *Index keeps nothing.
type Index struct {
	// MaxBytes bounds the record text kept (0: DefaultMaxBytes).
	MaxBytes int
	// Listing, when set, lists the scopes' transcripts (a server's: see
	// locate.Watch); nil lists them at each search.
	Listing *locate.Watch

	mu     sync.Mutex
	trans  map[string]*entry // by transcript path
	stored map[string]*entry // by session id
	db     stamp             // of the database the stored entries came from
	bytes  int
	clock  int64
	turns  map[string]turnCount
	// lists are claude-mem's session listings by project ("" = all), of
	// the database at db.
	lists map[string][]claudemem.SessionInfo
	// warmed are the scopes (scopeKey) read into the index after a
	// store answered them; warming, those being read.
	warmed, warming map[string]bool
}

// scopeKey names a scope by its sources.
func scopeKey(sources []Source) string {
	var b strings.Builder
	for _, src := range sources {
		b.WriteString(src.ID)
		b.WriteByte(0)
		b.WriteString(src.Transcript)
		b.WriteByte(0)
	}
	return b.String()
}

// isWarm reports whether ix has read the scope of sources once (its
// records may have been dropped or changed since: a search through ix
// reads again what it must, so this only says which way is likely faster).
func (ix *Index) isWarm(sources []Source) bool {
	if ix == nil {
		return false
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.warmed[scopeKey(sources)]
}

// warm reads o's scope into ix on a goroutine of its own, once, when its
// transcripts total at most limit bytes, so that the next search of it is
// answered from memory.
func (ix *Index) warm(o Options, limit int64) {
	if ix == nil || limit <= 0 {
		return
	}
	if total, huge := scopeBytes(o.Sources); huge || total > limit {
		return
	}
	key := scopeKey(o.Sources)
	ix.mu.Lock()
	if ix.warmed[key] || ix.warming[key] {
		ix.mu.Unlock()
		return
	}
	if ix.warming == nil {
		ix.warming, ix.warmed = map[string]bool{}, map[string]bool{}
	}
	ix.warming[key] = true
	ix.mu.Unlock()
	o.Store = nil
	go func() {
		_, err := scan(context.Background(), ix, o)
		ix.mu.Lock()
		defer ix.mu.Unlock()
		delete(ix.warming, key)
		if err == nil {
			ix.warmed[key] = true
		}
	}()
}

// stamp identifies a state of a file (or of a database and its log).
type stamp struct {
	size, walSize int64
	mod, walMod   time.Time
	ok            bool
}

func statStamp(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{size: fi.Size(), mod: fi.ModTime(), ok: true}
}

func dbStamp(path string) stamp {
	s := statStamp(path)
	if w := statStamp(path + "-wal"); w.ok {
		s.walSize, s.walMod = w.size, w.mod
	}
	return s
}

// entry is the records of one source, being read until done is closed.
type entry struct {
	done    chan struct{}
	st      stamp
	variant string
	recs    []Record
	info    transcriptInfo
	err     error
	bytes   int
	used    int64
}

func (ix *Index) maxBytes() int {
	if ix.MaxBytes > 0 {
		return ix.MaxBytes
	}
	return DefaultMaxBytes
}

// transcript hands every record of src's transcript to emit.
func (ix *Index) transcript(ctx context.Context, src Source, m *matcher) error {
	st := statStamp(src.Transcript)
	if ix == nil || !st.ok || st.size > m.streamAbove {
		// Hits of a large transcript get their snippets at once, so that
		// its text is not kept; a small one's text may be.
		m.eager = !st.ok || st.size > m.streamAbove
		defer func() { m.eager = false }()
		if m.eager {
			_, err := streamRecords(ctx, src.reader(), src.Transcript, src.ID, m.own, m.keepSeq(), m.add)
			return err
		}
		_, err := transcriptRecords(ctx, src.reader(), src.Transcript, src.ID, m.own, m.add)
		return err
	}
	e, err := ix.transcriptEntry(ctx, src, st, m.own)
	if err != nil {
		return err
	}
	for i := range e.recs {
		m.add(e.recs[i])
	}
	return nil
}

// transcriptEntry is the entry of src's transcript at stamp st.
// Its records hold the tool results own leaves out: an entry read with
// other rules is read again.
func (ix *Index) transcriptEntry(ctx context.Context, src Source, st stamp, own *ownRules) (*entry, error) {
	return ix.get(ctx, &ix.trans, src.Transcript, st, own.key(), func() ([]Record, transcriptInfo, error) {
		var recs []Record
		info, err := transcriptRecords(ctx, src.reader(), src.Transcript, src.ID, own, func(r Record) { recs = append(recs, r) })
		if err == nil && statStamp(src.Transcript) != st {
			err = errStale
		}
		return recs, info, err
	})
}

// prefetch reads the sources a search will want into the index, on up to
// GOMAXPROCS goroutines for transcripts and one for claude-mem's records,
// while the search goes through them in order (it waits for each entry in
// flight): a transcript's records are built on one core, so reading
// several at once uses the others.
func (ix *Index) prefetch(ctx context.Context, o Options, own *ownRules, dbst stamp, transcripts, stored bool) {
	if transcripts {
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		go func() {
			for _, src := range o.Sources {
				st := statStamp(src.Transcript)
				if src.Transcript == "" || !st.ok || st.size > maxCachedFile {
					continue
				}
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				go func() {
					defer func() { <-sem }()
					ix.transcriptEntry(ctx, src, st, own)
				}()
			}
		}()
	}
	if stored && o.DB != nil && dbst.ok {
		go func() {
			for _, src := range o.Sources {
				if ctx.Err() != nil {
					return
				}
				ix.storedEntry(ctx, o.DB, dbst, src)
			}
		}()
	}
}

// checkDB drops the stored records when the database changed, and returns
// its stamp.
func (ix *Index) checkDB(path string) stamp {
	st := dbStamp(path)
	if ix == nil {
		return st
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if st != ix.db {
		for _, e := range ix.stored {
			ix.bytes -= e.bytes
		}
		ix.stored, ix.lists, ix.db = nil, nil, st
	}
	return st
}

// storedSessions lists claude-mem's sessions of project ("" = all): from
// the index while the database at path is unchanged.
func (ix *Index) storedSessions(ctx context.Context, db *claudemem.DB, path, project string) []claudemem.SessionInfo {
	if ix == nil {
		list, _ := db.Sessions(ctx, project)
		return list
	}
	ix.checkDB(path)
	ix.mu.Lock()
	list, ok := ix.lists[project]
	st := ix.db
	ix.mu.Unlock()
	if ok {
		return list
	}
	list, err := db.Sessions(ctx, project)
	if err != nil {
		return nil
	}
	ix.mu.Lock()
	if ix.db == st {
		if ix.lists == nil {
			ix.lists = map[string][]claudemem.SessionInfo{}
		}
		ix.lists[project] = list
	}
	ix.mu.Unlock()
	return list
}

// stored hands every record claude-mem holds of src to emit: observations
// and summaries, and stored prompts when src has no transcript.
func (ix *Index) storedRecs(ctx context.Context, db *claudemem.DB, st stamp, src Source, emit func(Record)) error {
	if ix == nil || !st.ok {
		recs, _, err := readStored(ctx, db, src)
		for i := range recs {
			emit(recs[i])
		}
		return err
	}
	e, err := ix.storedEntry(ctx, db, st, src)
	if err != nil {
		return err
	}
	for i := range e.recs {
		emit(e.recs[i])
	}
	return nil
}

// storedEntry is the entry of src's records in claude-mem at stamp st.
func (ix *Index) storedEntry(ctx context.Context, db *claudemem.DB, st stamp, src Source) (*entry, error) {
	key := src.ID
	if src.Transcript == "" {
		key += "\x00stored-only"
	}
	return ix.get(ctx, &ix.stored, key, st, "", func() ([]Record, transcriptInfo, error) { return readStored(ctx, db, src) })
}

// readStored reads src's records in claude-mem.
func readStored(ctx context.Context, db *claudemem.DB, src Source) ([]Record, transcriptInfo, error) {
	s, err := db.Session(ctx, src.ID)
	if errors.Is(err, claudemem.ErrNoSession) {
		return nil, transcriptInfo{}, nil
	}
	if err != nil {
		return nil, transcriptInfo{}, err
	}
	var recs []Record
	storedRecords(s, src.Transcript == "", func(r Record) { recs = append(recs, r) })
	return recs, transcriptInfo{prompts: len(s.Prompts)}, nil
}

// get returns the fresh entry of key in *m, reading it with read when
// missing or stale; concurrent callers of one key share one read.
// variant names the rules the records were read with: an entry of other
// rules is stale too.
func (ix *Index) get(ctx context.Context, m *map[string]*entry, key string, st stamp, variant string,
	read func() ([]Record, transcriptInfo, error)) (*entry, error) {
	ix.mu.Lock()
	if *m == nil {
		*m = map[string]*entry{}
	}
	ix.clock++
	if e, ok := (*m)[key]; ok && e.st == st && e.variant == variant {
		e.used = ix.clock
		ix.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err == nil {
			return e, nil
		}
		// A failed read is not kept: read again.
		ix.mu.Lock()
	}
	if old, ok := (*m)[key]; ok {
		ix.bytes -= old.bytes
	}
	e := &entry{done: make(chan struct{}), st: st, variant: variant, used: ix.clock}
	(*m)[key] = e
	ix.mu.Unlock()

	e.recs, e.info, e.err = read()
	for i := range e.recs {
		e.bytes += len(e.recs[i].Text) + len(e.recs[i].low)
	}
	ix.mu.Lock()
	if (*m)[key] == e {
		if e.err != nil || e.bytes > ix.maxBytes() {
			delete(*m, key)
		} else {
			ix.bytes += e.bytes
			ix.evict()
		}
	}
	ix.mu.Unlock()
	close(e.done)
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// evict drops the least recently used entries while the index holds more
// than its bound.
func (ix *Index) evict() {
	for ix.bytes > ix.maxBytes() {
		var oldM map[string]*entry
		var oldK string
		var old *entry
		for _, m := range []map[string]*entry{ix.trans, ix.stored} {
			for k, e := range m {
				if e.bytes > 0 && (old == nil || e.used < old.used) {
					oldM, oldK, old = m, k, e
				}
			}
		}
		if old == nil {
			return
		}
		delete(oldM, oldK)
		ix.bytes -= old.bytes
	}
}

// Bytes is the record text the index holds.
func (ix *Index) Bytes() int {
	if ix == nil {
		return 0
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.bytes
}

// turnCount is a transcript's count of genuine prompts at a stamp.
type turnCount struct {
	st stamp
	n  int
}

// Prompts is the number of genuine prompts (turns) in the transcript at
// path: from the index when it holds the transcript unchanged, else read
// (and remembered at the file's size and modification time).
func (ix *Index) Prompts(ctx context.Context, path string) (int, error) {
	st := statStamp(path)
	if ix != nil && st.ok {
		ix.mu.Lock()
		e := ix.trans[path]
		tc, ok := ix.turns[path]
		ix.mu.Unlock()
		if e != nil && e.st == st {
			select {
			case <-e.done:
				if e.err == nil {
					return e.info.prompts, nil
				}
			default:
			}
		}
		if ok && tc.st == st {
			return tc.n, nil
		}
	}
	t, err := transcript.Read(ctx, path, &session.ReadOptions{NoDigests: true})
	if err != nil {
		return 0, err
	}
	if ix != nil && st.ok && statStamp(path) == st {
		ix.mu.Lock()
		if ix.turns == nil {
			ix.turns = map[string]turnCount{}
		}
		ix.turns[path] = turnCount{st: st, n: t.Prompts}
		ix.mu.Unlock()
	}
	return t.Prompts, nil
}
