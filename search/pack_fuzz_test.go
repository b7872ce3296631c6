package search

import (
	"testing"
)

// FuzzPackText: a record's text packed for the store unpacks to itself
// (folded text and case differences alike), and no stored bytes, however
// mangled, make the decoders of record text and trigram rows panic.
func FuzzPackText(f *testing.F) {
	f.Add("Hello, World: ÄÖÜ ß İ K", []byte{0, 1, 2})
	f.Add(string(make([]byte, 300)), []byte{packS2, 0xff, 0xff})
	f.Add("func main() { fmt.Println(\"Go\") }", []byte{packPlain, 5, 'a'})
	seen := newGramSeen()
	f.Fuzz(func(t *testing.T, text string, junk []byte) {
		text = cleanText(text)
		low := Fold(text)
		got, err := unpackText(packText(text, low))
		if err != nil || got != text {
			t.Fatalf("unpack(pack(%q)) = %q, %v", text, got, err)
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
	})
}
