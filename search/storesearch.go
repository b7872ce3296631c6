package search

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// zeroUnix is the zero time's Unix seconds: the store keeps 0 for it.
var zeroUnix = time.Time{}.Unix()

// search answers o from the store, after bringing it up to date: the same
// hits in the same order as the scan. The records holding every byte
// trigram of a term (of three bytes or more) hold all of its hits; those of
// every term are read once, for each term's record count and the hits. A
// shorter term, the file filter, or candidates that are most of the
// records anyway make it read every record of the scope.
func (s *Store) search(ctx context.Context, o Options) (*Result, error) {
	rdb, wdb, err := s.dbs(ctx)
	if err != nil {
		return nil, err
	}
	m := newMatcher(o)
	wantT, wantS := m.wants(KindPrompt, KindAssistant, KindTool), o.DB != nil && m.wants(KindObservation, KindSummary, KindPrompt)
	sc, err := s.update(ctx, rdb, wdb, o, wantT, wantS)
	if err != nil {
		return nil, err
	}
	res := &Result{Sessions: len(o.Sources), Notes: sc.notes}
	conn, err := rdb.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	srcs := make([]int64, 0, len(sc.session))
	for id := range sc.session {
		srcs = append(srcs, id)
	}
	srcJSON, _ := json.Marshal(srcs)
	var codes []int64
	for _, k := range Kinds {
		if m.kinds == nil || m.kinds[k] {
			codes = append(codes, kindCode(k))
		}
	}
	codeJSON, _ := json.Marshal(codes)
	args := []any{string(srcJSON), string(codeJSON)}
	const inScope = "(%[1]s >> 28) IN (SELECT value FROM json_each(?)) AND (%[1]s & 7) IN (SELECT value FROM json_each(?))"
	scope := func(col string) string {
		return strings.ReplaceAll(strings.ReplaceAll(inScope, "%[1]s", col), "28", strconv.Itoa(srcShift))
	}

	// The records searched: every one of the scope's kinds, or the tool
	// calls whose path input is the file.
	var n, sum int
	var allowed map[int64]bool
	cached := false
	if sc.counts != nil && m.file == "" {
		// The snapshot is of the state the cache holds: its counts.
		gen, err := readGen(ctx, tx)
		if err != nil {
			return nil, err
		}
		if cached = gen == sc.gen; cached {
			n, sum = sc.counts.scopeCounts(srcs, codes)
		}
	}
	if m.file == "" && !cached {
		err = tx.QueryRowContext(ctx, "SELECT coalesce(sum(n), 0), coalesce(sum(sum), 0) FROM agg WHERE src IN (SELECT value FROM json_each(?)) AND kind IN (SELECT value FROM json_each(?))",
			args...).Scan(&n, &sum)
		if err != nil {
			return nil, err
		}
	} else if m.file != "" {
		allowed = map[int64]bool{}
		rows, err := tx.QueryContext(ctx, "SELECT id, len, paths FROM rec WHERE "+scope("id")+" AND paths IS NOT NULL", args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var l int
			var pj string
			if err := rows.Scan(&id, &l, &pj); err != nil {
				rows.Close()
				return nil, err
			}
			var paths []string
			if json.Unmarshal([]byte(pj), &paths) == nil && matchesFile(paths, m.file) {
				allowed[id] = true
				n++
				sum += l
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}

	keepID := func(id int64) bool {
		return sc.session[id>>srcShift] != "" && (m.kinds == nil || m.kinds[Kinds[min(id&(1<<numShift-1), int64(len(Kinds)-1))]])
	}
	// A query of words only is answered from the postings, unless its
	// terms' records are few enough to read (then the trigram index finds
	// them faster than the vocabularies are read).
	words := allowed == nil && n > scanRecords && wordQuery(m)

	// The records to read: those holding every trigram of some term (a
	// superset of each term's records, so every term's record count and
	// every hit is among them), or every record when a term is shorter
	// than a trigram, the file filter applies, or the candidates are most
	// of the records anyway.
	var query string
	var qargs []any
	if allowed == nil {
		// Past a quarter of the records, reading them all in order is
		// about as fast as looking each one up.
		// A scope of few records (a session's) is read whole: the
		// trigram lists are the whole store's, and a common term's are
		// longer than the scope.
		var cands []int64
		narrow := n > scanRecords && (!words || wordConfirm >= 0)
		for i := 0; narrow && i < len(m.q.Terms); i++ {
			t := m.q.Terms[i]
			if len(t) < 3 {
				narrow = false
				break
			}
			limit := 0
			if words {
				limit = wordConfirm
			}
			ids, err := gramCandidates(ctx, tx, t, limit)
			if errors.Is(err, errManyCandidates) {
				narrow = false
				break
			}
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				if keepID(id) {
					cands = append(cands, id)
				}
			}
			slices.Sort(cands)
			cands = slices.Compact(cands)
			if len(cands) > n/4 || words && len(cands) > wordConfirm {
				narrow = false
				break
			}
		}
		if !narrow && words {
			return wordSearch(ctx, tx, m, sc, res, n, sum, o, keepID)
		}
		if narrow {
			idJSON, _ := json.Marshal(cands)
			query = "SELECT id, tsec, tnsec, tz, seq, len, text FROM rec WHERE id IN (SELECT value FROM json_each(?))"
			qargs = []any{string(idJSON)}
		}
	}
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	keep := max(o.Offset, 0) + limit
	top := &hitHeap{}
	offer := func(k hitKey) {
		k.session = sc.session[k.id>>srcShift]
		switch {
		case top.Len() < keep:
			heap.Push(top, k)
		case k.order((*top)[0]) < 0:
			(*top)[0] = k
			heap.Fix(top, 0)
		}
	}
	// One read of the records: each term's record count, and the hits
	// kept small (order, length and term counts) until the counts give
	// the scores.
	df := make([]int, len(m.terms))
	tf := make([]int, len(m.terms))
	// Hits are kept small until the counts give the scores: a word in
	// most records has hundreds of thousands.
	type hitRec struct {
		id, sec         int64
		nsec, seq, size int32
	}
	var hits []hitRec
	var tfs []int32
	each := func(k hitKey, low string) {
		all := true
		for i, t := range m.terms {
			if t.index(low) >= 0 {
				df[i]++
			} else {
				all = false
			}
		}
		if !all {
			return
		}
		for _, t := range m.excluded {
			if t.index(low) >= 0 {
				return
			}
		}
		hits = append(hits, hitRec{id: k.id, sec: k.sec, nsec: int32(k.nsec), seq: int32(k.seq), size: int32(len(low))})
		for _, t := range m.terms {
			tfs = append(tfs, int32(t.count(low)))
		}
	}
	if query != "" {
		err = eachRecord(ctx, tx, query, qargs, nil, each)
	} else {
		// Every record of the scope: each source's by its range of ids
		// (a scan of the whole table would read every source's).
		err = eachSourceRecord(ctx, tx, srcs, allowed, func(id int64) bool {
			return m.kinds == nil || m.kinds[Kinds[min(id&(1<<numShift-1), int64(len(Kinds)-1))]]
		}, each)
	}
	if err != nil {
		return nil, err
	}
	avg, idf := bm25Stats(n, sum, df)
	for h, r := range hits {
		for i := range tf {
			tf[i] = int(tfs[h*len(tf)+i])
		}
		offer(hitKey{id: r.id, sec: r.sec, nsec: int64(r.nsec), seq: int64(r.seq), score: bm25(idf, tf, int(r.size), avg)})
	}
	res.Total = len(hits)
	res.Records = n
	page := []hitKey(*top)
	slices.SortFunc(page, hitKey.order)
	if o.Offset >= len(page) {
		return res, nil
	}
	return res, pageHits(ctx, tx, res, page[max(o.Offset, 0):], m)
}

// pageHits adds the page's hits (their keys in order) to res, each with
// its snippet.
func pageHits(ctx context.Context, tx *sql.Tx, res *Result, page []hitKey, m *matcher) error {
	st, err := tx.PrepareContext(ctx, "SELECT rid, label, tsec, tnsec, tz, text FROM rec WHERE id = ?")
	if err != nil {
		return err
	}
	defer st.Close()
	for _, k := range page {
		var rid, label, tz string
		var packed []byte
		var sec int64
		var nsec int
		if err := st.QueryRowContext(ctx, k.id).Scan(&rid, &label, &sec, &nsec, &tz, &packed); err != nil {
			return err
		}
		text, low, err := unpackText(packed)
		if err != nil {
			return err
		}
		res.Hits = append(res.Hits, Hit{Session: k.session, ID: rid, Kind: Kinds[k.id&(1<<numShift-1)], Label: label,
			Time: partsTime(sec, nsec, tz), Snippet: snippet(text, low, m.q.Terms), Score: k.score, seq: int(k.seq)})
	}
	return nil
}

// wordConfirm is the most records holding a query's words that a search
// reads to confirm rather than counting the words' postings (below 0:
// none). The tests vary it, so that both ways answer.
var wordConfirm = 1000

// scanRecords is the most records a search reads whole rather than
// narrowing with the trigram index: a few milliseconds' work. (The tests
// set it to 0, so that their small stores are narrowed too.)
var scanRecords = 1000

// hitKey is what ranks a hit: its score, time, session and order.
type hitKey struct {
	id        int64
	score     float64
	sec       int64
	nsec, seq int64
	session   string
}

// order is the scan's order of hits: best first, ties newest first, then
// by session and order in the session. The scan's last key, the record's
// id, never decides: a session's records have distinct orders (its
// stored records come after its transcript's).
func (a hitKey) order(b hitKey) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.sec, a.sec), cmp.Compare(b.nsec, a.nsec),
		strings.Compare(a.session, b.session), cmp.Compare(a.seq, b.seq))
}

