package jsonscan

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Plain reports whether raw decodes to itself: no escapes, valid UTF-8.
func Plain(raw []byte) bool {
	return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}

// Check reports whether raw is a valid JSON string body: no control byte,
// no unescaped quote, every backslash starting a whole escape.
func Check(raw []byte) bool {
	const (
		low7 = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
	)
	for i := 0; i < len(raw); i++ {
		// Eight bytes at once while none is a control byte, a quote or
		// a backslash (most of a string; bytes over 0x7f are not read).
		for i+8 <= len(raw) {
			x := binary.LittleEndian.Uint64(raw[i:])
			below := ^((x & low7) + 0x6060606060606060) & ^x & high // bytes < 0x20
			q, bs := x^0x2222222222222222, x^0x5c5c5c5c5c5c5c5c
			quote := ^(((q & low7) + low7) | q) & high
			back := ^(((bs & low7) + low7) | bs) & high
			if below|quote|back != 0 {
				break
			}
			i += 8
		}
		if i >= len(raw) {
			break
		}
		switch c := raw[i]; {
		case c < 0x20 || c == '"':
			return false
		case c == '\\':
			if i+1 >= len(raw) {
				return false
			}
			switch raw[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if getu4(raw[i:]) < 0 {
					return false
				}
				i += 5
			default:
				return false
			}
		}
	}
	return true
}

// Decode returns the decoded string.
func Decode(raw []byte) string {
	if Plain(raw) {
		return string(raw)
	}
	b := Append(nil, raw)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is ours alone
}

// Append appends the decoded string to dst.
func Append(dst, raw []byte) []byte { return appendUpTo(dst, raw, math.MaxInt) }

// appendPrefix appends a prefix of the decoded string to dst: all of it, or
// at least n bytes of it. The bytes appended are exactly the start of what
// Append would append; no rune is cut.
func appendPrefix(dst, raw []byte, n int) []byte {
	return appendUpTo(dst, raw, len(dst)+n)
}

// DecodePrefix returns a prefix of the decoded string: all of it, or at
// least n bytes of it, exactly as Decode starts and cutting no rune.
func DecodePrefix(raw []byte, n int) string {
	b := appendPrefix(nil, raw, n)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is ours alone
}

// Escapes yields the offset of the backslash of each escape in raw, in
// order. A \u escape of a UTF-16 surrogate pair is two escapes. It looks
// at 8 bytes at a time, so dense escapes cost little more than sparse ones.
func Escapes(raw []byte) iter.Seq[int] {
	return func(yield func(int) bool) {
		next := 0 // the first offset that can start an escape
		w := 0
		for ; w+8 <= len(raw); w += 8 {
			m := zeroBytes(binary.LittleEndian.Uint64(raw[w:])^('\\'*lsb)) & (0x80 * lsb)
			for ; m != 0; m &= m - 1 {
				k := w + bits.TrailingZeros64(m)>>3
				if k < next {
					continue // the escaped backslash of "\\\\"
				}
				if k+1 >= len(raw) {
					return // not valid JSON: a backslash ending the body
				}
				next = k + 2
				if raw[k+1] == 'u' {
					next = k + 6
				}
				if !yield(k) {
					return
				}
			}
		}
		for k := max(w, next); k < len(raw); k++ {
			if raw[k] != '\\' || k < next {
				continue
			}
			if k+1 >= len(raw) {
				return
			}
			next = k + 2
			if raw[k+1] == 'u' {
				next = k + 6
			}
			if !yield(k) {
				return
			}
		}
	}
}

// Len returns the length in bytes of the decoded string without building
// it. (The transcript scanner measures valid UTF-8 from its own bitmaps and
// comes here for the rest.)
func Len(raw []byte) int {
	n := 0
	for {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return n + utf8Len(raw)
		}
		n += utf8Len(raw[:i])
		raw = raw[i:]
		if len(raw) < 2 {
			return n // not valid JSON: a backslash ending the body
		}
		if raw[1] != 'u' {
			n++
			raw = raw[2:]
			continue
		}
		r := getu4(raw)
		if r < 0 {
			return n + utf8Len(raw) // not valid JSON; any answer will do
		}
		raw = raw[6:]
		if utf16.IsSurrogate(r) {
			if dec := utf16.DecodeRune(r, getu4(raw)); dec != unicode.ReplacementChar {
				n += utf8.RuneLen(dec)
				raw = raw[6:]
				continue
			}
			r = unicode.ReplacementChar
		}
		n += utf8.RuneLen(r)
	}
}

