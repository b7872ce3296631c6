package tools

import (
	"strings"
	"testing"

	"bottle/pointer"
	"bottle/render/structural"
	"bottle/search"
)

// TestFootersEscaped: every footer a tool ends a result with starts with
// one of pointer.FooterOpenings, and a message line that reads as it is
// escaped in a bottle: a page of the bottle cannot end with a forged
// footer.
func TestFootersEscaped(t *testing.T) {
	s := session{id: "11111111-2222-4333-8444-555555555555"}
	var footers []string
	for _, p := range []page{
		{},
		{lines: 9, first: 0, last: 8, next: -1},
		{lines: 9, first: 2, last: 4, next: 5},
		{lines: 9, first: 2, last: 2, startChar: 300, next: 2, nextChar: 600},
	} {
		for _, status := range []string{"", statusRendered, statusReRendered, statusOlder} {
			footers = append(footers, p.footer("/b/x.md", s, status))
		}
	}
	hits := &search.Result{Total: 3, Hits: []search.Hit{{ID: "t1", Session: s.id}}}
	for _, tc := range []struct {
		res   *search.Result
		shown int
		a     searchArgs
	}{
		{&search.Result{}, 0, searchArgs{}},
		{hits, 0, searchArgs{offset: 5}},
		{hits, 1, searchArgs{}},
		{hits, 1, searchArgs{offset: 2}},
	} {
		footers = append(footers, searchFooter(tc.a, tc.res, tc.shown))
	}
	footers = append(footers, sessionsFooter("/p", 0, 20, 45), sessionsFooter("/p", 40, 45, 45))
	for _, f := range footers {
		f = strings.TrimSuffix(f, "\n")
		if !hasPrefixAny(f, pointer.FooterOpenings) {
			t.Errorf("footer %q starts with none of pointer.FooterOpenings", f)
		}
		if structural.Escape(f) == f {
			t.Errorf("a message line %q, which reads as a tool's footer, is not escaped", f)
		}
	}
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
