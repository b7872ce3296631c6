package search

import (
	"context"
	"fmt"
	"hash/crc64"
	"io"
	"os"
	"strconv"
	"strings"
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
	k, rest, ok := strings.Cut(fp, fpSep)
	if !ok || k != own {
		return 0
	}
	n, ident, ok := strings.Cut(rest, fpSep)
	results, err := strconv.Atoi(n)
	if !ok || err != nil || results <= 0 {
		return 0
	}
	var head int64
	if i := strings.LastIndexByte(ident, '.'); i > 0 {
		if j := strings.LastIndexByte(ident[:i], '.'); j > 0 {
			head, _ = strconv.ParseInt(ident[j+1:i], 10, 64)
		}
	}
	if now, err := fileIdent(path, head); err != nil || now != ident {
		return 0
	}
	return results
}

// identHead is how many of a transcript's first bytes its identity hashes.
const identHead = 4096

var crcTable = crc64.MakeTable(crc64.ECMA)

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
	return fmt.Sprintf("%d.%d.%d.%x", dev, ino, head, crc64.Checksum(buf, crcTable)), nil
}

// readTranscript reads a job's transcript: its calls known from the last
// read marked same when the file only grew since (see transcriptFP), all
// of it otherwise.
func (s *Store) readTranscript(ctx context.Context, j *job) {
	known := 0
	if !j.fresh && j.oldfp != "" && j.size > j.oldSize {
		known = knownResults(j.oldfp, j.own.key(), j.transcript)
	}
	ident, err := fileIdent(j.transcript, -1)
	if err != nil {
		j.err = err
		return
	}
	j.recs = j.recs[:0]
	j.info, j.err = transcriptRecordsFrom(ctx, j.src.reader(), j.transcript, j.session, j.own, known, func(r Record) { j.recs = append(j.recs, r) }, nil)
	j.fp = transcriptFP(j.own.key(), j.info.results, ident)
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