// utf8Len is the length of b with each invalid byte replaced by U+FFFD.
func utf8Len(b []byte) int {
	if utf8.Valid(b) {
		return len(b)
	}
	n := 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			n++
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			n += len("\uFFFD")
		} else {
			n += size
		}
		b = b[size:]
	}
	return n
}

// escByte is the byte a one-letter escape stands for ('u' excepted).
var escByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// appendUpTo appends the decoded string to dst, stopping at a rune boundary
// once dst holds stop bytes or more. Runs of plain ASCII are copied 8 bytes
// at a time: each word is stored, then checked for a backslash or a
// non-ASCII byte.
func appendUpTo(dst, raw []byte, stop int) []byte {
	w := len(dst)
	want := len(raw) + 8
	if stop-w < len(raw) {
		want = stop - w + 24 // stop is near: room for its rune and a word
	}
	if cap(dst)-w < want {
		nd := make([]byte, w, w+want+want/8)
		copy(nd, dst)
		dst = nd
	}
	out := dst[:cap(dst)]
	i := 0
	for i < len(raw) && w < stop {
		// A word is copied only where it stays short of stop: the prefix
		// then ends at the same byte whatever dst held and whatever room
		// the buffer had.
		for i+8 <= len(raw) && w+8 <= len(out) && w+8 <= stop {
			x := binary.LittleEndian.Uint64(raw[i:])
			binary.LittleEndian.PutUint64(out[w:], x)
			if m := (zeroBytes(x^('\\'*lsb)) | x) & (0x80 * lsb); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				i, w = i+k, w+k
				goto special
			}
			i, w = i+8, w+8
		}
		for i < len(raw) && raw[i] != '\\' && raw[i] < utf8.RuneSelf && w < stop {
			if w == len(out) {
				out = grow(out, w, len(raw)-i)
			}
			out[w] = raw[i]
			i, w = i+1, w+1
		}
		if i == len(raw) || w >= stop {
			break
		}
	special:
		if raw[i] == '\\' {
			if i+1 >= len(raw) {
				break // not valid JSON: a backslash ending the body
			}
			if c := raw[i+1]; c != 'u' {
				if w >= len(out) {
					out = grow(out, w, len(raw)-i)
				}
				out[w] = escByte[c]
				i, w = i+2, w+1
				continue
			}
			if len(out)-w < 8 {
				out = grow(out, w, len(raw)-i)
			}
			r := getu4(raw[i:])
			if r < 0 {
				break // not valid JSON: a bad \u escape
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if dec := utf16.DecodeRune(r, getu4(raw[i:])); dec != unicode.ReplacementChar {
					w += utf8.EncodeRune(out[w:], dec)
					i += 6
					continue
				}
				r = unicode.ReplacementChar
			}
			w += utf8.EncodeRune(out[w:], r)
			continue
		}
		if len(out)-w < 8 {
			out = grow(out, w, len(raw)-i)
		}
		// Common valid 2- and 3-byte sequences (é, →, ✓) inline; the rest
		// through utf8.DecodeRune.
		if c := raw[i]; i+2 < len(raw) && c >= 0xE1 && c <= 0xEF && c != 0xED &&
			raw[i+1]&0xC0 == 0x80 && raw[i+2]&0xC0 == 0x80 {
			out[w], out[w+1], out[w+2] = c, raw[i+1], raw[i+2]
			i, w = i+3, w+3
			continue
		} else if i+1 < len(raw) && c >= 0xC2 && c <= 0xDF && raw[i+1]&0xC0 == 0x80 {
			out[w], out[w+1] = c, raw[i+1]
			i, w = i+2, w+2
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 {
			w += copy(out[w:], "\uFFFD")
		} else {
			for k := 0; k < size; k++ {
				out[w+k] = raw[i+k]
			}
			w += size
		}
		i += size
	}
	return out[:w]
}

// grow returns out with room for at least 8+more bytes after w.
func grow(out []byte, w, more int) []byte {
	n := make([]byte, max(2*len(out), w+more+16))
	copy(n, out[:w])
	return n
}

// Unit returns the UTF-16 code unit of the \uXXXX escape opening s, or -1.
func Unit(s []byte) rune { return getu4(s) }

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
