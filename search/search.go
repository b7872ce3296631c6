package search

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"bottle/claudemem"
	"bottle/host/claudecode/transcript"
	"bottle/locate"
	"bottle/session"
)

// Limits of a page of hits.
const (
	DefaultLimit = 20
	MaxLimit     = 200
)

// Source is one session to search.
type Source struct {
	ID string
	// Transcript is the session's transcript ("" when it has none).
	Transcript string
	// Read reads Transcript: the host's reader (nil: Claude Code's). A
	// source of another host plugs in here; search needs nothing else of
	// it.
	Read session.Reader
	// Size and Modified are Transcript's stamp when the scope's listing
	// read it (a zero Modified: the store stats the file).
	Size     int64
	Modified time.Time
}

// wants reports whether a search of sources with in-memory index ix goes
// through the store. A scope holding a transcript over maxCachedFile is
// scanned, as without a store: reading one into the store holds its
// records in memory (hundreds of MB for a 400 MB transcript), and the scan
// streams it in bounded memory. A scope small enough for ix
// (MemoryBytes) is searched there.
func (s *Store) wants(ix *Index, sources []Source) bool {
	total, huge := scopeBytes(sources)
	if huge {
		return false
	}
	return ix == nil || s.MemoryBytes <= 0 || total > s.MemoryBytes || !ix.isWarm(sources)
}

// scopeBytes is the size of sources' transcripts; huge says one is over
// maxCachedFile.
func scopeBytes(sources []Source) (total int64, huge bool) {
	for _, src := range sources {
		if src.Transcript == "" {
			continue
		}
		n := src.Size
		if src.Modified.IsZero() {
			fi, err := os.Stat(src.Transcript)
			if err != nil {
				continue // the store and the scan both say it cannot be read
			}
			n = fi.Size()
		}
		if n > maxCachedFile {
			return total, true
		}
		total += n
	}
	return total, false
}

// reader is src's transcript reader.
func (src Source) reader() session.Reader {
	if src.Read != nil {
		return src.Read
	}
	return transcript.Read
}

// Options say what [Search] looks for, and where.
type Options struct {
	Query   Query
	Sources []Source
	// DB is claude-mem's database, open; nil searches transcripts only.
	DB *claudemem.DB
	// DBPath names the database, for the index's change check.
	DBPath string
	// Kinds limits the records searched (nil: every kind).
	Kinds []Kind
	// File, when set, limits the search to tool calls whose path input is
	// File or ends with it at a path separator.
	File string
	// Limit and Offset select the page of hits (Limit 0: DefaultLimit).
	Limit, Offset int
	// Own names the tool calls that read bottle's own records.
	Own Own
	// Store, when set, answers the search (see [Store]); when it cannot,
	// the sources are scanned.
	Store *Store
	// streamAbove is the size over which a transcript is streamed
	// (0: maxCachedFile); tests lower it, to stream small ones.
	streamAbove int64
}

// Own names the tool calls that read bottle's own records: a Read of a
// file in the bottles folder, and bottle's own tools. Their results are
// copies of the session's record (a bottle, a page of one, search hits,
// expanded records), so only their inputs are searched: otherwise every
// compaction would add another copy of the bottle to the hits.
type Own struct {
	// BottlesDir is the bottles folder ("": no Read is bottle's own).
	BottlesDir string
	// Tools are bottle's tools as the model calls them, every install's
	// names.
	Tools []string
}

// ownRules are Own, ready to apply: the folder cleaned and with its
// symlinks resolved, the tools as a set.
type ownRules struct {
	dirs  []string
	tools map[string]bool
	k     string
}

func newOwnRules(o Own) *ownRules {
	r := &ownRules{tools: map[string]bool{}}
	if o.BottlesDir != "" && filepath.IsAbs(o.BottlesDir) {
		d := filepath.Clean(o.BottlesDir)
		r.dirs = append(r.dirs, d)
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			r.dirs = append(r.dirs, real)
		}
	}
	for _, t := range o.Tools {
		r.tools[t] = true
	}
	names := slices.Sorted(maps.Keys(r.tools))
	r.k = strings.Join(r.dirs, "\x00") + "\x01" + strings.Join(names, "\x00")
	return r
}

// key identifies the rules, for the index.
func (r *ownRules) key() string {
	if r == nil {
		return ""
	}
	return r.k
}

