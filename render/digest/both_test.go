package digest

import "testing"

// TestSalientIgnoresResult pins the describer contract Describe relies on:
// the salient part comes from the input alone, whatever the result.
func TestSalientIgnoresResult(t *testing.T) {
	check := func(name string, c Call, cwd string) {
		t.Helper()
		if a, b := describe(&c, cwd, true).salient, describe(&c, cwd, false).salient; a != b {
			t.Errorf("%s: salient with the result %q, without %q", name, a, b)
		}
		f := Describe(c, cwd)
		if f.Full() != fullLine(c, cwd) || f.Pending() != Pending(c, cwd) {
			t.Errorf("%s: Describe = %q, %q; want %q, %q", name, f.Full(), f.Pending(), fullLine(c, cwd), Pending(c, cwd))
		}
		if n := runeLen(f.Full() + f.Detail()); n > MaxRunes && f.Detail() != "" {
			t.Errorf("%s: line and detail %q are %d runes, over %d", name, f.Full()+f.Detail(), n, MaxRunes)
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
