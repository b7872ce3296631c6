package digest

import "testing"

// TestSalientIgnoresResult pins the describer contract Both relies on: the
// salient part comes from the input alone, whatever the result.
func TestSalientIgnoresResult(t *testing.T) {
	check := func(name string, c Call, cwd string) {
		t.Helper()
		if a, b := describe(&c, cwd, true).salient, describe(&c, cwd, false).salient; a != b {
			t.Errorf("%s: salient with the result %q, without %q", name, a, b)
		}
		line, pending := Both(c, cwd)
		if line != Line(c, cwd) || pending != Pending(c, cwd) {
			t.Errorf("%s: Both = %q, %q; want %q, %q", name, line, pending, Line(c, cwd), Pending(c, cwd))
		}
	}
	for _, f := range fixtures() {
		check(f.name, f.call, f.cwd)
	}
	if testing.Short() {
		return
	}
	for _, path := range corpusFiles(t) {
		for _, c := range loadCalls(t, path) {
			check(path, c.Call, c.cwd)
		}
	}
}