// reads reports whether a call of tool with the path inputs paths read
// bottle's own records: one of bottle's tools, or a Read of a file in the
// bottles folder (the path as given, cleaned: the file may be gone since).
func (r *ownRules) reads(tool string, paths []string) bool {
	if r == nil {
		return false
	}
	if r.tools[tool] {
		return true
	}
	if tool != "Read" {
		return false
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		for _, d := range r.dirs {
			if rel, err := filepath.Rel(d, p); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

// Hit is one record that matched, without its text.
type Hit struct {
	Session, ID string
	Kind        Kind
	Label       string
	Time        time.Time
	// Snippet is at most SnippetChars characters of the record around its
	// first match, on one line, the match between « and ».
	Snippet string
	Score   float64
	seq     int
	// text and low are kept until the page's snippets are made; a hit of a
	// streamed source has its snippet at once.
	text, low string
}

// Result is one page of hits.
type Result struct {
	Hits []Hit
	// Total counts every hit of the query; Records the records searched
	// (after the kinds and file filters); Sessions the sessions read.
	Total, Records, Sessions int
	// Notes name sources that could not be read (the others were searched).
	Notes []string
}

// Search runs a query over o.Sources: every record of each (see the package
// comment), filtered by kinds and file, ranked, and cut to the page. With
// ix, records come from (and go into) the index. A source that cannot be
// read is named in Result.Notes; the error is for a cancelled context.
func Search(ctx context.Context, ix *Index, o Options) (*Result, error) {
	if len(o.Query.Terms) == 0 {
		return nil, ErrEmptyQuery
	}
	if o.Store != nil && o.Store.wants(ix, o.Sources) {
		res, err := o.Store.search(ctx, o)
		if err == nil {
			ix.warm(o, o.Store.MemoryBytes)
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, errBuilding) {
			o.Store.broken(err)
			o.Store.log("search index %s: %v: searched the sources instead", o.Store.path, err)
		}
	}
	return scan(ctx, ix, o)
}

// scan is Search without the store: every record of each source, from ix
// where it holds them.
func scan(ctx context.Context, ix *Index, o Options) (*Result, error) {
	m := newMatcher(o)
	res := &Result{}
	var dbst stamp
	if ix != nil && o.DB != nil {
		dbst = ix.checkDB(o.DBPath)
	}
	wantT, wantS := m.wants(KindPrompt, KindAssistant, KindTool), o.DB != nil && m.wants(KindObservation, KindSummary, KindPrompt)
	if ix != nil {
		ix.prefetch(ctx, o, m.own, dbst, wantT && len(o.Sources) > 1, wantS)
	}
	notes, err := feed(ctx, ix, o, m, dbst, wantT, wantS)
	if err != nil {
		return nil, err
	}
	res.Sessions, res.Notes = len(o.Sources), notes
	res.Records, res.Total = m.n, m.total
	limit := o.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if m.overflow {
		// Too many hits to keep: the sources are read again, the
		// statistics known, keeping only the best offset+limit hits.
		// When the first reading logged every hit, the best are known
		// already (and ties with the last of them): the second reading
		// builds only their records, from only their sources.
		top := newMatcher(o)
		top.top = &topHits{k: max(o.Offset, 0) + limit}
		top.top.avg, top.top.idf = bm25Stats(m.n, m.sum, m.df)
		if m.log != nil {
			top.keep, top.keepSrc = m.log.best(top.top)
		}
		if _, err := feed(ctx, ix, o, top, dbst, wantT, wantS); err != nil {
			return nil, err
		}
		m.hits = top.top.sorted()
	} else {
		m.rank()
	}
	if o.Offset < len(m.hits) {
		res.Hits = m.hits[max(o.Offset, 0):min(max(o.Offset, 0)+limit, len(m.hits))]
	}
	for i := range res.Hits {
		h := &res.Hits[i]
		if h.Snippet == "" {
			h.Snippet = snippet(h.text, h.low, o.Query.Terms)
		}
		h.text, h.low = "", ""
	}
	return res, nil
}

// feed hands every record of o's sources to m; notes name the sources
// that could not be read.
func feed(ctx context.Context, ix *Index, o Options, m *matcher, dbst stamp, wantT, wantS bool) (notes []string, err error) {
	for i, src := range o.Sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if m.keep != nil && !m.keepSrc[i] {
			continue
		}
		m.src = i
		if src.Transcript != "" && wantT {
			if err := ix.transcript(ctx, src, m); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				notes = append(notes, fmt.Sprintf("session %s: %v", src.ID, err))
			}
		}
		if wantS {
			if err := ix.storedRecs(ctx, o.DB, dbst, src, m.add); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				notes = append(notes, fmt.Sprintf("session %s: claude-mem's database: %v", src.ID, err))
			}
		}
	}
	return notes, nil
}

