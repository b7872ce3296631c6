package search

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
)

// The store's index is a set of byte trigrams per record: a record whose
// folded text holds a folded term holds every three-byte run of the term,
// so the records holding all of a term's trigrams are a superset of its
// hits, which the search confirms by reading them. It keeps no positions
// and no counts: far smaller and faster to build than a positional index,
// and exact wherever it answers, since every answer is confirmed.
//
// Records are indexed in segments, one per batch the writer commits. A
// segment lists its records' ids (its ordinals are places in that list)
// and, per bucket of trigrams, one row holding each trigram's ordinals:
// a batch writes a few thousand rows, and a look-up reads one row per
// trigram and segment. A deleted record's ordinals stay behind; a search
// skips ids the store no longer holds.

// gramBuckets is how many rows a segment's trigrams are spread over.
const gramBuckets = 4096

func gramBucket(g uint32) int64 { return int64((g * 2654435761) >> 20) } // the top 12 bits of a multiplicative hash

// gramsOf appends the distinct trigrams of low to out; seen is a bit per
// trigram, clear on entry and on return.
func gramsOf(low string, seen []uint64, out []uint32) []uint32 {
	start := len(out)
	if len(low) < 3 {
		return out
	}
	g := uint32(low[0])<<8 | uint32(low[1])
	for i := 2; i < len(low); i++ {
		g = (g<<8 | uint32(low[i])) & 0xffffff
		if seen[g>>6]&(1<<(g&63)) == 0 {
			seen[g>>6] |= 1 << (g & 63)
			out = append(out, g)
		}
	}
	for _, g := range out[start:] {
		seen[g>>6] = 0
	}
	return out
}

// newGramSeen is the bit set gramsOf uses.
func newGramSeen() []uint64 { return make([]uint64, 1<<24/64) }

// gramBatch collects the trigrams of the records a batch writes.
type gramBatch struct {
	seen  []uint64 // for gramsOf
	grams []uint32 // a record's, reused
	rids  []int64
	bytes int              // the records' folded text
	at    map[uint32]int32 // a trigram's list in lists
	lists []gramList
	words wordBatch
}

type gramList struct {
	g    uint32
	last int32 // the last ordinal appended
	b    []byte
}

// add indexes record rid, whose folded text is low: its trigrams and its
// tokens. A fresh source's records are added to a batch of their own by
// the goroutine that read them (see indexFresh and merge): a batch keeps
// each trigram and token once, where a list per record would be larger
// than the record's text.
func (gb *gramBatch) add(rid int64, low string) {
	if gb.at == nil {
		gb.at = map[uint32]int32{}
		gb.seen = newGramSeen()
	}
	gb.grams = gramsOf(low, gb.seen, gb.grams[:0])
	grams := gb.grams
	ord := int32(len(gb.rids))
	gb.rids = append(gb.rids, rid)
	gb.bytes += len(low)
	gb.words.add(ord, low)
	for _, g := range grams {
		i, ok := gb.at[g]
		if !ok {
			i = int32(len(gb.lists))
			gb.at[g] = i
			gb.lists = append(gb.lists, gramList{g: g, last: -1})
		}
		l := &gb.lists[i]
		l.b = binary.AppendUvarint(l.b, uint64(ord-l.last))
		l.last = ord
	}
}

