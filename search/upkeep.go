package search

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Record ids in the store: source << srcShift | number << numShift | kind.
const (
	srcShift = 28
	numShift = 3
	maxNum   = 1 << (srcShift - numShift)
)

// kindCode is a kind's code in a record id: its place in Kinds.
func kindCode(k Kind) int64 {
	for i, kk := range Kinds {
		if kk == k {
			return int64(i)
		}
	}
	return 7
}

// srcRow is what the store remembers of a source: its stamp when it was
// read (a transcript's size and modification time; the database's stamp
// and the session's row counts for claude-mem's records).
type srcRow struct {
	id          int64
	size, mtime int64
	fp          string
	prompts     int
}

// scoped is a search's sources as the store has them, up to date.
type scoped struct {
	session map[int64]string // by source id
	notes   []string
	// counts, when set, holds the sources' record counts as of the
	// store's generation gen.
	counts *srcCache
	gen    int64
}

// job is a source whose records the store must read again.
type job struct {
	i            int // the source's place in the search's list
	key, session string
	src          Source
	transcript   string
	stored       bool // claude-mem's records
	size, mtime  int64
	fp           string
	oldfp        string // the stored fingerprint, "" when none
	oldSize      int64  // the stored size (a transcript's)
	// fromState is the stored resume state of a transcript that grew
	// (resumeState.encode); from is it decoded when the read went on from
	// it.
	fromState []byte
	from      *resumeState
	own       *ownRules
	recs      []Record
	info      transcriptInfo
	err       error
	unchanged bool
	id        int64 // the source's id in the store, once written
	// fresh: the store holds nothing of the source, so every record is
	// written: their trigrams and tokens (index) are worked out by the
	// reading goroutines (else by the writer, for the changed ones).
	fresh bool
	index *gramBatch
}

// update brings the store up to date with the sources a search wants: a
// transcript whose size or modification time changed is read again, and
// claude-mem's records of a session whose rows changed; only records that
// changed are written. Sources that cannot be read are named in notes (as
// the scan names them) and left out.
func (s *Store) update(ctx context.Context, r, w *sql.DB, o Options, wantT, wantS bool) (*scoped, error) {
	cache, err := s.sources(ctx, r, w)
	if err != nil {
		return nil, err
	}
	rows := cache.rows // shared: read only
	sc := &scoped{session: map[int64]string{}}
	notes := make([][]string, len(o.Sources))
	var jobs []*job
	dbfp := ""
	if wantS {
		if st := dbStamp(o.DBPath); st.ok {
			dbfp = fmt.Sprintf("%d.%d.%d.%d", st.size, st.mod.UnixNano(), st.walSize, st.walMod.UnixNano())
		}
	}
	// A transcript's records depend on the rules for bottle's own reads
	// too: its fingerprint is their key, and other rules read it again.
	own := newOwnRules(o.Own)
	for i, src := range o.Sources {
		if src.Transcript != "" && wantT {
			key := "t\x00" + src.ID + "\x00" + src.Transcript
			size, mtime, ok := src.Size, src.Modified.UnixNano(), !src.Modified.IsZero()
			if !ok {
				// Not stamped by the scope's listing.
				fi, err := os.Stat(src.Transcript)
				if ok = err == nil && fi.Mode().IsRegular(); ok {
					size, mtime = fi.Size(), fi.ModTime().UnixNano()
				}
			}
			switch {
			case !ok:
				// The reader's own error, as the scan reports it.
				if _, err := transcriptRecords(ctx, src.reader(), src.Transcript, src.ID, own, func(Record) {}); err != nil {
					notes[i] = append(notes[i], fmt.Sprintf("session %s: %v", src.ID, err))
				}
			case rows[key].size == size && rows[key].mtime == mtime && ownPart(rows[key].fp) == own.key():
				sc.session[rows[key].id] = src.ID
			default:
				old, known := rows[key]
				j := &job{i: i, key: key, session: src.ID, src: src, transcript: src.Transcript,
					size: size, mtime: mtime, fp: own.key(), oldfp: old.fp, oldSize: old.size, own: own, fresh: !known}
				if known && size > old.size {
					// Grown: where its last read stopped.
					if err := r.QueryRowContext(ctx, "SELECT state FROM resume WHERE src = ?", old.id).Scan(&j.fromState); err != nil && !errors.Is(err, sql.ErrNoRows) {
						return nil, err
					}
				}
				jobs = append(jobs, j)
			}
		}
		if wantS {
			key := "m\x00" + src.ID
			if src.Transcript == "" {
				key += "\x00p"
			}
			if r, ok := rows[key]; ok && dbfp != "" && beforeBar(r.fp) == dbfp {
				sc.session[r.id] = src.ID
			} else {
				_, known := rows[key]
				jobs = append(jobs, &job{i: i, key: key, session: src.ID, src: src, stored: true, fp: dbfp, oldfp: rows[key].fp, fresh: !known})
			}
		}
	}
	if err := s.background(w, o, jobs); err != nil {
		return nil, err
	}
	written := map[string]srcRow{}
	if err := s.runJobs(ctx, w, o, jobs, written); err != nil {
		return nil, err
	}
	for _, j := range jobs {
		switch {
		case j.err != nil && j.stored:
			notes[j.i] = append(notes[j.i], fmt.Sprintf("session %s: claude-mem's database: %v", j.session, j.err))
		case j.err != nil:
			notes[j.i] = append(notes[j.i], fmt.Sprintf("session %s: %v", j.session, j.err))
		default:
			sc.session[written[j.key].id] = j.session
		}
	}
	// The counts of the scope's records, when the cache holds the state
	// written (the search checks that its snapshot is of that state).
	s.mu.Lock()
	if c := s.cache; c != nil {
		sc.gen, sc.counts = c.gen, c
	}
	s.mu.Unlock()
	for _, n := range notes {
		sc.notes = append(sc.notes, n...)
	}
	return sc, nil
}

