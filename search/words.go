package search

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

// Word postings answer a term made only of word bytes (letters, digits and
// every byte of a non-ASCII character) without reading records. Each of the
// term's occurrences in a folded text lies inside one maximal run of word
// bytes (a token), so its count in a record is the sum, over the record's
// tokens that hold it, of the token's count in the record times the term's
// count in the token (non-overlapping, as the scan counts): the scan's
// term frequency, exactly. A segment keeps, beside its trigrams, its
// vocabulary (each distinct token once) and, per token, the ordinals of
// the records holding it with their counts, and each record's folded
// length: a search finds the tokens holding a term in the vocabulary,
// adds their postings up into each record's term frequency and record
// count, and ranks without reading a record but the page's.

// wordByte marks the bytes tokens are made of.
var wordByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	return t
}()

// wordTerm reports whether postings can count t: it is made of word bytes
// only.
func wordTerm(t string) bool {
	for i := 0; i < len(t); i++ {
		if !wordByte[t[i]] {
			return false
		}
	}
	return t != ""
}

// wordBatch collects the tokens of the records a batch writes.
type wordBatch struct {
	at   map[string]int32 // a token's list in lists
	toks []wordList
	lens []byte // each record's folded length (uvarint)
	n    int32  // records added
}

type wordList struct {
	tok  string
	last int32 // the last ordinal appended
	cnt  uint32
	b    []byte // (ordinal delta, count) pairs; the last count is in cnt
}