// hitHeap holds the best hits so far, the worst on top.
type hitHeap []hitKey

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h[i].order(h[j]) > 0 }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hitKey)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// eachSourceRecord hands f every record of the sources (by id) that keep
// accepts, and with allowed only those it holds, as eachRecord does.
func eachSourceRecord(ctx context.Context, tx *sql.Tx, srcs []int64, allowed map[int64]bool, keep func(int64) bool, f func(hitKey, string)) error {
	query := "SELECT id, tsec, tnsec, tz, seq, len, text FROM rec WHERE id >= ? AND id < ?"
	if allowed != nil {
		query += " AND paths IS NOT NULL"
	}
	st, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer st.Close()
	srcs = slices.Sorted(slices.Values(srcs))
	for _, id := range srcs {
		rows, err := st.QueryContext(ctx, id<<srcShift, (id+1)<<srcShift)
		if err != nil {
			return err
		}
		err = eachRow(rows, func(id int64) bool { return keep(id) && (allowed == nil || allowed[id]) }, f)
		if err != nil {
			return err
		}
	}
	return nil
}

// eachRecord runs query (selecting id, tsec, tnsec, tz, seq, len and
// text) and hands f each record's key and folded text, good only until f
// returns; with allowed, only the records it holds.
func eachRecord(ctx context.Context, tx *sql.Tx, query string, args []any, allowed map[int64]bool, f func(hitKey, string)) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	return eachRow(rows, func(id int64) bool { return allowed == nil || allowed[id] }, f)
}

// eachRow hands f the key and folded text of each of rows' records that
// keep accepts (before its text is decoded), and closes rows.
func eachRow(rows *sql.Rows, keep func(int64) bool, f func(hitKey, string)) error {
	defer rows.Close()
	var text sql.RawBytes
	var buf []byte
	for rows.Next() {
		var k hitKey
		var tz string
		var l int
		if err := rows.Scan(&k.id, &k.sec, &k.nsec, &tz, &k.seq, &l, &text); err != nil {
			return err
		}
		if !keep(k.id) {
			continue
		}
		if tz == "" {
			k.sec, k.nsec = zeroUnix, 0
		}
		low, _, nbuf, err := unpackLow(text, buf)
		if err != nil {
			return err
		}
		buf = nbuf
		f(k, unsafe.String(unsafe.SliceData(low), len(low)))
	}
	return rows.Err()
}
