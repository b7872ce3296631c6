package jsonscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// The index pass has two implementations, the AVX2 kernel and portable
// Go. These tests compare both with each other, bit for bit, and with
// refIndex, a byte-at-a-time reference.

// refIndex is index one byte at a time: the quote bitmap of b, and
// whether b is free of control bytes inside strings and of bad escapes.
func refIndex(b []byte) (quotes []uint64, ok bool) {
	quotes = make([]uint64, (len(b)+63)/64)
	in := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			i++ // the escaped character
			if i >= len(b) {
				return quotes, false
			}
			switch e := b[i]; {
			case e == 'u':
				if i+4 >= len(b) || !hexDigit[b[i+1]] || !hexDigit[b[i+2]] || !hexDigit[b[i+3]] || !hexDigit[b[i+4]] {
					return quotes, false
				}
			case !escLetter[e]:
				return quotes, false
			}
		case c == '"':
			quotes[i/64] |= 1 << (i % 64)
			in = !in
		case c < 0x20 && in:
			return quotes, false
		}
	}
	return quotes, true
}

// sentinel fills the quote words index may leave alone (after a block
// that makes the line invalid), so that both paths start from the same.
const sentinel = 0x5A5A_0F0F_A5A5_F0F0

// indexWith runs index on b with the AVX2 kernel or the portable code.
func indexWith(b []byte, avx2 bool) (quotes []uint64, ok bool) {
	s := Scanner{quotes: make([]uint64, (len(b)+63)/64)}
	for i := range s.quotes {
		s.quotes[i] = sentinel
	}
	withAVX2(avx2, func() { ok = s.Index(b) })
	return s.quotes, ok
}

// checkIndex compares the two paths and the reference on b.
func checkIndex(t *testing.T, b []byte) {
	t.Helper()
	want, wantOK := refIndex(b)
	gen, genOK := indexWith(b, false)
	if genOK != wantOK || (wantOK && !equalWords(gen, want)) {
		t.Fatalf("generic index(%q) = %v %x, want %v %x", b, genOK, gen, wantOK, want)
	}
	if !HasAVX2() {
		return
	}
	asm, asmOK := indexWith(b, true)
	if asmOK != genOK || !equalWords(asm, gen) {
		t.Fatalf("AVX2 index(%q) = %v %x, generic %v %x", b, asmOK, asm, genOK, gen)
	}
	if !genOK {
		return
	}
	// The escape and high-byte bitmaps of a valid line, against the
	// generic path and a byte-by-byte reference.
	var g, a Scanner
	withAVX2(false, func() { g.Index(b) })
	withAVX2(true, func() { a.Index(b) })
	refHi := make([]uint64, len(g.hi))
	for i, c := range b {
		if c >= 0x80 {
			refHi[i/64] |= 1 << (i % 64)
		}
	}
	if !equalWords(g.hi, refHi) || !equalWords(a.hi, refHi) {
		t.Fatalf("hi bitmap of %q: generic %x, AVX2 %x, want %x", b, g.hi, a.hi, refHi)
	}
	if !equalWords(a.esc, g.esc) {
		t.Fatalf("esc bitmap of %q: AVX2 %x, generic %x", b, a.esc, g.esc)
	}
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// indexBytes are the bytes that matter to index, and some that do not.
var indexBytes = []byte{'"', '\\', 0x00, 0x01, 0x1f, ' ', 0x7f, 0x80, 0xff, 'u', 'n', 't', '/', 'b', 'f', 'r', 'x', '0', 'a', 'F', 'g', ']', '\n', '\t', '{', ':'}

// TestIndexLengths checks random lines of every length 0..300, dense in
// quotes, backslashes and control bytes.
func TestIndexLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 300; n++ {
		for k := 0; k < 300; k++ {
			b := make([]byte, n)
			for i := range b {
				switch r.IntN(4) {
				case 0:
					b[i] = indexBytes[r.IntN(len(indexBytes))]
				case 1:
					b[i] = "\\\"u0"[r.IntN(4)]
				default:
					b[i] = 'a' + byte(r.IntN(6)) // also hex digits
				}
			}
			checkIndex(t, b)
		}
	}
}

