package jsonscan

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refMatch is FieldSet.match as it was, one name after the other.
func refMatch(fs *FieldSet, key []byte) int {
	for i, n := range fs.names {
		if string(key) == n {
			return i + 1
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return fs.matchFolded(key)
		}
	}
	for i, n := range fs.names {
		if len(n) == len(key) && asciiEqualFold(key, n) {
			return i + 1
		}
	}
	return 0
}

// TestFieldSetMatch compares match with refMatch on the names, their case
// and Unicode variants, escaped forms and random keys.
func TestFieldSetMatch(t *testing.T) {
	sets := []*FieldSet{
		// The transcript reader's sets.
		NewFieldSet("type", "subtype", "uuid", "sessionId", "cwd", "timestamp",
			"isSidechain", "isMeta", "isCompactSummary", "message", "compactMetadata"),
		NewFieldSet("trigger", "preTokens"),
		NewFieldSet("id", "model", "content"),
		NewFieldSet("type", "text", "id", "name", "input", "tool_use_id", "content", "is_error"),
		NewFieldSet("type", "text"),
		// Names that fold alike, and long ones.
		NewFieldSet("a", "A", "aa", "k", "s", "longer_than_eight", "LONGER_than_eight")}
	pieces := []string{"type", "Type", "TYPE", "id", "ID", "iD", "_", "is", "Meta", "ſ", "K", "K", "\\u0074", "\\\"", "\xff", "é",
		"s", "S", "k", "K", "e", "content", "use", "tool", "ession", "Id", "a", "A", "longer", "than", "eight", "LONGER"}
	r := rand.New(rand.NewPCG(9, 10))
	var keys [][]byte
	for _, fs := range sets {
		for _, n := range fs.names {
			keys = append(keys, []byte(n), []byte(n+"x"), []byte(n[:len(n)-1]))
		}
	}
	for range 200000 {
		var k []byte
		for n := r.IntN(5); n >= 0; n-- {
			k = append(k, pieces[r.IntN(len(pieces))]...)
		}
		keys = append(keys, k)
	}
	for _, fs := range sets {
		for _, k := range keys {
			if got, want := fs.Match(k), refMatch(fs, k); got != want {
				t.Fatalf("match(%q) in %v = %d, want %d", k, fs.names, got, want)
			}
		}
	}
}

// TestUpperASCII checks upperASCII on every byte value at every byte of
// a word, next to bytes that could carry or borrow.
func TestUpperASCII(t *testing.T) {
	for pos := 0; pos < 8; pos++ {
		for c := 0; c < 256; c++ {
			for _, fill := range []uint64{0, lsb * 0x7f, lsb * 0x80, lsb * 0xff, lsb * 'a', lsb * 'z'} {
				w := fill&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
				var want uint64
				for k := 0; k < 8; k++ {
					b := byte(w >> (8 * k))
					if 'a' <= b && b <= 'z' {
						b -= 'a' - 'A'
					}
					want |= uint64(b) << (8 * k)
				}
				if got := upperASCII(w); got != want {
					t.Fatalf("upperASCII(%#x) = %#x, want %#x", w, got, want)
				}
			}
		}
	}
}

// TestLiteral checks literal on every prefix of the literals and near
// misses.
func TestLiteral(t *testing.T) {
	for _, lit := range []string{"true", "false", "null"} {
		for n := 0; n <= len(lit); n++ {
			for _, tail := range []string{"", ",", "e", "x"} {
				in := lit[:n] + tail
				want := -1
				if strings.HasPrefix(in, lit) {
					want = len(lit)
				}
				if got := (&Scanner{b: []byte(in)}).Literal(0); got != want {
					t.Errorf("literal(%q) = %d, want %d", in, got, want)
				}
				// A byte off anywhere in the literal.
				if n == len(lit) {
					for i := range lit {
						b := []byte(in)
						b[i] ^= 0x20
						if got := (&Scanner{b: b}).Literal(0); got != -1 {
							t.Errorf("literal(%q) = %d, want -1", b, got)
						}
					}
				}
			}
		}
	}
}