// maxHits is how many hits a scan keeps (about 150 bytes each, and a
// snippet) before it stops keeping them and reads its sources a second
// time for the page alone: a word found in most records of a thousand
// sessions would otherwise hold hundreds of MB.
var maxHits = 10_000

// topHits keeps the best k hits of a second reading, scored with the
// first reading's statistics, in the order rank sorts.
type topHits struct {
	k   int
	avg float64
	idf []float64
	h   []Hit // a heap: the worst kept hit first
}

// worse orders hits as rank does, best last.
func worse(a, b Hit) int {
	return cmp.Or(cmp.Compare(a.Score, b.Score), a.Time.Compare(b.Time), strings.Compare(b.Session, a.Session),
		cmp.Compare(b.seq, a.seq), strings.Compare(b.ID, a.ID))
}

func (t *topHits) Len() int           { return len(t.h) }
func (t *topHits) Less(i, j int) bool { return worse(t.h[i], t.h[j]) < 0 }
func (t *topHits) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topHits) Push(x any)         { t.h = append(t.h, x.(Hit)) }
func (t *topHits) Pop() any {
	x := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return x
}

// offer keeps h when it is among the best k so far; snip makes its
// snippet, only then.
func (t *topHits) offer(h Hit, snip func() string) {
	if len(t.h) >= t.k {
		if t.k == 0 || worse(h, t.h[0]) <= 0 {
			return
		}
		h.Snippet = snip()
		t.h[0] = h
		heap.Fix(t, 0)
		return
	}
	h.Snippet = snip()
	heap.Push(t, h)
}

// sorted are the kept hits, best first.
func (t *topHits) sorted() []Hit {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b Hit) int { return worse(b, a) })
	return out
}

// matcher collects the hits of a query and the statistics BM25 needs.
type matcher struct {
	q               Query
	terms, excluded []needle
	kinds           map[Kind]bool // nil: all
	file            string
	eager           bool  // make snippets as hits come (the records are not kept)
	streamAbove     int64 // Options.streamAbove
	own             *ownRules
	n               int // records searched
	sum             int // their folded length
	df              []int
	hits            []Hit
	// tf and lens of the hits, for scoring at the end.
	tf   [][]int
	lens []int
	// total counts the hits; overflow says more than maxHits came, and
	// hits were no longer kept.
	total    int
	overflow bool
	// top, on a second reading, keeps only the page's hits.
	top *topHits
	// src is the place in the search's sources of the one being read.
	src int
	// log holds every hit of a first reading (nil once it held too many).
	log *hitLog
	// keep, on a second reading, names the only hits that can be on the
	// page, and keepSrc their sources (nil: every hit can be).
	keep    map[srcSeq]bool
	keepSrc map[int]bool
}

// srcSeq names a record of a search: its source's place in the search's
// list and its seq.
type srcSeq struct{ src, seq int }

// loggedHit is what a first reading logs of a hit: enough to score and
// order it once the statistics are known.
type loggedHit struct {
	key     srcSeq
	n       int // folded length
	tf      int // where its term counts start in the log's tfs
	session string
	time    time.Time
}

// hitLog is every hit of a first reading, up to maxLogged.
type hitLog struct {
	hits []loggedHit
	tfs  []int
}

// maxLogged bounds a hit log (about 80 bytes a hit, 5 MB in all, under
// the server's 64 MB): beyond it, a second reading builds every record
// again.
var maxLogged = 1 << 16

