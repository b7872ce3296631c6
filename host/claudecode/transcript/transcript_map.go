package transcript

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
)

// chunkSource cuts a transcript into chunks of whole lines, in file order.
type chunkSource interface {
	// next fills c with the next chunk; false at the end of the input.
	next(c *chunk) (bool, error)
	// release is called once c's records are applied: its bytes are no
	// longer needed.
	release(c *chunk)
	// counts of lines the source skipped itself (Diagnostics)
	skipped() (lines, over int)
}

func (lr *lineReader) release(*chunk)             {}
func (lr *lineReader) skipped() (lines, over int) { return lr.lines, lr.over }

// mapMin is the smallest transcript read through a memory map: below it a
// read or two cost less than setting the map up. Above it the map wins at
// every size measured (BenchmarkReadFile, synthetic transcripts of 100 KB
// to 4 MB: 10-50 % less time than reading into chunk buffers; corpus
// files of 100 KB, 280 KB and 1 MB: 36, 39 and 73 %).
const mapMin = 64 << 10

// mapChunk is the size of a chunk of a mapped file.
const mapChunk = 1 << 20

// pageSize is the page size the offsets given to madvise are rounded to:
// the kernel's, which is 16 or 64 KB on some arm64 kernels (an unaligned
// address makes madvise fail with EINVAL, and the pages would stay).
var pageSize = os.Getpagesize()

// errChanged reports a transcript cut shorter while it was being read.
var errChanged = errors.New("the file shrank while it was read")

// mapReader hands out chunks of a memory-mapped transcript: no copy into
// read buffers, and the pages of applied chunks are dropped from the
// process (the file stays in the page cache), so memory stays flat.
type mapReader struct {
	ctx      context.Context
	m        []byte // the whole file
	off      int    // start of the next chunk
	released int    // pages before this offset are dropped
}

// openMap maps the regular file behind r, or returns nil.
func openMap(r io.Reader) *mapReader {
	ctx := context.Background()
	if cr, ok := r.(ctxReader); ok {
		ctx, r = cr.ctx, cr.r
	}
	f, ok := r.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < mapMin || int64(int(fi.Size())) != fi.Size() {
		return nil
	}
	// Start where the reader stands (the whole file for a fresh one).
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil || pos != 0 {
		return nil
	}
	m, err := mapFile(f, int(fi.Size()))
	if err != nil {
		return nil
	}
	mr := &mapReader{ctx: ctx, m: m}
	if bytes.HasPrefix(m, byteOrderMark) {
		mr.off = len(byteOrderMark)
	}
	return mr
}

func (mr *mapReader) next(c *chunk) (bool, error) {
	if err := mr.ctx.Err(); err != nil {
		return false, err
	}
	if mr.off >= len(mr.m) {
		return false, nil
	}
	end := min(mr.off+mapChunk, len(mr.m))
	if end < len(mr.m) {
		// The chunk ends with the line running past mapChunk (found
		// forward: bytes.LastIndexByte does not use vector instructions).
		if i := bytes.IndexByte(mr.m[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(mr.m)
		}
	}
	// Map the chunk's pages in one call rather than a fault or so per
	// 16 pages as the scan touches them.
	populate(mr.m[mr.off&^(pageSize-1) : end])
	c.data, c.eof = mr.m[mr.off:end], end == len(mr.m)
	c.base = int64(mr.off)
	c.end = end
	mr.off = end
	return true, nil
}

// release drops the pages wholly before the end of c (chunks are applied
// in file order, and the next chunk starts at c.end).
func (mr *mapReader) release(c *chunk) {
	if to := c.end &^ (pageSize - 1); to-mr.released >= 4<<20 || c.eof {
		if c.eof {
			to = len(mr.m)
		}
		dropPages(mr.m[mr.released:to])
		mr.released = to
	}
}

func (mr *mapReader) skipped() (int, int) { return 0, 0 }

func (mr *mapReader) close() {
	if mr.m != nil {
		unmapFile(mr.m)
		mr.m = nil
	}
}

// isFault reports whether a recovered panic is a memory fault: a mapped
// page gone because the file was truncated under the reader.
func isFault(v any) bool {
	var re runtime.Error
	if err, ok := v.(error); !ok || !errors.As(err, &re) {
		return false
	}
	_, ok := v.(interface{ Addr() uintptr })
	return ok
}
