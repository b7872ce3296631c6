package render

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The transcript scanner reads one JSONL line the way json.Unmarshal into
// the reader's narrow structs would, byte for byte, without decoding what
// the bottle does not need (toolUseResult, progress payloads, thinking,
// images). It works in two passes over a line:
//
//  1. index: for each 64-byte block, masks of quotes, backslashes, control
//     bytes and escape letters (AVX2 on amd64, SWAR elsewhere) give the
//     unescaped quotes of the line as a bitmap. Control bytes inside
//     strings and bad escapes are found here: they make the line invalid.
//  2. walk: a recursive-descent walk validates the structure, jumping over
//     each string with the quote bitmap, and decodes the few fields the
//     reader keeps.
//
// Semantics follow encoding/json exactly (a differential fuzz test pins
// them): the same lines are valid, keys match struct fields exactly or
// case-insensitively with Unicode simple folding, the last duplicate key
// wins, null leaves a field alone, a value of the wrong type makes the
// decode fail, strings decode with U+FFFD for invalid UTF-8 and lone
// surrogates, and nesting deeper than 10,000 levels is an error.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

const oddBits = 0xAAAAAAAAAAAAAAAA

// jsonScanner scans one line at a time; it keeps its buffers between lines.
type jsonScanner struct {
	b      []byte
	quotes []uint64 // bit i of word w: b[64w+i] is an unescaped quote
	masks  [4 * 64]uint64
	tail   [64]byte
	stack  []byte
	// blockBuf is reused for the content blocks of one message, tmp for
	// decoding strings.
	blockBuf []block
	tmp      []byte
}

// spaces64 pads the last block of a line: no quote, backslash or control
// byte.
var spaces64 = [64]byte(bytes.Repeat([]byte{' '}, 64))

// escLetter: the characters allowed after a backslash, but 'u'.
var escLetter = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

var hexDigit = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return t
}()

// index builds the quote bitmap of b. It reports false when b cannot be
// valid JSON: a control byte inside a string, a bad escape, or a backslash
// ending the line.
func (s *jsonScanner) index(b []byte) bool {
	s.b = b
	n := len(b)
	nb := (n + 63) >> 6
	if cap(s.quotes) < nb {
		s.quotes = make([]uint64, nb, nb+nb/4)
	}
	s.quotes = s.quotes[:nb]
	var prevEsc, inStr uint64
	for blk := 0; blk < nb; {
		k := min(nb-blk, 64)
		full := k
		if (blk+k)*64 > n {
			full-- // the line's last block is partial
		}
		blockMasks(b[blk*64:(blk+full)*64], s.masks[:4*full])
		if full < k {
			t := s.tail[:]
			m := copy(t, b[(blk+full)*64:])
			copy(t[m:], spaces64[m:])
			blockMasks(t, s.masks[4*full:4*k])
		}
		for i := 0; i < k; i++ {
			m := s.masks[4*i : 4*i+4 : 4*i+4]
			quote, bs, ctl, letters := m[0], m[1], m[2], m[3]
			var escaped uint64
			if bs|prevEsc != 0 {
				// Characters that follow an odd run of backslashes
				// (simdjson's branchless escape scanner).
				pe := bs &^ prevEsc
				et := ((pe<<1 | oddBits) - pe) ^ oddBits
				escaped = et ^ (bs | prevEsc)
				prevEsc = (et & bs) >> 63
				if odd := escaped &^ letters; odd != 0 && !s.checkEscapes((blk+i)*64, odd) {
					return false
				}
			}
			q := quote &^ escaped
			s.quotes[blk+i] = q
			// Bytes inside strings: the prefix XOR of the quotes.
			x := q
			x ^= x << 1
			x ^= x << 2
			x ^= x << 4
			x ^= x << 8
			x ^= x << 16
			x ^= x << 32
			x ^= inStr
			if ctl&x != 0 {
				return false
			}
			inStr = uint64(int64(x) >> 63)
		}
		blk += k
	}
	return true
}

// checkEscapes checks the escaped characters in bits (block at base) that
// the masks did not already show to be escape letters.
func (s *jsonScanner) checkEscapes(base int, bits64 uint64) bool {
	b := s.b
	for ; bits64 != 0; bits64 &= bits64 - 1 {
		p := base + bits.TrailingZeros64(bits64)
		if p >= len(b) {
			return false
		}
		switch c := b[p]; {
		case c == 'u':
			if p+4 >= len(b) || !hexDigit[b[p+1]] || !hexDigit[b[p+2]] || !hexDigit[b[p+3]] || !hexDigit[b[p+4]] {
				return false
			}
		case !escLetter[c]:
			return false
		}
	}
	return true
}

const (
	lsb  = 0x0101010101010101
	hi7  = 0x7f7f7f7f7f7f7f7f
	pack = 0x0102040810204080
)

