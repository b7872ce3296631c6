package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// MaxDepth is encoding/json's nesting limit.
const MaxDepth = 10000

const oddBits = 0xAAAAAAAAAAAAAAAA

// Scanner scans one line at a time; it keeps its buffers between lines.
type Scanner struct {
	b      []byte
	quotes []uint64 // bit i of word w: b[64w+i] is an unescaped quote
	esc    []uint64 // bit i of word w: b[64w+i] follows an escaping backslash
	hi     []uint64 // bit i of word w: b[64w+i] >= 0x80
	words  []uint64 // the backing of quotes, esc and hi, a third each
	uesc   []int    // the offsets of the 'u' of each \uXXXX escape, in order
	stack  []byte
}

// Bytes returns the line last indexed.
func (s *Scanner) Bytes() []byte { return s.b }

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
// valid JSON: a control byte inside a string, a bad escape, or an odd run
// of backslashes ending the line.
func (s *Scanner) Index(b []byte) bool {
	s.b = b
	nb := (len(b) + 63) >> 6
	// quotes, esc and hi lie at equal distances in one array: the AVX2
	// kernel addresses all three from one register.
	if 3*nb > len(s.words) {
		s.words = make([]uint64, 3*(nb+nb/4))
	}
	s.quotes, s.esc, s.hi = s.words[0:nb:nb], s.words[nb:2*nb:2*nb], s.words[2*nb:3*nb:3*nb]
	s.uesc = s.uesc[:0]
	if nb == 0 {
		return true
	}
	return s.indexBlocks(b)
}

// indexState is what index carries from one 64-byte block to the next.
type indexState struct {
	blk     int    // the next block to scan
	prevEsc uint64 // 1: the byte after the last block is escaped
	inStr   uint64 // all ones: the last block ends inside a string
	odd     uint64 // escaped characters of block blk-1 left to checkEscapes
}

// indexGeneric is index in portable Go, a block at a time; the last,
// partial block is padded with spaces.
func (s *Scanner) indexGeneric(b []byte) bool {
	var st indexState
	full := len(b) >> 6
	for i := 0; i < full; i++ {
		q, bs, ctl, hi := masks64((*[64]byte)(b[i*64:]))
		if !s.indexBlock(i, q, bs, ctl, hi, &st) {
			return false
		}
	}
	if r := len(b) & 63; r != 0 {
		var t [64]byte
		copy(t[copy(t[:], b[full*64:]):], spaces64[r:])
		q, bs, ctl, hi := masks64(&t)
		// A trailing backslash escapes a padding space: checkEscapes
		// rejects it.
		return s.indexBlock(full, q, bs, ctl, hi, &st)
	}
	return st.prevEsc == 0
}

// indexBlock stores the unescaped quotes of block i (masks of its quotes,
// backslashes and control bytes) and checks its control bytes and escapes.
// It works as the assembly kernel does, quotes stored first, so both leave
// the same bitmap behind.
func (s *Scanner) indexBlock(i int, quote, bs, ctl, hi uint64, st *indexState) bool {
	s.hi[i] = hi
	escaped := escapedChars(bs, &st.prevEsc)
	q := quote &^ escaped
	s.quotes[i] = q
	s.esc[i] = escaped
	x := prefixXOR(q) ^ st.inStr // bytes inside strings
	if ctl&x != 0 {
		return false
	}
	st.inStr = uint64(int64(x) >> 63)
	return escaped == 0 || s.checkEscapes(i*64, escaped)
}

// escapedChars returns the characters of a block that follow an odd run
// of backslashes (simdjson's branchless escape scanner), given its
// backslashes; *prevEsc carries a run that crosses into the next block.
func escapedChars(bs uint64, prevEsc *uint64) uint64 {
	pe := bs &^ *prevEsc
	et := ((pe<<1 | oddBits) - pe) ^ oddBits
	escaped := et ^ (bs | *prevEsc)
	*prevEsc = (et & bs) >> 63
	return escaped
}