// best are the keys of the logged hits that can be among t's best k (the
// best k, and any that tie with the last of them on what the log knows),
// and their sources.
func (l *hitLog) best(t *topHits) (map[srcSeq]bool, map[int]bool) {
	terms := len(l.tfs) / max(len(l.hits), 1)
	hit := func(h *loggedHit) Hit {
		return Hit{Score: bm25(t.idf, l.tfs[h.tf:h.tf+terms], h.n, t.avg), Session: h.session, Time: h.time, seq: h.key.seq}
	}
	sel := &topHits{k: t.k}
	for i := range l.hits {
		sel.offer(hit(&l.hits[i]), func() string { return "" })
	}
	keep, srcs := map[srcSeq]bool{}, map[int]bool{}
	for i := range l.hits {
		h := &l.hits[i]
		if len(sel.h) < t.k || worse(hit(h), sel.h[0]) >= 0 {
			keep[h.key], srcs[h.key.src] = true, true
		}
	}
	return keep, srcs
}

// keepSeq is the filter of the records a reading of the current source
// builds: nil, all of them, or on a second reading those keep names.
func (m *matcher) keepSeq() func(seq int) bool {
	if m.keep == nil {
		return nil
	}
	src := m.src
	return func(seq int) bool { return m.keep[srcSeq{src, seq}] }
}

func newMatcher(o Options) *matcher {
	m := &matcher{q: o.Query, df: make([]int, len(o.Query.Terms)), own: newOwnRules(o.Own), streamAbove: cmp.Or(o.streamAbove, maxCachedFile),
		log: &hitLog{}}
	for _, t := range o.Query.Terms {
		m.terms = append(m.terms, newNeedle(t))
	}
	for _, t := range o.Query.Excluded {
		m.excluded = append(m.excluded, newNeedle(t))
	}
	if len(o.Kinds) > 0 {
		m.kinds = map[Kind]bool{}
		for _, k := range o.Kinds {
			m.kinds[k] = true
		}
	}
	if o.File != "" {
		m.file = filepath.ToSlash(filepath.Clean(o.File))
		m.kinds = map[Kind]bool{KindTool: true}
	}
	return m
}

// wants reports whether any of kinds is searched.
func (m *matcher) wants(kinds ...Kind) bool {
	if m.kinds == nil {
		return true
	}
	for _, k := range kinds {
		if m.kinds[k] {
			return true
		}
	}
	return false
}

func (m *matcher) add(r Record) {
	if m.kinds != nil && !m.kinds[r.Kind] || m.file != "" && !matchesFile(r.Paths, m.file) {
		return
	}
	if m.keep != nil && !m.keep[srcSeq{m.src, r.seq}] {
		return
	}
	m.n++
	m.sum += len(r.low)
	all := true
	for i, t := range m.terms {
		if t.index(r.low) >= 0 {
			m.df[i]++
		} else {
			all = false
		}
	}
	if !all {
		return
	}
	for _, t := range m.excluded {
		if t.index(r.low) >= 0 {
			return
		}
	}
	m.total++
	tf := make([]int, len(m.q.Terms))
	for i, t := range m.terms {
		tf[i] = t.count(r.low)
	}
	if m.log != nil && m.top == nil {
		if len(m.log.hits) < maxLogged {
			m.log.hits = append(m.log.hits, loggedHit{key: srcSeq{m.src, r.seq}, n: len(r.low), tf: len(m.log.tfs), session: r.Session, time: r.Time})
			m.log.tfs = append(m.log.tfs, tf...)
		} else {
			m.log = nil
		}
	}
	h := Hit{Session: r.Session, ID: r.ID, Kind: r.Kind, Label: r.Label, Time: r.Time, seq: r.seq}
	if m.top != nil {
		h.Score = bm25(m.top.idf, tf, len(r.low), m.top.avg)
		m.top.offer(h, func() string { return snippet(r.Text, r.low, m.q.Terms) })
		return
	}
	if m.overflow || len(m.hits) >= maxHits {
		m.overflow, m.hits, m.tf, m.lens = true, nil, nil, nil
		return
	}
	// The first hits keep their record's text, for the page's snippets;
	// later ones get theirs at once, so that a word found in most records
	// does not keep every record's text alive.
	if m.eager || len(m.hits) >= keepText {
		h.Snippet = snippet(r.Text, r.low, m.q.Terms)
	} else {
		h.text, h.low = r.Text, r.low
	}
	m.hits = append(m.hits, h)
	m.tf = append(m.tf, tf)
	m.lens = append(m.lens, len(r.low))
}