// zeroBytes has the high bit set in exactly the zero bytes of w.
func zeroBytes(w uint64) uint64 { return ^(((w & hi7) + hi7) | w | hi7) }

// movemask gathers the high bits of the bytes of m into 8 bits.
func movemask(m uint64) uint64 { return ((m >> 7) * pack) >> 56 }

// blockMasksGeneric is blockMasks in portable Go. It leaves the escape
// letter mask empty: every escape is then checked one by one.
func blockMasksGeneric(b []byte, out []uint64) {
	for i, j := 0, 0; i+64 <= len(b); i, j = i+64, j+4 {
		var q, bs, c uint64
		for k := 0; k < 64; k += 8 {
			w := binary.LittleEndian.Uint64(b[i+k:])
			q |= movemask(zeroBytes(w^('"'*lsb))) << k
			bs |= movemask(zeroBytes(w^('\\'*lsb))) << k
			c |= movemask(zeroBytes(w&(0xe0*lsb))) << k
		}
		o := out[j : j+4 : j+4]
		o[0], o[1], o[2], o[3] = q, bs, c, 0
	}
}

// strEnd returns the index of the first unescaped quote at or after p, or
// -1.
func (s *jsonScanner) strEnd(p int) int {
	w := p >> 6
	if w >= len(s.quotes) {
		return -1
	}
	if m := s.quotes[w] >> (uint(p) & 63); m != 0 {
		return p + bits.TrailingZeros64(m)
	}
	for w++; w < len(s.quotes); w++ {
		if m := s.quotes[w]; m != 0 {
			return w<<6 + bits.TrailingZeros64(m)
		}
	}
	return -1
}

// ws skips JSON whitespace.
func (s *jsonScanner) ws(p int) int {
	b := s.b
	if p < len(b) && b[p] > ' ' {
		return p
	}
	for p < len(b) {
		switch b[p] {
		case ' ', '\t', '\n', '\r':
			p++
		default:
			return p
		}
	}
	return p
}

// str returns the end (after the closing quote) of the string at p
// (b[p] == '"'), or -1.
func (s *jsonScanner) str(p int) int {
	e := s.strEnd(p + 1)
	if e < 0 {
		return -1
	}
	return e + 1
}

// number returns the end of the number at p, or -1.
func (s *jsonScanner) number(p int) int {
	b := s.b
	n := len(b)
	if p < n && b[p] == '-' {
		p++
	}
	switch {
	case p >= n:
		return -1
	case b[p] == '0':
		p++
	case '1' <= b[p] && b[p] <= '9':
		p++
		for p < n && '0' <= b[p] && b[p] <= '9' {
			p++
		}
	default:
		return -1
	}
	if p < n && b[p] == '.' {
		p++
		if p >= n || b[p] < '0' || b[p] > '9' {
			return -1
		}
		for p < n && '0' <= b[p] && b[p] <= '9' {
			p++
		}
	}
	if p < n && (b[p] == 'e' || b[p] == 'E') {
		p++
		if p < n && (b[p] == '+' || b[p] == '-') {
			p++
		}
		if p >= n || b[p] < '0' || b[p] > '9' {
			return -1
		}
		for p < n && '0' <= b[p] && b[p] <= '9' {
			p++
		}
	}
	return p
}

// literal returns the end of true, false or null at p, or -1.
func (s *jsonScanner) literal(p int) int {
	rest := s.b[p:]
	switch {
	case bytes.HasPrefix(rest, []byte("true")), bytes.HasPrefix(rest, []byte("null")):
		return p + 4
	case bytes.HasPrefix(rest, []byte("false")):
		return p + 5
	}
	return -1
}

// skip returns the end of the value at p (no leading whitespace), or -1.
// depth is the number of containers open around the value.
func (s *jsonScanner) skip(p, depth int) int {
	if p >= len(s.b) {
		return -1
	}
	switch c := s.b[p]; c {
	case '"':
		return s.str(p)
	case '{', '[':
		return s.container(p, depth)
	case 't', 'f', 'n':
		return s.literal(p)
	default:
		return s.number(p)
	}
}

