package search

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strings"

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

// merge adds a segment's word row (ws) whose first record is ord in
// the batch; the batch's records so far are those before it.
func (wb *wordBatch) merge(ws *wordSeg, first int32) error {
	if wb.at == nil {
		wb.at = map[string]int32{}
	}
	for _, l := range ws.lens {
		wb.lens = binary.AppendUvarint(wb.lens, uint64(l))
	}
	wb.n = first + int32(len(ws.lens))
	post := ws.post
	voc := ws.voc
	for len(voc) > 0 {
		e := strings.IndexByte(voc, '\n')
		n, w := binary.Uvarint(post)
		if e < 0 || w <= 0 || n > uint64(len(post)-w) {
			return errGramRow
		}
		tok, list := voc[:e], post[w:w+int(n)]
		voc, post = voc[e+1:], post[w+int(n):]
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
			ord += int64(d)
			if ord >= int64(len(ws.lens)) {
				return errGramRow
			}
			wb.count(tok, first+int32(ord), uint32(c))
		}
	}
	return nil
}

// encode is the batch's vocabulary and postings as a segment's word row
// keeps them, and empties the batch.
func (wb *wordBatch) encode() (voc, post []byte) {
	slices.SortFunc(wb.toks, func(a, b wordList) int { return strings.Compare(a.tok, b.tok) })
	var v []byte
	p := binary.AppendUvarint(nil, uint64(wb.n))
	p = append(p, wb.lens...)
	for i := range wb.toks {
		l := &wb.toks[i]
		v = append(v, l.tok...)
		v = append(v, '\n')
		l.b = binary.AppendUvarint(l.b, uint64(l.cnt))
		p = binary.AppendUvarint(p, uint64(len(l.b)))
		p = append(p, l.b...)
	}
	wb.toks, wb.lens, wb.n = wb.toks[:0], wb.lens[:0], 0
	clear(wb.at)
	return packBlob(v), packBlob(p)
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
	voc  string
	lens []uint32
	post []byte // the lists, each behind its length
}

func decodeWordSeg(voc, post []byte) (wordSeg, error) {
	var ws wordSeg
	ws.voc = string(voc)
	n, w := binary.Uvarint(post)
	if w <= 0 || n > uint64(len(post)) {
		return ws, errGramRow
	}
	post = post[w:]
	ws.lens = make([]uint32, n)
	for i := range ws.lens {
		l, w := binary.Uvarint(post)
		if w <= 0 {
			return ws, errGramRow
		}
		ws.lens[i] = uint32(l)
		post = post[w:]
	}
	ws.post = post
	return ws, nil
}

// addTerm adds to tf[ord] the count of term in each record of the
// segment (tf has one entry per record).
func (ws *wordSeg) addTerm(term needle, tf []int32) error {
	post := ws.post
	tokens := 0 // the tokens before from, whose lists post has been moved past
	for from := 0; ; {
		i := strings.Index(ws.voc[from:], term.s)
		if i < 0 {
			return nil
		}
		at := from + i
		start := strings.LastIndexByte(ws.voc[from:at], '\n') + 1 + from
		end := at + strings.IndexByte(ws.voc[at:], '\n')
		if end < at {
			return errGramRow
		}
		k := tokens + strings.Count(ws.voc[from:start], "\n")
		occ := uint64(term.count(ws.voc[start:end]))
		// Past the lists of the tokens before this one.
		for ; tokens < k; tokens++ {
			n, w := binary.Uvarint(post)
			if w <= 0 || n > uint64(len(post)-w) {
				return errGramRow
			}
			post = post[w+int(n):]
		}
		n, w := binary.Uvarint(post)
		if w <= 0 || n > uint64(len(post)-w) {
			return errGramRow
		}
		list := post[w : w+int(n)]
		post = post[w+int(n):]
		tokens++
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
			ord += int64(d)
			if ord >= int64(len(tf)) {
				return errGramRow
			}
			tf[ord] += int32(c * occ)
		}
		from = end + 1
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
	// The segments holding a record of the scope.
	var segs []int64
	rows, err = tx.QueryContext(ctx, "SELECT id, rids FROM seg")
	if err != nil {
		return nil, nil, nil, err
	}
	var ids []int64
	for rows.Next() {
		var seg int64
		var rids sql.RawBytes
		if err := rows.Scan(&seg, &rids); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		if ids, err = decodeRids(rids, ids[:0]); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		if slices.ContainsFunc(ids, keep) {
			segs = append(segs, seg)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	st, err := tx.PrepareContext(ctx, "SELECT s.rids, w.voc, w.post FROM seg s, word w WHERE s.id = ? AND w.seg = s.id")
	if err != nil {
		return nil, nil, nil, err
	}
	defer st.Close()
	needles := append(append([]needle(nil), m.terms...), m.excluded...)
	df = make([]int, len(m.terms))
	var vbuf, pbuf []byte
	var tf [][]int32
	for _, seg := range segs {
		var rids, voc, post []byte
		if err := st.QueryRowContext(ctx, seg).Scan(&rids, &voc, &post); err != nil {
			return nil, nil, nil, err
		}
		if ids, err = decodeRids(rids, ids[:0]); err != nil {
			return nil, nil, nil, err
		}
		if vbuf, err = unpackBlob(voc, vbuf); err != nil {
			return nil, nil, nil, err
		}
		if pbuf, err = unpackBlob(post, pbuf); err != nil {
			return nil, nil, nil, err
		}
		ws, err := decodeWordSeg(vbuf, pbuf)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(ws.lens) != len(ids) {
			return nil, nil, nil, errGramRow
		}
		for len(tf) < len(needles) {
			tf = append(tf, nil)
		}
		for i, n := range needles {
			tf[i] = slices.Grow(tf[i][:0], len(ids))[:len(ids)]
			clear(tf[i])
			if err := ws.addTerm(n, tf[i]); err != nil {
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
	for _, q := range []string{"DELETE FROM rec WHERE src = ?", "DELETE FROM agg WHERE src = ?", "DELETE FROM src WHERE id = ?"} {
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
	scores := make([]float64, len(hits))
	tf := make([]int, len(m.terms))
	best := make(minFloats, 0, want)
	for h, r := range hits {
		for i := range tf {
			tf[i] = int(tfs[h*len(tf)+i])
		}
		scores[h] = bm25(idf, tf, int(r.size), avg)
		switch {
		case len(best) < want:
			heap.Push(&best, scores[h])
		case scores[h] > best[0]:
			best[0] = scores[h]
			heap.Fix(&best, 0)
		}
	}
	floor := math.Inf(-1)
	if len(best) == want {
		floor = best[0]
	}
	var ids []int64
	score := map[int64]float64{}
	for h, r := range hits {
		if scores[h] >= floor {
			ids = append(ids, r.id)
			score[r.id] = scores[h]
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

// minFloats is a heap of scores, the lowest on top.
type minFloats []float64

func (h minFloats) Len() int           { return len(h) }
func (h minFloats) Less(i, j int) bool { return h[i] < h[j] }
func (h minFloats) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minFloats) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *minFloats) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
