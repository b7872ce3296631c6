package search

import (
	"errors"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// A record's text is kept in the store as written when it is short, and
// zstd-compressed behind a NUL byte otherwise: a record's text never holds
// NUL, so the two cannot be confused. Transcript text (JSON, code, logs)
// shrinks four to six times, which is most of the store's size.

// packMin is the shortest text worth compressing.
const packMin = 256

var (
	zenc = sync.OnceValue(func() *zstd.Encoder {
		e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(1<<20))
		return e
	})
	zdec = sync.OnceValue(func() *zstd.Decoder {
		d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxMemory(1<<30))
		return d
	})
)

// packText is text as the store keeps it.
func packText(text string) []byte {
	if len(text) < packMin {
		return []byte(text)
	}
	return zenc().EncodeAll([]byte(text), []byte{0})
}

var errPacked = errors.New("search index: malformed record text")

// unpackText is the text of a stored value, in buf's space when it was
// compressed (the result is only good until buf is used again).
func unpackText(b []byte, buf []byte) ([]byte, error) {
	if len(b) == 0 || b[0] != 0 {
		return b, nil
	}
	out, err := zdec().DecodeAll(b[1:], buf[:0])
	if err != nil {
		return nil, errors.Join(errPacked, err)
	}
	return out, nil
}