// container skips the object or array at p without recursion.
func (s *jsonScanner) container(p, depth int) int {
	b := s.b
	n := len(b)
	stack := s.stack[:0]
	defer func() { s.stack = stack[:0] }()
	// Each iteration starts at a value: p is at its first byte.
	for {
		c := b[p]
		if c == '{' || c == '[' {
			if depth+len(stack)+1 > maxDepth {
				return -1
			}
			stack = append(stack, c)
			p = s.ws(p + 1)
			if p >= n {
				return -1
			}
			if c == '{' {
				if b[p] == '}' {
					p++
					stack = stack[:len(stack)-1]
					goto after
				}
				if p = s.objKey(p); p < 0 {
					return -1
				}
				continue
			}
			if b[p] == ']' {
				p++
				stack = stack[:len(stack)-1]
				goto after
			}
			continue
		}
		switch c {
		case '"':
			p = s.str(p)
		case 't', 'f', 'n':
			p = s.literal(p)
		default:
			p = s.number(p)
		}
		if p < 0 {
			return -1
		}
	after:
		// A value ended; close containers or move to the next value.
		for {
			if len(stack) == 0 {
				return p
			}
			p = s.ws(p)
			if p >= n {
				return -1
			}
			top := stack[len(stack)-1]
			if b[p] == ',' {
				p = s.ws(p + 1)
				if p >= n {
					return -1
				}
				if top == '{' {
					if p = s.objKey(p); p < 0 {
						return -1
					}
				}
				break
			}
			if (top == '{' && b[p] == '}') || (top == '[' && b[p] == ']') {
				p++
				stack = stack[:len(stack)-1]
				continue
			}
			return -1
		}
	}
}

// objKey reads `"key" :` at p and returns the position of the value after
// it, or -1.
func (s *jsonScanner) objKey(p int) int {
	b := s.b
	if b[p] != '"' {
		return -1
	}
	if p = s.str(p); p < 0 {
		return -1
	}
	p = s.ws(p)
	if p >= len(b) || b[p] != ':' {
		return -1
	}
	p = s.ws(p + 1)
	if p >= len(b) {
		return -1
	}
	return p
}

// span is the raw content of a JSON string (between its quotes).
type span struct{ a, b int }

// raw returns the bytes of sp.
func (s *jsonScanner) raw(sp span) []byte { return s.b[sp.a:sp.b] }

// plain reports whether raw string content decodes to itself: no escapes
// and valid UTF-8.
func plain(raw []byte) bool {
	return bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw)
}

// decodeString decodes raw JSON string content (valid: index checked it)
// as encoding/json does.
func decodeString(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw)
	}
	return string(decodeAppend(nil, raw))
}

// escByte is the byte a one-letter escape stands for ('u' excepted).
var escByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// decodeAppend appends the decoded raw string content to dst, each invalid
// UTF-8 byte becoming U+FFFD. Runs of plain ASCII are copied 8 bytes at a
// time: each word is stored, then checked for a backslash or a non-ASCII
// byte.
func decodeAppend(dst, raw []byte) []byte {
	w := len(dst)
	if cap(dst)-w < len(raw)+8 {
		nd := make([]byte, w, w+len(raw)+8+len(raw)/8)
		copy(nd, dst)
		dst = nd
	}
	out := dst[:cap(dst)]
	i := 0
	for i < len(raw) {
		for i+8 <= len(raw) && w+8 <= len(out) {
			x := binary.LittleEndian.Uint64(raw[i:])
			binary.LittleEndian.PutUint64(out[w:], x)
			if m := (zeroBytes(x^('\\'*lsb)) | x) & (0x80 * lsb); m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				i, w = i+k, w+k
				goto special
			}
			i, w = i+8, w+8
		}
		for i < len(raw) && raw[i] != '\\' && raw[i] < utf8.RuneSelf {
			if w == len(out) {
				out = grow(out, w, len(raw)-i)
			}
			out[w] = raw[i]
			i, w = i+1, w+1
		}
		if i == len(raw) {
			break
		}
	special:
		if raw[i] == '\\' {
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

// fieldSet matches object keys to a struct's fields as encoding/json does:
// an exact name first, else equal under Unicode simple case folding.
type fieldSet struct {
	names  []string
	folded []string
	lens   uint64 // bit n: a name has n bytes
}

func newFieldSet(names ...string) *fieldSet {
	fs := &fieldSet{names: names}
	for _, n := range names {
		fs.folded = append(fs.folded, string(foldName([]byte(n))))
		fs.lens |= 1 << len(n)
	}
	return fs
}

// match returns the 1-based index of the field the raw key names, or 0.
func (fs *fieldSet) match(key []byte) int {
	sameLen := len(key) < 64 && fs.lens&(1<<len(key)) != 0
	if sameLen {
		for i, n := range fs.names {
			if string(key) == n {
				return i + 1
			}
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return fs.matchFolded(key)
		}
	}
	// ASCII: only a name of the same length can fold to the key.
	if sameLen {
		for i, n := range fs.names {
			if len(n) == len(key) && asciiEqualFold(key, n) {
				return i + 1
			}
		}
	}
	return 0
}

// matchFolded matches a key with escapes or non-ASCII bytes.
func (fs *fieldSet) matchFolded(key []byte) int {
	k := foldName([]byte(decodeString(key)))
	for i, f := range fs.folded {
		if string(k) == f {
			return i + 1
		}
	}
	return 0
}

func asciiEqualFold(a []byte, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// foldName folds a key as encoding/json does: ASCII letters to upper case,
// other runes to the smallest rune of their simple fold orbit.
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return out
}

func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
