package search

import (
	"encoding/binary"
	"errors"

	"github.com/klauspost/compress/s2"
)

// The store keeps a record's folded text, which a search reads whole, and
// the bytes where the text differs from it (its capitals, mostly), which
// only a hit's snippet needs: folding (the search's largest cost after
// reading) is done once, when the record is written. The value is a flag
// byte, then S2-compressed (flag 0) or plain (flag 1): the length of the
// differences, the differences (each the distance from the previous one
// and the text's byte) and the folded text. S2 decompresses several times
// faster than zstd, and the text still shrinks two to three times.
const (
	packS2    = 0
	packPlain = 1
	packMin   = 128 // the shortest value worth compressing
)

// packText is a record's text (low folded) as the store keeps it.
func packText(text, low string) []byte {
	var diff []byte
	last := 0
	for i := 0; i < len(low); i++ {
		if text[i] != low[i] {
			diff = binary.AppendUvarint(diff, uint64(i-last))
			diff = append(diff, text[i])
			last = i
		}
	}
	v := make([]byte, 0, 1+binary.MaxVarintLen64+len(diff)+len(low))
	v = append(v, packPlain)
	v = binary.AppendUvarint(v, uint64(len(diff)))
	v = append(v, diff...)
	v = append(v, low...)
	if len(v) < packMin {
		return v
	}
	c := s2.Encode(make([]byte, 1+s2.MaxEncodedLen(len(v)-1))[1:], v[1:])
	if len(c)+1 >= len(v) {
		return v
	}
	out := make([]byte, 1+len(c))
	out[0] = packS2
	copy(out[1:], c)
	return out
}

var errPacked = errors.New("search index: malformed record text")

// unpackLow is the folded text and the differences of a stored value,
// decompressed into buf's space when the value was compressed; both are
// good until buf or b is used again. buf is returned for reuse.
func unpackLow(b, buf []byte) (low, diff, nbuf []byte, err error) {
	if len(b) == 0 {
		return nil, nil, buf, errPacked
	}
	v := b[1:]
	switch b[0] {
	case packPlain:
	case packS2:
		n, err := s2.DecodedLen(v)
		if err != nil {
			return nil, nil, buf, errors.Join(errPacked, err)
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if v, err = s2.Decode(buf[:cap(buf)], v); err != nil {
			return nil, nil, buf, errors.Join(errPacked, err)
		}
	default:
		return nil, nil, buf, errPacked
	}
	n, w := binary.Uvarint(v)
	if w <= 0 || n > uint64(len(v)-w) {
		return nil, nil, buf, errPacked
	}
	v = v[w:]
	return v[n:], v[:n], buf, nil
}

// unpackText is the text of a stored value, and the text folded (as
// stored: not folded again).
func unpackText(b []byte) (text, low string, err error) {
	l, diff, _, err := unpackLow(b, nil)
	if err != nil {
		return "", "", err
	}
	t := []byte(string(l))
	at := 0
	for len(diff) > 0 {
		d, w := binary.Uvarint(diff)
		if w <= 0 || w >= len(diff) {
			return "", "", errPacked
		}
		at += int(d)
		if at >= len(t) {
			return "", "", errPacked
		}
		t[at] = diff[w]
		diff = diff[w+1:]
	}
	return string(t), string(l), nil
}
