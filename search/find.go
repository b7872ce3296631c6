package search

import "strings"

// needle is a folded term with the offset of its rarest byte: looking for
// that byte first skips most of a text at memchr speed, where looking for
// the first byte ('t', 'e', ' ') stops at nearly every word.
type needle struct {
	s    string
	rare int
}

func newNeedle(s string) needle {
	n := needle{s: s}
	for i := 1; i < len(s); i++ {
		if byteRank(s[i]) < byteRank(s[n.rare]) {
			n.rare = i
		}
	}
	return n
}

// byteRank orders bytes by how common they are in transcripts' folded text
// (lower is rarer): letters by English frequency, then space and the most
// common punctuation; everything else counts as rare.
func byteRank(c byte) int {
	const common = " etaoinsrlcdhump\n.f/g_-ybw,v\"k:()=x0123456789"
	if i := strings.IndexByte(common, c); i >= 0 {
		return 100 + len(common) - i
	}
	return 0
}

// index is the offset of the first occurrence of n in s, or -1.
func (n needle) index(s string) int {
	if len(n.s) <= 1 || n.rare == 0 && byteRank(n.s[0]) > 0 {
		return strings.Index(s, n.s)
	}
	c := n.s[n.rare]
	for from := n.rare; from < len(s); {
		j := strings.IndexByte(s[from:], c)
		if j < 0 {
			return -1
		}
		at := from + j - n.rare
		if at+len(n.s) > len(s) {
			return -1
		}
		if s[at:at+len(n.s)] == n.s {
			return at
		}
		from += j + 1
	}
	return -1
}

// count is the number of non-overlapping occurrences of n in s.
func (n needle) count(s string) int {
	c := 0
	for {
		i := n.index(s)
		if i < 0 {
			return c
		}
		c++
		s = s[i+len(n.s):]
	}
}