// keepText is how many hits keep their record's text until the page is
// cut.
const keepText = 1024

// BM25's parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rank scores the hits by BM25 and sorts them: best first, ties newest
// first, then by session and file order.
func (m *matcher) rank() {
	if len(m.hits) == 0 {
		return
	}
	avg, idf := bm25Stats(m.n, m.sum, m.df)
	for h := range m.hits {
		m.hits[h].Score = bm25(idf, m.tf[h], m.lens[h], avg)
	}
	slices.SortStableFunc(m.hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), b.Time.Compare(a.Time), strings.Compare(a.Session, b.Session),
			cmp.Compare(a.seq, b.seq), strings.Compare(a.ID, b.ID))
	})
}

// bm25Stats are the average record length and the terms' idf over n
// records of total length sum, df[i] of which hold term i.
func bm25Stats(n, sum int, df []int) (avg float64, idf []float64) {
	avg = float64(sum) / float64(max(n, 1))
	idf = make([]float64, len(df))
	for i, d := range df {
		idf[i] = math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5))
	}
	return avg, idf
}

// bm25 is the score of a record of length n holding term i tf[i] times.
func bm25(idf []float64, tf []int, n int, avg float64) float64 {
	norm := bm25K1 * (1 - bm25B + bm25B*float64(n)/max(avg, 1))
	s := 0.0
	for i, t := range tf {
		f := float64(t)
		s += idf[i] * f * (bm25K1 + 1) / (f + norm)
	}
	// Rounded, so that scores equal in all but float noise tie.
	return math.Round(s*1e9) / 1e9
}

// matchesFile reports whether a path input is file or ends with /file
// (file cleaned, with forward slashes).
func matchesFile(paths []string, file string) bool {
	for _, p := range paths {
		p = filepath.ToSlash(filepath.Clean(p))
		if p == file || strings.HasSuffix(p, "/"+file) || !filepath.IsAbs(p) && strings.HasSuffix(file, "/"+p) {
			return true
		}
	}
	return false
}

// ScopeSources lists the sessions of a scope wider than one session:
// "project", every session of the project at cwd ([locate.SessionsWith]);
// "all", every project's ([locate.AllSessions]; from ix.Listing when
// set). The sessions claude-mem
// alone holds come from db (nil: none), listed once per state of the
// database at dbPath when ix is set. Transcripts come from
// <config>/projects/ only (regular files directly in a project folder),
// and the other hosts' sessions from their own folders
// ([locate.OtherHostSessions]: of the folder, or every one), each read by
// its host's reader.
func (ix *Index) ScopeSources(ctx context.Context, env locate.Env, db *claudemem.DB, dbPath, scope, cwd string) []Source {
	project := ""
	if scope == "project" {
		project = locate.ClaudeMemProject(cwd)
	}
	var stored []claudemem.SessionInfo
	if db != nil {
		stored = ix.storedSessions(ctx, db, dbPath, project)
	}
	var refs []locate.SessionRef
	var w *locate.Watch
	if ix != nil {
		w = ix.Listing
	}
	switch {
	case scope == "project" && w != nil:
		refs = w.SessionsWith(stored, cwd)
	case scope == "project":
		refs = locate.SessionsWith(env, stored, cwd)
	case w != nil:
		refs = w.AllSessions(stored)
	default:
		refs = locate.AllSessions(env, stored)
	}
	out := make([]Source, len(refs))
	seen := make(map[string]bool, len(refs))
	for i, r := range refs {
		out[i] = Source{ID: r.ID, Transcript: r.Transcript}
		if r.Transcript != "" {
			out[i].Size, out[i].Modified = r.Size, r.Modified
		}
		seen[r.ID] = true
	}
	// The other hosts' sessions of the folder, or every one; an id a
	// Claude Code session has is that session's, as everywhere.
	folder := cwd
	if scope != "project" {
		folder = ""
	}
	for _, r := range locate.OtherHostSessions(env, folder) {
		if !seen[r.ID] {
			out = append(out, Source{ID: r.ID, Transcript: r.Transcript, Read: locate.ReaderFor(r.Transcript), Size: r.Size, Modified: r.Modified})
		}
	}
	return out
}

// errStale: a source changed while it was read.
var errStale = errors.New("changed while it was read")