// background starts reading the jobs' transcripts on a goroutine when
// they are more than the store's BuildBytes and it builds in the
// background, and then returns errBuilding (the search scans); it returns
// errBuilding while such a build runs. Without Background it only logs
// that a long build starts.
func (s *Store) background(w *sql.DB, o Options, jobs []*job) error {
	var pending int64
	var build []*job
	for _, j := range jobs {
		if !j.stored {
			pending += j.size
			build = append(build, &job{i: j.i, key: j.key, session: j.session, src: j.src, transcript: j.transcript,
				size: j.size, mtime: j.mtime, fp: j.fp, oldfp: j.oldfp, oldSize: j.oldSize, fromState: j.fromState, own: j.own, fresh: j.fresh})
		}
	}
	limit := s.BuildBytes
	if limit <= 0 {
		limit = DefaultBuildBytes
	}
	if pending <= limit {
		return nil
	}
	if !s.Background {
		s.log("building the search index %s: %d transcripts, %d MB (once; later searches read only what changed)", s.path, len(build), pending>>20)
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.building {
		return errBuilding
	}
	s.building = true
	s.log("search index %s: reading %d transcripts (%d MB) in the background; searches scan until it is done", s.path, len(build), pending>>20)
	own := map[string]srcRow{}
	o.DB = nil // the caller's, closed after its search
	go func() {
		start := time.Now()
		err := s.runJobs(context.Background(), w, o, build, own)
		s.mu.Lock()
		s.building = false
		s.mu.Unlock()
		if err != nil {
			s.log("search index %s: the background build stopped: %v", s.path, err)
			return
		}
		s.log("search index %s: built in the background in %s", s.path, time.Since(start).Round(time.Second))
	}()
	return errBuilding
}

// runJobs reads the jobs' sources on up to GOMAXPROCS-1 goroutines and
// writes each one's records as it is read, one transaction per source;
// rows gains the sources written.
func (s *Store) runJobs(ctx context.Context, w *sql.DB, o Options, jobs []*job, rows map[string]srcRow) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Claude-mem's sessions as listed, for the row counts that tell which
	// sessions changed since they were read.
	var prints map[string]string
	for _, j := range jobs {
		if j.stored && o.DB != nil {
			if list, err := o.DB.Sessions(ctx, ""); err == nil {
				prints = map[string]string{}
				for _, si := range list {
					prints[si.ContentSessionID] = fmt.Sprintf("%s|%d|%d|%d|%d|%d", si.Platform, si.Prompts, si.Observations,
						si.Summaries, si.Started.UnixNano(), si.LastActivity.UnixNano())
				}
			}
			break
		}
	}
	done := make(chan *job, 1)
	work := make(chan *job)
	// One reading goroutine fewer than the processors: the writer is
	// busy the whole build, and each reading goroutine keeps a
	// transcript's records and mapped pages (on two processors, a second
	// one cost 7-9 MB of peak RSS and no time).
	for range min(max(runtime.GOMAXPROCS(0)-1, 1), len(jobs)) {
		go func() {
			seen := newGramSeen()
			for j := range work {
				s.read(ctx, o, j, prints)
				if j.fresh {
					j.index = indexFresh(j.recs, seen)
				}
				done <- j
			}
		}()
	}
	go func() {
		defer close(work)
		for _, j := range jobs {
			select {
			case work <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	// Sources are written in batches of about batchBytes of record text,
	// one transaction and one trigram segment each: few segments for a
	// search to look trigrams up in, and few rows to write per batch (a
	// batch's trigram rows land all over their table). 16 MB took no less
	// CPU than 8 and raised the build's peak RSS past 64 MB.
	const batchBytes = 8 << 20
	var tx *sql.Tx
	var written []*job
	var grams gramBatch
	batch := 0
	commit := func() error {
		if tx == nil {
			return nil
		}
		err := grams.flush(ctx, tx)
		var gen int64
		var aggs map[int64]*kindAgg
		if err == nil {
			gen, err = bumpGen(ctx, tx)
		}
		if err == nil {
			aggs, err = writtenAggs(ctx, tx, written)
		}
		if err == nil {
			err = tx.Commit()
		}
		tx = nil
		if err != nil {
			return err
		}
		now := map[string]srcRow{}
		for _, j := range written {
			now[j.key] = srcRow{id: j.id, size: j.size, mtime: j.mtime, fp: j.fp, prompts: j.info.prompts}
			rows[j.key] = now[j.key]
		}
		s.committed(gen, now, aggs)
		written, batch = written[:0], 0
		return nil
	}
	defer func() {
		if tx != nil {
			tx.Rollback()
		}
	}()
	for range jobs {
		var j *job
		select {
		case j = <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if j.err != nil {
			continue
		}
		if tx == nil {
			var err error
			if tx, err = w.BeginTx(ctx, nil); err != nil {
				return err
			}
		}
		id, err := s.write(ctx, tx, j, &grams)
		for i := range j.recs {
			batch += len(j.recs[i].Text)
		}
		j.recs = nil
		if err != nil {
			return err
		}
		j.id = id
		written = append(written, j)
		if batch >= batchBytes {
			if err := commit(); err != nil {
				return err
			}
		}
	}
	if err := commit(); err != nil {
		return err
	}
	return ctx.Err()
}

// read reads a job's records (or finds that claude-mem's rows of its
// session did not change).
func (s *Store) read(ctx context.Context, o Options, j *job, prints map[string]string) {
	if j.stored {
		if prints != nil {
			p, ok := prints[j.session]
			if !ok {
				p = "none"
			}
			j.fp += "|" + p
			if j.oldfp != "" && afterBar(j.oldfp) == p {
				j.unchanged = true
				return
			}
		}
		if o.DB == nil {
			return
		}
		j.recs, j.info, j.err = readStored(ctx, o.DB, j.src)
		return
	}
	s.readTranscript(ctx, j)
	if errors.Is(ctx.Err(), context.Canceled) && j.err == nil {
		j.err = ctx.Err()
	}
}

// A stored source's fp is the database's stamp, then '|' and the
// session's row counts when the read listed them.

// afterBar is fp after its first '|' (a stored source's row counts).
func afterBar(fp string) string {
	_, after, _ := strings.Cut(fp, "|")
	return after
}

// beforeBar is fp before its first '|' (the database's stamp).
func beforeBar(fp string) string {
	before, _, _ := strings.Cut(fp, "|")
	return before
}

// old is a record the store holds, by its key in its source.
type oldRec struct {
	id, h, seq, len int64
}

// write stores a job's records in tx: records whose content
// is unchanged keep their id (their order may be updated), changed ones
// are replaced, and gone ones deleted. Another process that wrote the same
// state of the source first makes it a no-op.
func (s *Store) write(ctx context.Context, tx *sql.Tx, j *job, grams *gramBatch) (int64, error) {
	var id, size, mtime, nextn int64
	var fp string
	err := tx.QueryRowContext(ctx, "SELECT id, size, mtime, fp, nextn FROM src WHERE key = ?", j.key).Scan(&id, &size, &mtime, &fp, &nextn)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		res, err := tx.ExecContext(ctx, "INSERT INTO src(key, session) VALUES(?, ?)", j.key, j.session)
		if err != nil {
			return 0, err
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	case err != nil:
		return 0, err
	case size == j.size && mtime == j.mtime && fp == j.fp:
		return id, nil // written by another search meanwhile
	}
	if j.unchanged {
		if _, err := tx.ExecContext(ctx, "UPDATE src SET fp = ? WHERE id = ?", j.fp, id); err != nil {
			return 0, err
		}
		return id, nil
	}
	if j.from != nil {
		// The read went on from the stored point: it must still be the
		// store's (another process may have written the source since),
		// and the source must keep its id.
		var now []byte
		if err := tx.QueryRowContext(ctx, "SELECT state FROM resume WHERE src = ?", id).Scan(&now); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		if !bytes.Equal(now, j.fromState) || nextn+int64(len(j.recs)) >= maxNum {
			j.oldfp, j.fromState = "", nil
			s.readTranscript(ctx, j)
			if j.err != nil {
				return 0, j.err
			}
		}
	}
	old := map[string]oldRec{}
	seen := map[string]int{}
	for _, span := range oldSpans(j) {
		q, err := tx.QueryContext(ctx, "SELECT id, rid, h, seq, len FROM rec WHERE src = ? AND seq >= ? AND seq < ?", id, span[0], span[1])
		if err != nil {
			return 0, err
		}
		for q.Next() {
			var o oldRec
			var rid string
			if err := q.Scan(&o.id, &rid, &o.h, &o.seq, &o.len); err != nil {
				q.Close()
				return 0, err
			}
			old[recKey(rid, seen)] = o
		}
		q.Close()
		if err := q.Err(); err != nil {
			return 0, err
		}
	}
	if !sameKnown(j.recs, old) {
		// The store does not hold what the read took as known (another
		// process wrote the source meanwhile): read it whole.
		j.oldfp = ""
		s.readTranscript(ctx, j)
		if j.err != nil {
			return 0, j.err
		}
	}
	if nextn+int64(len(j.recs)) >= maxNum {
		// Numbers run out: the source starts again under a new id.
		if id, err = renumber(ctx, tx, j, id); err != nil {
			return 0, err
		}
		old, nextn = map[string]oldRec{}, 0
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO rec(id, src, rid, label, tsec, tnsec, tz, seq, paths, len, h, text) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")
	if err != nil {
		return 0, err
	}
	del, err := tx.PrepareContext(ctx, "DELETE FROM rec WHERE id = ?")
	if err != nil {
		return 0, err
	}
	upd, err := tx.PrepareContext(ctx, "UPDATE rec SET seq = ? WHERE id = ?")
	if err != nil {
		return 0, err
	}
	// A read that went on from a point changes few of the source's
	// records: its counts change by what it adds and removes (counting
	// them all again read every record of a 60 MB transcript's).
	var delta [8]struct{ n, sum int64 }
	remove := func(o oldRec) error {
		delta[o.id&7].n--
		delta[o.id&7].sum -= o.len
		_, err := del.ExecContext(ctx, o.id)
		return err
	}
	// A fresh source's records are all written, in order: the batch the
	// reading goroutine made of them is merged once they have their ids.
	var pre []int64
	if j.index != nil && len(old) == 0 {
		pre = make([]int64, 0, len(j.recs))
	}
	seen = map[string]int{}
	for i := range j.recs {
		r := &j.recs[i]
		k := recKey(r.ID, seen)
		code := kindCode(r.Kind)
		if r.same {
			o := old[k]
			delete(old, k)
			if o.seq != int64(r.seq) {
				if _, err := upd.ExecContext(ctx, r.seq, o.id); err != nil {
					return 0, err
				}
			}
			continue
		}
		h := recHash(r)
		if o, ok := old[k]; ok {
			delete(old, k)
			if o.h == h && o.id&(1<<numShift-1) == code {
				if o.seq != int64(r.seq) {
					if _, err := upd.ExecContext(ctx, r.seq, o.id); err != nil {
						return 0, err
					}
				}
				continue
			}
			if err := remove(o); err != nil {
				return 0, err
			}
		}
		rid := id<<srcShift | nextn<<numShift | code
		delta[code].n++
		delta[code].sum += int64(len(r.low))
		nextn++
		var paths any
		if len(r.Paths) > 0 {
			b, _ := json.Marshal(r.Paths)
			paths = string(b)
		}
		if r.packed == nil {
			r.packed = packText(r.Text, r.low)
		}
		sec, nsec, tz := timeParts(r.Time)
		if _, err := ins.ExecContext(ctx, rid, id, r.ID, r.Label, sec, nsec, tz, r.seq, paths, len(r.low), h, r.packed); err != nil {
			return 0, err
		}
		if pre != nil {
			pre = append(pre, rid)
		} else {
			grams.add(rid, r.low)
		}
	}
	if pre != nil {
		grams.merge(j.index, pre)
	}
	j.index = nil
	for k, o := range old {
		if j.from != nil && keptBefore(k[:strings.IndexByte(k, 0)], j.from) {
			continue // before the point the read went on from
		}
		if err := remove(o); err != nil {
			return 0, err
		}
	}
	if !j.stored {
		if err := keepResume(ctx, tx, id, j); err != nil {
			return 0, err
		}
	}
	if err := writeAgg(ctx, tx, id, j.from != nil, &delta); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE src SET size = ?, mtime = ?, fp = ?, prompts = ?, nextn = ? WHERE id = ?",
		j.size, j.mtime, j.fp, j.info.prompts, nextn, id); err != nil {
		return 0, err
	}
	return id, nil
}

// recKey is a record's key in its source: its id and, for the records
// that share one (a turn's prompt and mid-turn words are all "u3"), the
// count of those before it.
func recKey(rid string, seen map[string]int) string {
	n := seen[rid]
	seen[rid] = n + 1
	return rid + "\x00" + strconv.Itoa(n)
}

// recHash identifies a record's content (everything but its order).
func recHash(r *Record) int64 {
	h := fnv.New64a()
	sec, nsec, tz := timeParts(r.Time)
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%s\x00%d\x00", r.Kind, r.Label, sec, nsec, tz, len(r.Paths))
	for _, p := range r.Paths {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	h.Write([]byte(r.Text))
	return int64(h.Sum64())
}

// timeParts and partsTime store a time with its zone: "" for the zero
// time, "Z" UTC, "L" local, else the zone's offset in seconds and name.
func timeParts(t time.Time) (sec int64, nsec int, tz string) {
	if t.IsZero() {
		return 0, 0, ""
	}
	switch t.Location() {
	case time.UTC:
		tz = "Z"
	case time.Local:
		tz = "L"
	default:
		name, off := t.Zone()
		tz = strconv.Itoa(off) + " " + name
	}
	return t.Unix(), t.Nanosecond(), tz
}

func partsTime(sec int64, nsec int, tz string) time.Time {
	switch tz {
	case "":
		return time.Time{}
	case "Z":
		return time.Unix(sec, int64(nsec)).UTC()
	case "L":
		return time.Unix(sec, int64(nsec)).In(time.Local)
	}
	off, name, _ := cutSpace(tz)
	o, _ := strconv.Atoi(off)
	return time.Unix(sec, int64(nsec)).In(time.FixedZone(name, o))
}

func cutSpace(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// writeAgg brings the source's counts by kind up to date: by delta after
// a read that went on from a point (the records it left are counted), else
// counted again.
func writeAgg(ctx context.Context, tx *sql.Tx, id int64, byDelta bool, delta *[8]struct{ n, sum int64 }) error {
	if !byDelta {
		if _, err := tx.ExecContext(ctx, "DELETE FROM agg WHERE src = ?", id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO agg(src, kind, n, sum) SELECT src, id & 7, count(*), sum(len) FROM rec WHERE src = ? GROUP BY id & 7", id)
		return err
	}
	for kind, d := range delta {
		if d.n == 0 && d.sum == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO agg(src, kind, n, sum) VALUES(?, ?, ?, ?) ON CONFLICT(src, kind) DO UPDATE SET n = n + excluded.n, sum = sum + excluded.sum",
			id, kind, d.n, d.sum); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM agg WHERE src = ? AND n <= 0", id)
	return err
}

// oldSpans are the ranges of order (seq) of the stored records a write of
// job j compares its records with: all of them, or after a read that went
// on from a point those it may have handed over again — the calls from the
// first it handed over that is before the point (one waiting there), the
// turns from the point's.
func oldSpans(j *job) [][2]int64 {
	if j.from == nil {
		return [][2]int64{{math.MinInt64, math.MaxInt64}}
	}
	lo := int64(j.from.Tools)
	for i := range j.recs {
		if r := &j.recs[i]; r.Kind == KindTool && r.seq < textSeq {
			lo = min(lo, int64(r.seq))
		}
	}
	return [][2]int64{{lo, textSeq}, {textSeq + int64(j.from.recs), math.MaxInt64}}
}