// TestIndexPositions puts each byte of indexBytes at every position of
// lines of lengths around block boundaries, inside a string and outside,
// and escapes of every byte value at lane edges.
func TestIndexPositions(t *testing.T) {
	for _, n := range []int{1, 2, 5, 63, 64, 65, 100, 127, 128, 129, 191, 192, 193, 255, 256, 257, 300} {
		for _, fill := range []byte{'x', ' '} {
			base := bytes.Repeat([]byte{fill}, n)
			if fill == 'x' && n >= 2 {
				base[0], base[n-1] = '"', '"' // one string
			}
			for p := 0; p < n; p++ {
				for _, c := range indexBytes {
					b := bytes.Clone(base)
					b[p] = c
					checkIndex(t, b)
				}
				// The byte classes come from a per-byte table lookup:
				// every value at the edges of the 16-byte lanes and of
				// the block is enough.
				if q := p % 64; p+1 < n && (q%16 == 0 || q%16 == 15 || p == n-2) {
					for c := 0; c < 256; c++ {
						b := bytes.Clone(base)
						b[p], b[p+1] = '\\', byte(c)
						checkIndex(t, b)
					}
				}
			}
		}
	}
}

// TestIndexBackslashRuns checks runs of 1..6 backslashes ending at every
// position (crossing block boundaries, ending lines), before a quote, an
// escape letter, a \u escape cut at any length, or a bad escape.
func TestIndexBackslashRuns(t *testing.T) {
	afters := []string{``, `"`, `n`, `\`, `x`, `u`, `u0`, `u00`, `u00e`, `u00e9`, `u00g9`, "\x01", `"x"`}
	for _, n := range []int{10, 63, 64, 65, 127, 128, 129, 200, 256, 257} {
		for run := 1; run <= 6; run++ {
			for end := 0; end <= n; end++ {
				for _, after := range afters {
					b := bytes.Repeat([]byte{'a'}, n)
					b[0] = '"'
					start := max(end-run, 0)
					for i := start; i < end; i++ {
						b[i] = '\\'
					}
					b = append(b[:end:end], after...)
					checkIndex(t, b)
					// The same, with the string closed after it.
					checkIndex(t, append(bytes.Clone(b), `x"`...))
				}
			}
		}
	}
}

// TestIndexPlacement checks lines at every offset from a page boundary,
// both ways: the kernel loads the last block forward or backward
// depending on where it lies in its page.
func TestIndexPlacement(t *testing.T) {
	const page = 4096
	mem := make([]byte, 4*page)
	off := page - int(addrOf(mem)%page) // mem[off:] starts a page
	r := rand.New(rand.NewPCG(7, 8))
	for n := 1; n <= 200; n++ {
		line := make([]byte, n)
		for i := range line {
			line[i] = indexBytes[r.IntN(len(indexBytes))]
		}
		line[0] = '"'
		for shift := -70; shift <= 70; shift++ {
			// The line ends shift bytes after a page boundary, and, in
			// a second run, starts there.
			for _, at := range []int{off + 2*page + shift - n, off + page + shift} {
				if at < 0 || at+n > len(mem) {
					continue
				}
				b := mem[at : at+n : at+n]
				copy(b, line)
				checkIndex(t, b)
			}
		}
	}
}

// addrOf is the address of b's first byte.
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// FuzzIndex compares the two paths and the reference on any line.
func FuzzIndex(f *testing.F) {
	// The lines of render's golden transcripts.
	files, _ := filepath.Glob(filepath.Join("..", "..", "render", "testdata", "*.jsonl"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Add([]byte(`"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"\u12`))
	f.Fuzz(func(t *testing.T, b []byte) { checkIndex(t, b) })
}

// TestIndexReferenceSelf pins refIndex on a few lines.
func TestIndexReferenceSelf(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{``, true}, {`"a"`, true}, {`"\"`, true}, {`"\q"`, false}, {`"\u00e9"`, true},
		{`"\u00e"`, false}, {`\`, false}, {`\\`, true}, {"\"\x01\"", false}, {"\x01\"\"\x01", true},
	} {
		if _, ok := refIndex([]byte(tc.in)); ok != tc.ok {
			t.Errorf("refIndex(%q) = %v, want %v", tc.in, ok, tc.ok)
		}
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) { checkIndex(t, []byte(tc.in)) })
	}
}

// withAVX2 runs f with the AVX2 kernel on (where the CPU has it) or off.
func withAVX2(on bool, f func()) {
	defer SetAVX2(SetAVX2(on))
	f()
}