// prefixXOR sets bit i to the parity of the bits 0..i of x: the bytes
// between an opening quote (included) and its closing quote (excluded).
func prefixXOR(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// checkEscapes checks the escaped characters in bits (block at base) that
// the masks did not already show to be escape letters, noting each \u
// escape in s.uesc.
func (s *Scanner) checkEscapes(base int, bits64 uint64) bool {
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
			s.uesc = append(s.uesc, p)
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

// masks64 returns the masks of the quotes, backslashes, control bytes and
// bytes >= 0x80 of a 64-byte block (bit i: byte i), in portable Go.
func masks64(b *[64]byte) (q, bs, ctl, hi uint64) {
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		q |= movemask(zeroBytes(w^('"'*lsb))) << k
		bs |= movemask(zeroBytes(w^('\\'*lsb))) << k
		ctl |= movemask(zeroBytes(w&(0xe0*lsb))) << k
		hi |= movemask(w&(0x80*lsb)) << k
	}
	return q, bs, ctl, hi
}

// strEnd returns the index of the first unescaped quote at or after p, or
// -1. The quote in p's own word is found inline; strEndFar looks further.
func (s *Scanner) StrEnd(p int) int {
	if w := p >> 6; w < len(s.quotes) {
		if m := s.quotes[w] >> (uint(p) & 63); m != 0 {
			return p + bits.TrailingZeros64(m)
		}
	}
	return s.strEndFar(p)
}

// strEndFar is strEnd past p's word.
func (s *Scanner) strEndFar(p int) int {
	for w := p>>6 + 1; w < len(s.quotes); w++ {
		if m := s.quotes[w]; m != 0 {
			return w<<6 + bits.TrailingZeros64(m)
		}
	}
	return -1
}

// ws skips JSON whitespace.
func (s *Scanner) WS(p int) int {
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
func (s *Scanner) Str(p int) int {
	e := s.StrEnd(p + 1)
	if e < 0 {
		return -1
	}
	return e + 1
}

// strFar is str for a string that ends past the word it starts in: p is
// the string's first content byte. The hot loops look in the first word
// themselves (str is too big to inline) and call strFar past it.
func (s *Scanner) StrFar(p int) int {
	if e := s.strEndFar(p); e >= 0 {
		return e + 1
	}
	return -1
}

// number returns the end of the number at p, or -1.
func (s *Scanner) Number(p int) int {
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

// The literals' first 4 bytes as little-endian words.
const (
	wordTrue = 't' | 'r'<<8 | 'u'<<16 | 'e'<<24
	wordNull = 'n' | 'u'<<8 | 'l'<<16 | 'l'<<24
	wordFals = 'f' | 'a'<<8 | 'l'<<16 | 's'<<24
)

// literal returns the end of true, false or null at p, or -1.
func (s *Scanner) Literal(p int) int {
	rest := s.b[p:]
	if len(rest) < 4 {
		return -1
	}
	switch binary.LittleEndian.Uint32(rest) {
	case wordTrue, wordNull:
		return p + 4
	case wordFals:
		if len(rest) > 4 && rest[4] == 'e' {
			return p + 5
		}
	}
	return -1
}

// skip returns the end of the value at p (no leading whitespace), or -1.
// depth is the number of containers open around the value.
func (s *Scanner) Skip(p, depth int) int {
	if p >= len(s.b) {
		return -1
	}
	switch c := s.b[p]; c {
	case '"':
		return s.Str(p)
	case '{', '[':
		return s.container(p, depth)
	case 't', 'f', 'n':
		return s.Literal(p)
	default:
		return s.Number(p)
	}
}

// container skips the object or array at p without recursion.
func (s *Scanner) container(p, depth int) int {
	e, stack := s.walk(p, depth, s.stack[:0])
	s.stack = stack[:0] // keep what append grew
	return e
}

// walk is container, with the stack of open containers (empty) passed
// along rather than kept in s: it stays in registers. It returns the
// stack for reuse.
func (s *Scanner) walk(p, depth int, stack []byte) (int, []byte) {
	b := s.b
	n := len(b)
	quotes := s.quotes
	// Each iteration starts at a value: p is at its first byte.
	for {
		c := b[p]
		if c == '{' || c == '[' {
			if depth+len(stack)+1 > MaxDepth {
				return -1, stack
			}
			stack = append(stack, c)
			p = s.WS(p + 1)
			if p >= n {
				return -1, stack
			}
			if c == '{' {
				if b[p] == '}' {
					p++
					stack = stack[:len(stack)-1]
					goto after
				}
				goto key
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
			// str, its first word inline.
			q := p + 1
			if w := q >> 6; w < len(quotes) {
				if m := quotes[w] >> (uint(q) & 63); m != 0 {
					p = q + bits.TrailingZeros64(m) + 1
					break
				}
			}
			p = s.StrFar(q)
		case 't', 'f', 'n':
			p = s.Literal(p)
		default:
			p = s.Number(p)
		}
		if p < 0 {
			return -1, stack
		}
	after:
		// A value ended; close containers or move to the next value.
		for {
			if len(stack) == 0 {
				return p, stack
			}
			p = s.WS(p)
			if p >= n {
				return -1, stack
			}
			top := stack[len(stack)-1]
			if b[p] == ',' {
				p = s.WS(p + 1)
				if p >= n {
					return -1, stack
				}
				if top == '{' {
					goto key
				}
				break
			}
			if (top == '{' && b[p] == '}') || (top == '[' && b[p] == ']') {
				p++
				stack = stack[:len(stack)-1]
				continue
			}
			return -1, stack
		}
		continue
	key:
		// objKey inline: `"key" :` at p (p < n), then the value.
		if b[p] != '"' {
			return -1, stack
		}
		p++
		if w := p >> 6; w < len(quotes) {
			if m := quotes[w] >> (uint(p) & 63); m != 0 {
				p += bits.TrailingZeros64(m) + 1
				goto colon
			}
		}
		if p = s.StrFar(p); p < 0 {
			return -1, stack
		}
	colon:
		if p < n && b[p] == ':' {
			p++
		} else if p = s.WS(p); p >= n || b[p] != ':' {
			return -1, stack
		} else {
			p++
		}
		if p = s.WS(p); p >= n {
			return -1, stack
		}
	}
}

// objKey reads `"key" :` at p and returns the position of the value after
// it, or -1.
func (s *Scanner) ObjKey(p int) int {
	b := s.b
	if b[p] != '"' {
		return -1
	}
	p++
	if w := p >> 6; w < len(s.quotes) {
		if m := s.quotes[w] >> (uint(p) & 63); m != 0 {
			p += bits.TrailingZeros64(m) + 1
			goto colon
		}
	}
	if p = s.StrFar(p); p < 0 {
		return -1
	}
colon:
	p = s.WS(p)
	if p >= len(b) || b[p] != ':' {
		return -1
	}
	p = s.WS(p + 1)
	if p >= len(b) {
		return -1
	}
	return p
}

// Span is the raw content of a JSON string (between its quotes).
type Span struct{ A, B int }

// raw returns the bytes of sp.
func (s *Scanner) Raw(sp Span) []byte { return s.b[sp.A:sp.B] }

// FieldSet matches object keys to a struct's fields as encoding/json does:
// an exact name first, else equal under Unicode simple case folding.
type FieldSet struct {
	names  []string
	folded []string
	byLen  [][]fieldName // byLen[n]: the names of n bytes, in order
	// distinct: no two names fold alike, and all are ASCII without
	// backslashes. Then a key that folds to a name is that name's, exact
	// or not, and match compares upper-case words once.
	distinct bool
}

// fieldName is a name (field index i) as keyWords packs it: exact, and
// with ASCII letters in upper case.
type fieldName struct {
	i        int
	w0, w1   uint64
	up0, up1 uint64
	long     bool // more than 16 bytes: the words do not hold it all
}

func NewFieldSet(names ...string) *FieldSet {
	fs := &FieldSet{names: names}
	for i, n := range names {
		fs.folded = append(fs.folded, string(foldName([]byte(n))))
		for len(fs.byLen) <= len(n) {
			fs.byLen = append(fs.byLen, nil)
		}
		w0, w1 := keyWords([]byte(n))
		f := fieldName{i: i, w0: w0, w1: w1, up0: upperASCII(w0), up1: upperASCII(w1), long: len(n) > 16}
		fs.byLen[len(n)] = append(fs.byLen[len(n)], f)
	}
	fs.distinct = true
	for i, n := range names {
		if !PlainASCII([]byte(n)) {
			fs.distinct = false
		}
		for _, m := range fs.folded[:i] {
			if m == fs.folded[i] {
				fs.distinct = false
			}
		}
	}
	return fs
}

// match returns the 1-based index of the field the raw key names, or 0.
func (fs *FieldSet) Match(key []byte) int {
	if !fs.distinct {
		return fs.matchAny(key)
	}
	if len(key) < len(fs.byLen) {
		if same := fs.byLen[len(key)]; len(same) > 0 {
			w0, w1 := keyWords(key)
			w0, w1 = upperASCII(w0), upperASCII(w1)
			for i := range same {
				// Equal upper-case words: the key is ASCII (the names
				// are) and, up to 16 bytes, folds to the name.
				if f := &same[i]; f.up0 == w0 && f.up1 == w1 && (!f.long || asciiEqualFold(key, fs.names[f.i])) {
					return f.i + 1
				}
			}
		}
	}
	if !PlainASCII(key) {
		return fs.matchFolded(key)
	}
	return 0
}

// matchAny is match for any names: exact first, then folded.
func (fs *FieldSet) matchAny(key []byte) int {
	var same []fieldName // the names as long as the key
	var w0, w1 uint64
	if len(key) < len(fs.byLen) {
		same = fs.byLen[len(key)]
		w0, w1 = keyWords(key)
	}
	for _, f := range same {
		if f.w0 == w0 && f.w1 == w1 && (!f.long || string(key) == fs.names[f.i]) {
			return f.i + 1
		}
	}
	if !PlainASCII(key) {
		return fs.matchFolded(key)
	}
	// ASCII: only a name of the same length can fold to the key.
	if len(same) > 0 {
		w0, w1 = upperASCII(w0), upperASCII(w1)
		for _, f := range same {
			if f.up0 == w0 && f.up1 == w1 && (!f.long || asciiEqualFold(key, fs.names[f.i])) {
				return f.i + 1
			}
		}
	}
	return 0
}

// keyWords packs the bytes of k into two words that, with len(k), tell
// keys of up to 16 bytes apart: the first and the last 8 bytes (which
// overlap below 16), the first and last 4, or the first, middle and last
// byte.
func keyWords(k []byte) (w0, w1 uint64) {
	switch n := len(k); {
	case n >= 8:
		return binary.LittleEndian.Uint64(k), binary.LittleEndian.Uint64(k[n-8:])
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(k)) | uint64(binary.LittleEndian.Uint32(k[n-4:]))<<32, 0
	case n > 0:
		return uint64(k[0]) | uint64(k[n>>1])<<8 | uint64(k[n-1])<<16, 0
	}
	return 0, 0
}

// upperASCII turns the bytes 'a'..'z' of w to upper case.
func upperASCII(w uint64) uint64 {
	// High bit of each byte: the byte (below 0x80) is >= 'a', and not
	// > 'z'.
	ge := (w&hi7 + (0x80-'a')*lsb) &^ w
	gt := (w&hi7 + (0x7f-'z')*lsb)
	lower := ge &^ gt & (0x80 * lsb)
	return w - lower>>2
}

// PlainASCII reports whether a string body has neither escapes nor
// non-ASCII bytes, so that it is its own decoding; 8 bytes at a time.
func PlainASCII(key []byte) bool {
	for ; len(key) >= 8; key = key[8:] {
		w := binary.LittleEndian.Uint64(key)
		if (zeroBytes(w^('\\'*lsb))|w)&(0x80*lsb) != 0 {
			return false
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return false
		}
	}
	return true
}

// matchFolded matches a key with escapes or non-ASCII bytes.
func (fs *FieldSet) matchFolded(key []byte) int {
	k := foldName([]byte(Decode(key)))
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
