package search

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"bottle/session"
)

// A transcript source's fp in the store is the key of the rules for
// bottle's own reads it was read with, then how its read ended: how many
// tool calls the read handed over with their results, and the file's
// identity. A transcript that only grew since (same identity, larger) is
// read again with its first calls marked same (transcriptRecordsFrom):
// their records are kept, not built again.
const fpSep = "\x02"

// transcriptFP is the fp of a transcript read with the rules key own,
// results calls handed over with their results, the file identified by
// ident.
func transcriptFP(own string, results int, ident string) string {
	return own + fpSep + strconv.Itoa(results) + fpSep + ident
}

// ownPart is the rules key of a transcript's fp.
func ownPart(fp string) string {
	own, _, _ := strings.Cut(fp, fpSep)
	return own
}

// knownResults is how many calls with results a read of the transcript at
// path may take as known: those of the read fp records, when the file is
// the same one (identity) and the read was made with the rules own; else 0.
func knownResults(fp, own, path string) int {
	n, _ := sameFile(fp, own, path)
	return n
}

// sameFile reports whether the transcript at path is the file the read fp
// records read (its identity) with the rules own, and how many calls with
// results that read handed over.
func sameFile(fp, own, path string) (int, bool) {
	k, rest, ok := strings.Cut(fp, fpSep)
	if !ok || k != own {
		return 0, false
	}
	n, ident, ok := strings.Cut(rest, fpSep)
	results, err := strconv.Atoi(n)
	if !ok || err != nil || results < 0 {
		return 0, false
	}
	var head int64
	if i := strings.LastIndexByte(ident, '.'); i > 0 {
		if j := strings.LastIndexByte(ident[:i], '.'); j > 0 {
			head, _ = strconv.ParseInt(ident[j+1:i], 10, 64)
		}
	}
	if now, err := fileIdent(path, head); err != nil || now != ident {
		return 0, false
	}
	return results, true
}

// identHead is how many of a transcript's first bytes its identity hashes.
const identHead = 4096

// fileIdent identifies the file at path: its device and inode, and a hash
// of its first head bytes (head < 0: the first identHead bytes, or all of
// a shorter file). A file replaced by another, or rewritten from its
// start, gets another identity; one appended to keeps it.
func fileIdent(path string, head int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if head < 0 {
		head = min(fi.Size(), identHead)
	}
	buf := make([]byte, head)
	if _, err := io.ReadFull(f, buf); err != nil {
		return "", err
	}
	dev, ino := fileID(fi)
	return fmt.Sprintf("%d.%d.%d.%x", dev, ino, head, session.Sum(buf)), nil
}

// readTranscript reads a job's transcript. A file that only grew since
// the last read (the same file by its identity, larger) is read from
// where that read stopped when the store kept its resume point and the
// reader can go on from it; else its calls known from the last read are
// marked same (see transcriptFP); else it is read whole.
func (s *Store) readTranscript(ctx context.Context, j *job) {
	known, same := 0, false
	if !j.fresh && j.oldfp != "" && j.size > j.oldSize {
		known, same = sameFile(j.oldfp, j.own.key(), j.transcript)
	}
	ident, err := fileIdent(j.transcript, -1)
	if err != nil {
		j.err = err
		return
	}
	add := func(r Record) { j.recs = append(j.recs, r) }
	j.from = nil
	if same && j.fromState != nil {
		if from, err := decodeResume(j.fromState); err == nil {
			j.recs = j.recs[:0]
			j.info, j.err = transcriptRecordsFrom(ctx, j.src.reader(), j.transcript, j.session, j.own, 0, from, add, nil, nil)
			if j.err == nil && j.info.resumed {
				j.from = from
				j.fp = transcriptFP(j.own.key(), j.info.results, ident)
				if s.onRead != nil {
					s.onRead(j.transcript, j.info)
				}
				return
			}
			if j.err != nil && !errors.Is(j.err, session.ErrResume) {
				return
			}
		}
	}
	j.recs = j.recs[:0]
	j.info, j.err = transcriptRecordsFrom(ctx, j.src.reader(), j.transcript, j.session, j.own, known, nil, add, nil, nil)
	j.fp = transcriptFP(j.own.key(), j.info.results, ident)
	if s.onRead != nil && j.err == nil {
		s.onRead(j.transcript, j.info)
	}
}

// keptBefore reports whether a record (by its id) a read that went on
// from from leaves as the store holds it: one of a turn before the point,
// or a call before it — those the read does not hand over are the same
// (the calls still waiting at the point it hands over).
func keptBefore(rid string, from *resumeState) bool {
	if len(rid) < 2 {
		return false
	}
	n, err := strconv.Atoi(rid[1:])
	if err != nil {
		return false
	}
	switch rid[0] {
	case 'u', 'a':
		return n <= from.Turns
	case 't':
		return n >= 1 && n <= from.Tools
	}
	return false
}

// sameKnown reports whether the store holds (in old, by key) every
// record a read marked same.
func sameKnown(recs []Record, old map[string]oldRec) bool {
	seen := map[string]int{}
	for i := range recs {
		if !recs[i].same {
			continue
		}
		o, ok := old[recKey(recs[i].ID, seen)]
		if !ok || o.id&(1<<numShift-1) != kindCode(KindTool) {
			return false
		}
	}
	return true
}

// resumeState is what the store keeps of a transcript to go on reading it
// where its last read stopped: the reader's point, and how many records
// that are not tool calls the turns before it hold (the order of the
// next).
type resumeState struct {
	session.ResumePoint
	recs int
}

// offset is where a read that went on from r started (0: a whole read).
func (r *resumeState) offset(resumed bool) int64 {
	if r == nil || !resumed {
		return 0
	}
	return r.Offset
}

const resumeVersion = 1

var errResumeState = errors.New("malformed resume state")

// encode is the state as the store keeps it.
func (r *resumeState) encode() []byte {
	b := []byte{resumeVersion}
	for _, v := range []int64{r.Offset, int64(r.Turns), int64(r.Tools), int64(r.Prompts), int64(r.recs)} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	b = binary.AppendUvarint(b, uint64(len(r.Cwd)))
	b = append(b, r.Cwd...)
	return append(b, r.State...)
}

// decodeResume reads a state encode wrote.
func decodeResume(b []byte) (*resumeState, error) {
	if len(b) == 0 || b[0] != resumeVersion {
		return nil, errResumeState
	}
	b = b[1:]
	var v [6]uint64
	for i := range v {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > 1<<62 || (i > 0 && n > 1<<30) {
			return nil, errResumeState
		}
		v[i], b = n, b[k:]
	}
	if v[5] > uint64(len(b)) {
		return nil, errResumeState
	}
	r := &resumeState{ResumePoint: session.ResumePoint{Offset: int64(v[0]), Turns: int(v[1]), Tools: int(v[2]),
		Prompts: int(v[3]), Cwd: string(b[:v[5]]), State: slices.Clone(b[v[5]:])}, recs: int(v[4])}
	return r, nil
}

// keepResume stores where a later read of job j's transcript, grown, can
// go on from (its resume state), or forgets the last one.
func keepResume(ctx context.Context, tx *sql.Tx, id int64, j *job) error {
	if j.info.resume == nil {
		_, err := tx.ExecContext(ctx, "DELETE FROM resume WHERE src = ?", id)
		return err
	}
	if j.info.resume == j.from && j.fromState != nil {
		return nil // the read stopped before another turn began
	}
	_, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO resume(src, state) VALUES(?, ?)", id, j.info.resume.encode())
	return err
}