// flush writes the batch as a new segment in tx and empties it.
func (gb *gramBatch) flush(ctx context.Context, tx *sql.Tx) error {
	if len(gb.rids) == 0 {
		return nil
	}
	var rids []byte
	prev := int64(0)
	for _, id := range gb.rids {
		rids = binary.AppendVarint(rids, id-prev)
		prev = id
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO seg(rids, bytes) VALUES(?, ?)", rids, gb.bytes)
	if err != nil {
		return err
	}
	seg, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if err := gb.words.write(ctx, tx, seg); err != nil {
		return err
	}
	slices.SortFunc(gb.lists, func(a, b gramList) int {
		if d := gramBucket(a.g) - gramBucket(b.g); d != 0 {
			return int(d)
		}
		return int(a.g) - int(b.g)
	})
	ins, err := tx.PrepareContext(ctx, "INSERT INTO gram(bucket, seg, lists) VALUES(?, ?, ?)")
	if err != nil {
		return err
	}
	defer ins.Close()
	// A bucket's row: each trigram, the length of its list, the list.
	var row []byte
	for i := 0; i < len(gb.lists); {
		b := gramBucket(gb.lists[i].g)
		row = row[:0]
		for ; i < len(gb.lists) && gramBucket(gb.lists[i].g) == b; i++ {
			l := &gb.lists[i]
			row = binary.AppendUvarint(row, uint64(l.g))
			row = binary.AppendUvarint(row, uint64(len(l.b)))
			row = append(row, l.b...)
		}
		if _, err := ins.ExecContext(ctx, b, seg, row); err != nil {
			return err
		}
	}
	gb.rids, gb.lists, gb.bytes = gb.rids[:0], gb.lists[:0], 0
	clear(gb.at)
	return mergeTail(ctx, tx)
}

// Small segments (an appended turn's, a few records) are merged: once the
// newest tailSegs segments are each under smallSeg bytes of text, they
// become one, so a search looks trigrams up in a few segments per
// smallSeg of text written, however often the store was updated.
const (
	tailSegs = 16
	smallSeg = 1 << 20
)

// mergeTail merges the newest segments into one when tailSegs of them
// are small.
func mergeTail(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, rids, bytes FROM seg ORDER BY id DESC LIMIT ?", tailSegs)
	if err != nil {
		return err
	}
	type segRow struct {
		id    int64
		rids  []byte
		bytes int
	}
	var segs []segRow
	for rows.Next() {
		var r segRow
		if err := rows.Scan(&r.id, &r.rids, &r.bytes); err != nil {
			rows.Close()
			return err
		}
		if r.bytes >= smallSeg {
			break
		}
		segs = append(segs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(segs) < tailSegs {
		return nil
	}
	slices.Reverse(segs)
	// The merged segment's ids, and each old one's first ordinal in it.
	var merged gramBatch
	off := map[int64]int32{}
	var rids []byte
	prev, bytes := int64(0), 0
	for _, sg := range segs {
		off[sg.id] = int32(len(merged.rids))
		var id int64
		for b := sg.rids; len(b) > 0; {
			d, w := binary.Varint(b)
			if w <= 0 {
				return errGramRow
			}
			b = b[w:]
			id += d
			merged.rids = append(merged.rids, id)
			rids = binary.AppendVarint(rids, id-prev)
			prev = id
		}
		bytes += sg.bytes
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO seg(rids, bytes) VALUES(?, ?)", rids, bytes)
	if err != nil {
		return err
	}
	seg, err := res.LastInsertId()
	if err != nil {
		return err
	}
	first := segs[0].id
	if err := mergeWords(ctx, tx, segs[0].id, seg, off); err != nil {
		return err
	}
	q, err := tx.QueryContext(ctx, "SELECT bucket, seg, lists FROM gram WHERE seg >= ? AND seg < ? ORDER BY bucket, seg", first, seg)
	if err != nil {
		return err
	}
	defer q.Close()
	ins, err := tx.PrepareContext(ctx, "INSERT INTO gram(bucket, seg, lists) VALUES(?, ?, ?)")
	if err != nil {
		return err
	}
	defer ins.Close()
	// One bucket at a time: its rows' lists, shifted and concatenated in
	// segment order, so each stays increasing.
	lists := map[uint32][]int32{}
	bucket := int64(-1)
	put := func() error {
		if len(lists) == 0 {
			return nil
		}
		gs := slices.Sorted(maps.Keys(lists))
		var row []byte
		for _, g := range gs {
			var l []byte
			last := int32(-1)
			for _, o := range lists[g] {
				l = binary.AppendUvarint(l, uint64(o-last))
				last = o
			}
			row = binary.AppendUvarint(row, uint64(g))
			row = binary.AppendUvarint(row, uint64(len(l)))
			row = append(row, l...)
		}
		clear(lists)
		_, err := ins.ExecContext(ctx, bucket, seg, row)
		return err
	}
	for q.Next() {
		var b, sg int64
		var row sql.RawBytes
		if err := q.Scan(&b, &sg, &row); err != nil {
			return err
		}
		if b != bucket {
			if err := put(); err != nil {
				return err
			}
			bucket = b
		}
		o, ok := off[sg]
		if !ok {
			return errGramRow
		}
		err := eachGram(row, func(g uint32, list []byte) bool {
			for _, ord := range decodeOrds(list, nil) {
				lists[g] = append(lists[g], ord+o)
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	if err := q.Err(); err != nil {
		return err
	}
	if err := put(); err != nil {
		return err
	}
	q.Close()
	if _, err := tx.ExecContext(ctx, "DELETE FROM gram WHERE seg >= ? AND seg < ?", first, seg); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM word WHERE seg >= ? AND seg < ?", first, seg); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "DELETE FROM seg WHERE id >= ? AND id < ?", first, seg)
	return err
}

// mergeWords writes segment seg's word row and chunks: those of the
// segments from first up to it, each one's records shifted by its offset
// in off.
func mergeWords(ctx context.Context, tx *sql.Tx, first, seg int64, off map[int64]int32) error {
	rows, err := tx.QueryContext(ctx, "SELECT seg, voc FROM word WHERE seg >= ? AND seg < ? ORDER BY seg", first, seg)
	if err != nil {
		return err
	}
	type wordRow struct {
		seg int64
		voc []byte
	}
	var ws []wordRow
	for rows.Next() {
		var r wordRow
		if err := rows.Scan(&r.seg, &r.voc); err != nil {
			rows.Close()
			return err
		}
		ws = append(ws, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, "SELECT post FROM wpost WHERE id = ?")
	if err != nil {
		return err
	}
	defer st.Close()
	var wb wordBatch
	for _, r := range ws {
		o, ok := off[r.seg]
		if !ok {
			return errGramRow
		}
		v, err := unpackBlob(r.voc, nil)
		if err != nil {
			return err
		}
		w, err := decodeWordSeg(v)
		if err != nil {
			return err
		}
		err = wb.mergeSeg(&w, o, func(c int) ([]byte, error) {
			var raw []byte
			if err := st.QueryRowContext(ctx, r.seg<<chunkBits|int64(c)).Scan(&raw); err != nil {
				return nil, err
			}
			return unpackBlob(raw, nil)
		})
		if err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM wpost WHERE id >= ? AND id < ?", first<<chunkBits, seg<<chunkBits); err != nil {
		return err
	}
	return wb.write(ctx, tx, seg)
}

// errManyCandidates: a term's records are more than gramCandidates' limit.
var errManyCandidates = errors.New("more candidates than the limit")

// errGramRow: a row of the index does not decode.
var errGramRow = errors.New("search index: malformed trigram row")

// gramCandidates is the ids of the records holding every trigram of
// every one of terms (each folded, three bytes or more), in any order.
//
// With limit > 0, it gives up (errManyCandidates) once the records holding
// the term's rarest-looking trigram (by its bytes' ranks) are more than
// limit, before reading the other trigrams' lists.
func gramCandidates(ctx context.Context, tx *sql.Tx, term string, limit int) ([]int64, error) {
	var grams []uint32
	seen := map[uint32]bool{}
	for i := 2; i < len(term); i++ {
		g := uint32(term[i-2])<<16 | uint32(term[i-1])<<8 | uint32(term[i])
		if !seen[g] {
			seen[g] = true
			grams = append(grams, g)
		}
	}
	if limit > 0 {
		rank := func(g uint32) int { return byteRank(byte(g>>16)) + byteRank(byte(g>>8)) + byteRank(byte(g)) }
		slices.SortStableFunc(grams, func(a, b uint32) int { return rank(a) - rank(b) })
	}
	found := 0
	// Each segment's ordinals holding every trigram so far.
	var segs map[int64][]int32
	for k, g := range grams {
		rows, err := tx.QueryContext(ctx, "SELECT seg, lists FROM gram WHERE bucket = ?", gramBucket(g))
		if err != nil {
			return nil, err
		}
		next := map[int64][]int32{}
		for rows.Next() {
			var seg int64
			var row sql.RawBytes
			if err := rows.Scan(&seg, &row); err != nil {
				rows.Close()
				return nil, err
			}
			if k > 0 && segs[seg] == nil {
				continue
			}
			list, err := findGram(row, g)
			if err != nil {
				rows.Close()
				return nil, err
			}
			if list == nil {
				continue
			}
			ords := decodeOrds(list, nil)
			if k > 0 {
				ords = intersect(segs[seg], ords)
			} else if found += len(ords); limit > 0 && found > limit {
				rows.Close()
				return nil, errManyCandidates
			}
			if len(ords) > 0 {
				next[seg] = ords
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		segs = next
		if len(segs) == 0 {
			return nil, nil
		}
	}
	var ids []int64
	for seg, ords := range segs {
		var rids []byte
		if err := tx.QueryRowContext(ctx, "SELECT rids FROM seg WHERE id = ?", seg).Scan(&rids); err != nil {
			return nil, err
		}
		// Ordinals are increasing: decode the ids up to the last one.
		var id int64
		o := 0
		for n := int32(0); len(rids) > 0 && o < len(ords); n++ {
			d, w := binary.Varint(rids)
			if w <= 0 {
				return nil, errGramRow
			}
			rids = rids[w:]
			id += d
			if ords[o] == n {
				ids = append(ids, id)
				o++
			}
		}
	}
	return ids, nil
}

// findGram is g's list in a bucket's row (nil when absent).
func findGram(row []byte, g uint32) ([]byte, error) {
	var found []byte
	err := eachGram(row, func(h uint32, list []byte) bool {
		if h == g {
			found = list
			return false
		}
		return true
	})
	return found, err
}

// eachGram calls f with each trigram of a bucket's row and its list, until
// f returns false.
func eachGram(row []byte, f func(g uint32, list []byte) bool) error {
	for len(row) > 0 {
		g, w := binary.Uvarint(row)
		if w <= 0 {
			return errGramRow
		}
		row = row[w:]
		n, w := binary.Uvarint(row)
		if w <= 0 || n > uint64(len(row)-w) {
			return errGramRow
		}
		row = row[w:]
		if !f(uint32(g), row[:n]) {
			return nil
		}
		row = row[n:]
	}
	return nil
}

func decodeOrds(b []byte, out []int32) []int32 {
	last := int32(-1)
	for len(b) > 0 {
		d, w := binary.Uvarint(b)
		if w <= 0 {
			return out
		}
		b = b[w:]
		last += int32(d)
		out = append(out, last)
	}
	return out
}

// intersect is the ordinals in both increasing lists, in a (reused).
func intersect(a, b []int32) []int32 {
	out := a[:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// merge adds a batch a reading goroutine made of one source's records
// (their ordinals from 0, in order) to gb, under the ids they were written
// with: the work of finding trigrams and tokens is done beside the writer.
func (gb *gramBatch) merge(jb *gramBatch, rids []int64) {
	if gb.at == nil {
		gb.at = map[uint32]int32{}
		gb.seen = newGramSeen()
	}
	off := int32(len(gb.rids))
	gb.rids = append(gb.rids, rids...)
	gb.bytes += jb.bytes
	for _, jl := range jb.lists {
		l := slot(gb.at, &gb.lists, jl.g, func(g uint32) gramList { return gramList{g: g, last: -1} })
		d, w := binary.Uvarint(jl.b)
		l.b = binary.AppendUvarint(l.b, uint64(int32(d)-1+off-l.last))
		l.b = append(l.b, jl.b[w:]...)
		l.last = jl.last + off
	}
	gb.words.mergeBatch(&jb.words, off)
}

// indexFresh is the index batch of a fresh source's records (ordinals from
// 0), made by a reading goroutine; seen is its gramsOf bit set. (Their
// stored text is left to the writer, which has the time: the reading
// goroutine is the build's slower half.)
func indexFresh(recs []Record, seen []uint64) *gramBatch {
	jb := &gramBatch{at: map[uint32]int32{}, seen: seen}
	for i := range recs {
		jb.add(int64(i), recs[i].low)
	}
	return jb
}