// add counts the tokens of record ord, whose folded text is low.
func (wb *wordBatch) add(ord int32, low string) {
	if wb.at == nil {
		wb.at = map[string]int32{}
	}
	wb.lens = binary.AppendUvarint(wb.lens, uint64(len(low)))
	wb.n = ord + 1
	for i := 0; i < len(low); {
		if !wordByte[low[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(low) && wordByte[low[j]] {
			j++
		}
		wb.count(low[i:j], ord, 1)
		i = j
	}
}

// count adds n occurrences of tok in record ord (no lower than the last
// one given).
func (wb *wordBatch) count(tok string, ord int32, n uint32) {
	k, ok := wb.at[tok]
	if !ok {
		k = int32(len(wb.toks))
		tok = strings.Clone(tok) // not the record's text, which the batch must not keep
		wb.at[tok] = k
		wb.toks = append(wb.toks, wordList{tok: tok, last: -1})
	}
	l := &wb.toks[k]
	if l.last == ord {
		l.cnt += n
		return
	}
	if l.last >= 0 {
		l.b = binary.AppendUvarint(l.b, uint64(l.cnt))
	}
	l.b = binary.AppendUvarint(l.b, uint64(ord-l.last))
	l.last, l.cnt = ord, n
}

// mergeBatch adds a batch of records (ordinals from 0) made beside the
// writer, as records off on.
func (wb *wordBatch) mergeBatch(jb *wordBatch, off int32) {
	if wb.at == nil {
		wb.at = map[string]int32{}
	}
	wb.lens = append(wb.lens, jb.lens...)
	wb.n = off + jb.n
	for _, jl := range jb.toks {
		l := slot(wb.at, &wb.toks, jl.tok, func(tok string) wordList { return wordList{tok: tok, last: -1} })
		if l.last >= 0 {
			l.b = binary.AppendUvarint(l.b, uint64(l.cnt))
		}
		d, w := binary.Uvarint(jl.b)
		l.b = binary.AppendUvarint(l.b, uint64(int32(d)-1+off-l.last))
		l.b = append(l.b, jl.b[w:]...)
		l.last, l.cnt = jl.last+off, jl.cnt
	}
}

// merge adds a segment's word row (ws, its lists from post) whose first
// record is first in the batch; the batch's records so far are those
// before it.
func (wb *wordBatch) mergeSeg(ws *wordSeg, first int32, post func(chunk int) ([]byte, error)) error {
	if wb.at == nil {
		wb.at = map[string]int32{}
	}
	for _, l := range ws.lens {
		wb.lens = binary.AppendUvarint(wb.lens, uint64(l))
	}
	wb.n = first + int32(len(ws.lens))
	voc := ws.voc
	for c := range ws.starts {
		p, err := post(c)
		if err != nil {
			return err
		}
		for len(p) > 0 {
			e := strings.IndexByte(voc, '\n')
			n, w := binary.Uvarint(p)
			if e < 0 || w <= 0 || n > uint64(len(p)-w) {
				return errGramRow
			}
			tok, list := voc[:e], p[w:w+int(n)]
			voc, p = voc[e+1:], p[w+int(n):]
			err := eachPosting(list, len(ws.lens), func(ord int32, c uint64) {
				wb.count(tok, first+ord, uint32(c))
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// eachPosting calls f with each record (ordinal) of a token's list and the
// token's count in it; the ordinals must rise and stay below n.
func eachPosting(list []byte, n int, f func(ord int32, count uint64)) error {
	ord := int64(-1)
	for len(list) > 0 {
		d, w := binary.Uvarint(list)
		if w <= 0 {
			return errGramRow
		}
		c, w2 := binary.Uvarint(list[w:])
		if w2 <= 0 {
			return errGramRow
		}
		list = list[w+w2:]
		// Ordinals rise: a delta is at least 1 (the first from -1).
		if d == 0 || d > uint64(n) {
			return errGramRow
		}
		ord += int64(d)
		if ord >= int64(n) {
			return errGramRow
		}
		f(int32(ord), c)
	}
	return nil
}

// A segment's lists are cut into chunks of about chunkBytes, each its own
// row: a search reads the vocabulary and only the chunks holding the
// tokens it needs. (The tests make them small, so that segments have
// many.)
var chunkBytes = 32 << 10

const chunkBits = 20 // a chunk's row id: its segment << chunkBits | its number

// encode is the batch's word row (its records' lengths, where its chunks
// start and the vocabulary) and its chunks of lists, and empties the batch.
func (wb *wordBatch) encode() (voc []byte, chunks [][]byte) {
	slices.SortFunc(wb.toks, func(a, b wordList) int { return strings.Compare(a.tok, b.tok) })
	var starts []int
	var p []byte
	for i := range wb.toks {
		l := &wb.toks[i]
		l.b = binary.AppendUvarint(l.b, uint64(l.cnt))
		if i == 0 || len(p) >= chunkBytes {
			if i > 0 {
				chunks = append(chunks, packBlob(p))
			}
			starts = append(starts, i)
			p = p[:0]
		}
		p = binary.AppendUvarint(p, uint64(len(l.b)))
		p = append(p, l.b...)
	}
	if len(starts) > 0 {
		chunks = append(chunks, packBlob(p))
	}
	v := binary.AppendUvarint(nil, uint64(wb.n))
	v = append(v, wb.lens...)
	v = binary.AppendUvarint(v, uint64(len(starts)))
	last := 0
	for _, st := range starts {
		v = binary.AppendUvarint(v, uint64(st-last))
		last = st
	}
	for i := range wb.toks {
		v = append(v, wb.toks[i].tok...)
		v = append(v, '\n')
	}
	wb.toks, wb.lens, wb.n = wb.toks[:0], wb.lens[:0], 0
	clear(wb.at)
	return packBlob(v), chunks
}

// writeWords writes the batch as segment seg's word row and chunks.
func (wb *wordBatch) write(ctx context.Context, tx *sql.Tx, seg int64) error {
	voc, chunks := wb.encode()
	if _, err := tx.ExecContext(ctx, "INSERT INTO word(seg, voc) VALUES(?, ?)", seg, voc); err != nil {
		return err
	}
	for c, b := range chunks {
		if _, err := tx.ExecContext(ctx, "INSERT INTO wpost(id, post) VALUES(?, ?)", seg<<chunkBits|int64(c), b); err != nil {
			return err
		}
	}
	return nil
}

// packBlob is b S2-compressed behind a flag byte (see packText).
func packBlob(b []byte) []byte {
	out := make([]byte, 1+s2.MaxEncodedLen(len(b)))
	out[0] = packS2
	return out[:1+len(s2.Encode(out[1:], b))]
}

// unpackBlob is a blob packBlob made, decoded into buf's space.
func unpackBlob(b, buf []byte) ([]byte, error) {
	if len(b) == 0 || b[0] != packS2 {
		return nil, errPacked
	}
	n, err := s2.DecodedLen(b[1:])
	if err != nil {
		return nil, errPacked
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	out, err := s2.Decode(buf[:cap(buf)], b[1:])
	if err != nil {
		return nil, errPacked
	}
	return out, nil
}

// wordSeg is a segment's word row, decoded.
type wordSeg struct {
	voc    string   // the tokens, each ended by '\n'
	lens   []uint32 // each record's folded length
	starts []int    // each chunk's first token
}

func decodeWordSeg(b []byte) (wordSeg, error) {
	var ws wordSeg
	return ws, ws.decode(b)
}

// decode reads a word row into ws, reusing its slices; ws.voc is b's
// bytes, good until b changes.
func (ws *wordSeg) decode(b []byte) error {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return errGramRow
	}
	b = b[w:]
	ws.lens = slices.Grow(ws.lens[:0], int(n))[:n]
	for i := range ws.lens {
		l, w := binary.Uvarint(b)
		if w <= 0 {
			return errGramRow
		}
		ws.lens[i] = uint32(l)
		b = b[w:]
	}
	n, w = binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return errGramRow
	}
	b = b[w:]
	ws.starts = slices.Grow(ws.starts[:0], int(n))[:n]
	last := 0
	for i := range ws.starts {
		d, w := binary.Uvarint(b)
		if w <= 0 {
			return errGramRow
		}
		last += int(d)
		ws.starts[i] = last
		b = b[w:]
	}
	ws.voc = unsafe.String(unsafe.SliceData(b), len(b))
	return nil
}

// addTerm adds to tf[ord] the count of term in each record of the
// segment (tf has one entry per record); post reads a chunk of lists.
func (ws *wordSeg) addTerm(term needle, tf []int32, post func(chunk int) ([]byte, error)) error {
	tokens := 0 // the tokens before from
	chunk, at := -1, 0
	var p []byte // chunk's lists from token at
	for from := 0; ; {
		i := strings.Index(ws.voc[from:], term.s)
		if i < 0 {
			return nil
		}
		hit := from + i
		start := strings.LastIndexByte(ws.voc[from:hit], '\n') + 1 + from
		end := hit + strings.IndexByte(ws.voc[hit:], '\n')
		if end < hit {
			return errGramRow
		}
		k := tokens + strings.Count(ws.voc[from:start], "\n")
		occ := uint64(term.count(ws.voc[start:end]))
		if c := sort.SearchInts(ws.starts, k+1) - 1; c != chunk {
			if c < 0 {
				return errGramRow
			}
			var err error
			if p, err = post(c); err != nil {
				return err
			}
			chunk, at = c, ws.starts[c]
		}
		// Past the lists of the tokens before this one.
		for ; at <= k; at++ {
			n, w := binary.Uvarint(p)
			if w <= 0 || n > uint64(len(p)-w) {
				return errGramRow
			}
			if at == k {
				err := eachPosting(p[w:w+int(n)], len(tf), func(ord int32, c uint64) { tf[ord] += int32(c * occ) })
				if err != nil {
					return err
				}
			}
			p = p[w+int(n):]
		}
		tokens, from = k+1, end+1
	}
}

// wordHit is a record holding every term and no excluded one.
type wordHit struct {
	id   int64
	size int32
}

// wordHits counts, from the postings of the segments holding records
// keep accepts, each term's record count (df) and the hits with each
// one's term frequencies (len(m.terms) per hit in tfs). Records the store
// deleted are left out.
func wordHits(ctx context.Context, tx *sql.Tx, m *matcher, keep func(int64) bool) (df []int, hits []wordHit, tfs []int32, err error) {
	dead := map[int64]bool{}
	rows, err := tx.QueryContext(ctx, "SELECT id FROM dead")
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		dead[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	// The segments holding a record of the scope, with their ids and
	// vocabularies.
	type segWords struct {
		id        int64
		rids, voc []byte
	}
	var segs []segWords
	rows, err = tx.QueryContext(ctx, "SELECT s.id, s.rids, w.voc FROM seg s JOIN word w ON w.seg = s.id")
	if err != nil {
		return nil, nil, nil, err
	}
	var ids []int64
	for rows.Next() {
		var seg int64
		var rids, voc sql.RawBytes
		if err := rows.Scan(&seg, &rids, &voc); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		if ids, err = decodeRids(rids, ids[:0]); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		if slices.ContainsFunc(ids, keep) {
			segs = append(segs, segWords{id: seg, rids: slices.Clone(rids), voc: slices.Clone(voc)})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	st, err := tx.PrepareContext(ctx, "SELECT post FROM wpost WHERE id = ?")
	if err != nil {
		return nil, nil, nil, err
	}
	defer st.Close()
	needles := append(append([]needle(nil), m.terms...), m.excluded...)
	df = make([]int, len(m.terms))
	var vbuf []byte
	var tf [][]int32
	// A segment's chunks read so far, decoded into buffers kept from one
	// segment to the next.
	chunks := map[int][]byte{}
	var bufs [][]byte
	var ws wordSeg
	for _, sg := range segs {
		var err error
		if vbuf, err = unpackBlob(sg.voc, vbuf); err != nil {
			return nil, nil, nil, err
		}
		if err := ws.decode(vbuf); err != nil {
			return nil, nil, nil, err
		}
		if ids, err = decodeRids(sg.rids, ids[:0]); err != nil {
			return nil, nil, nil, err
		}
		if len(ws.lens) != len(ids) {
			return nil, nil, nil, errGramRow
		}
		clear(chunks)
		post := func(c int) ([]byte, error) {
			if b, ok := chunks[c]; ok {
				return b, nil
			}
			rows, err := st.QueryContext(ctx, sg.id<<chunkBits|int64(c))
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			if !rows.Next() {
				return nil, errors.Join(errGramRow, rows.Err())
			}
			var raw sql.RawBytes
			if err := rows.Scan(&raw); err != nil {
				return nil, err
			}
			k := len(chunks)
			if k == len(bufs) {
				bufs = append(bufs, nil)
			}
			b, err := unpackBlob(raw, bufs[k])
			if err != nil {
				return nil, err
			}
			if cap(b) > cap(bufs[k]) {
				bufs[k] = b
			}
			chunks[c] = b
			return b, nil
		}
		for len(tf) < len(needles) {
			tf = append(tf, nil)
		}
		for i, n := range needles {
			tf[i] = slices.Grow(tf[i][:0], len(ids))[:len(ids)]
			clear(tf[i])
			if err := ws.addTerm(n, tf[i], post); err != nil {
				return nil, nil, nil, err
			}
		}
	next:
		for o, id := range ids {
			if !keep(id) || dead[id] {
				continue
			}
			all := true
			for i := range m.terms {
				if tf[i][o] > 0 {
					df[i]++
				} else {
					all = false
				}
			}
			if !all {
				continue
			}
			for i := len(m.terms); i < len(needles); i++ {
				if tf[i][o] > 0 {
					continue next
				}
			}
			hits = append(hits, wordHit{id: id, size: int32(ws.lens[o])})
			for i := range m.terms {
				tfs = append(tfs, tf[i][o])
			}
		}
	}
	return df, hits, tfs, nil
}

// decodeRids appends a segment's record ids to out.
func decodeRids(b []byte, out []int64) ([]int64, error) {
	var id int64
	for len(b) > 0 {
		d, w := binary.Varint(b)
		if w <= 0 {
			return out, errGramRow
		}
		b = b[w:]
		id += d
		out = append(out, id)
	}
	return out, nil
}

// renumber deletes source id's records and row and gives the source a new
// id: record ids are never used twice, so the postings of a deleted
// record (in the dead table) never count for another.
func renumber(ctx context.Context, tx *sql.Tx, j *job, id int64) (int64, error) {
	for _, q := range []string{"DELETE FROM rec WHERE src = ?", "DELETE FROM agg WHERE src = ?", "DELETE FROM resume WHERE src = ?", "DELETE FROM src WHERE id = ?"} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return 0, err
		}
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO src(key, session) VALUES(?, ?)", j.key, j.session)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// wordQuery reports whether postings answer m: every term and excluded
// term is a word term.
func wordQuery(m *matcher) bool {
	for _, t := range append(append([]needle(nil), m.terms...), m.excluded...) {
		if !wordTerm(t.s) {
			return false
		}
	}
	return true
}

// wordSearch answers a search of n records (of total length sum) from the
// postings: exact counts and scores for every hit, the time and order of
// only the best ones (those scoring at least the page's last), and the
// text of only the page's.
func wordSearch(ctx context.Context, tx *sql.Tx, m *matcher, sc *scoped, res *Result, n, sum int, o Options, keep func(int64) bool) (*Result, error) {
	df, hits, tfs, err := wordHits(ctx, tx, m, keep)
	if err != nil {
		return nil, err
	}
	res.Total, res.Records = len(hits), n
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	want := max(o.Offset, 0) + limit
	if o.Offset >= len(hits) {
		return res, nil
	}
	avg, idf := bm25Stats(n, sum, df)
	tf := make([]int, len(m.terms))
	// Scores are worked out twice rather than kept: a word in most
	// records has a million hits.
	scoreOf := func(h int) float64 {
		for i := range tf {
			tf[i] = int(tfs[h*len(tf)+i])
		}
		return bm25(idf, tf, int(hits[h].size), avg)
	}
	// The page's last score: the lowest of the want best (hitHeap holds
	// keys of scores alone here).
	best := make(hitHeap, 0, want)
	for h := range hits {
		switch v := scoreOf(h); {
		case len(best) < want:
			heap.Push(&best, hitKey{score: v})
		case v > best[0].score:
			best[0].score = v
			heap.Fix(&best, 0)
		}
	}
	floor := math.Inf(-1)
	if len(best) == want {
		floor = best[0].score
	}
	var ids []int64
	score := map[int64]float64{}
	for h, r := range hits {
		if v := scoreOf(h); v >= floor {
			ids = append(ids, r.id)
			score[r.id] = v
		}
	}
	idJSON, _ := json.Marshal(ids)
	rows, err := tx.QueryContext(ctx, "SELECT id, tsec, tnsec, tz, seq FROM rec WHERE id IN (SELECT value FROM json_each(?))", string(idJSON))
	if err != nil {
		return nil, err
	}
	var keys []hitKey
	for rows.Next() {
		var k hitKey
		var tz string
		if err := rows.Scan(&k.id, &k.sec, &k.nsec, &tz, &k.seq); err != nil {
			rows.Close()
			return nil, err
		}
		if tz == "" {
			k.sec, k.nsec = zeroUnix, 0
		}
		k.score, k.session = score[k.id], sc.session[k.id>>srcShift]
		keys = append(keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(keys, hitKey.order)
	keys = keys[:min(len(keys), want)]
	if o.Offset >= len(keys) {
		return res, nil
	}
	return res, pageHits(ctx, tx, res, keys[max(o.Offset, 0):], m)
}

// slot is key's entry in list (at holds where each key's is), appended as
// mk makes it when key has none yet.
func slot[K comparable, T any](at map[K]int32, list *[]T, key K, mk func(K) T) *T {
	i, ok := at[key]
	if !ok {
		i = int32(len(*list))
		at[key] = i
		*list = append(*list, mk(key))
	}
	return &(*list)[i]
}
