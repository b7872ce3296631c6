package search

import (
	"strings"
	"testing"
)

// FuzzPackText: a record's text packed for the store unpacks to itself
// (folded text and case differences alike), its word postings count each
// of its words as the scan does, and no stored bytes, however mangled,
// make the decoders of record text, trigram rows and word rows panic.
func FuzzPackText(f *testing.F) {
	f.Add("Hello, World: ÄÖÜ ß İ K", []byte{0, 1, 2})
	f.Add(string(make([]byte, 300)), []byte{packS2, 0xff, 0xff})
	f.Add("func main() { fmt.Println(\"Go\") }", []byte{packPlain, 5, 'a'})
	seen := newGramSeen()
	f.Fuzz(func(t *testing.T, text string, junk []byte) {
		text = cleanText(text)
		low := Fold(text)
		got, gotFolded, err := unpackText(packText(text, low))
		if err != nil || got != text || gotFolded != low {
			t.Fatalf("unpack(pack(%q)) = %q, %q, %v; want the text and %q", text, got, gotFolded, err, low)
		}
		gotLow, _, _, err := unpackLow(packText(text, low), nil)
		if err != nil || string(gotLow) != low {
			t.Fatalf("unpackLow(pack(%q)) = %q, %v; want %q", text, gotLow, err, low)
		}
		unpackText(junk)
		for _, g := range gramsOf(low, seen, nil) {
			findGram(junk, g)
		}
		decodeOrds(junk, nil)

		// The postings of the text (twice: two records) count each word
		// and each word's inside as the scan counts it in each.
		var wb wordBatch
		wb.add(0, low)
		wb.add(1, low+" "+low)
		voc, chunks := wb.encode()
		v, err := unpackBlob(voc, nil)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := decodeWordSeg(v)
		if err != nil {
			t.Fatal(err)
		}
		post := func(c int) ([]byte, error) { return unpackBlob(chunks[c], nil) }
		for _, f := range strings.FieldsFunc(low, func(r rune) bool { return r < 0x80 && !wordByte[r] }) {
			for _, term := range []string{f, f[len(f)/2:]} {
				if !wordTerm(term) {
					continue
				}
				tf := make([]int32, 2)
				if err := ws.addTerm(newNeedle(term), tf, post); err != nil {
					t.Fatal(err)
				}
				n := newNeedle(term).count(low)
				if tf[0] != int32(n) || tf[1] != int32(2*n) {
					t.Fatalf("postings of %q in %q: %v, want %d and %d", term, low, tf, n, 2*n)
				}
			}
		}
		if ws, err := decodeWordSeg(junk); err == nil {
			ws.addTerm(newNeedle("a"), make([]int32, len(ws.lens)), func(int) ([]byte, error) { return junk, nil })
			var mb wordBatch
			mb.mergeSeg(&ws, 0, func(int) ([]byte, error) { return junk, nil })
		}
		unpackBlob(junk, nil)
	})
}
