package tools

import (
	"fmt"
	"testing"
)

// TestRenders: a server keeps the newest keptRenders renders; keeping one
// again makes it the newest; a nil Renders keeps nothing.
func TestRenders(t *testing.T) {
	var r Renders
	for i := range keptRenders + 2 {
		r.keep("s", fmt.Sprint(i), []byte{byte(i)})
	}
	// 0 and 1 are gone; keeping 2 again saves it from the next eviction.
	r.keep("s", "2", []byte{2})
	r.keep("other", "x", []byte{'x'})
	for _, tc := range []struct {
		id, version string
		want        []byte
	}{
		{"s", "0", nil},
		{"s", "1", nil},
		{"s", "2", []byte{2}},
		{"s", "3", nil},
		{"s", "4", []byte{4}},
		{"s", fmt.Sprint(keptRenders + 1), []byte{keptRenders + 1}},
		{"other", "x", []byte{'x'}},
		{"other", "2", nil},
		{"s", "", nil},
	} {
		if got := r.get(tc.id, tc.version); string(got) != string(tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("get(%q, %q) = %v, want %v", tc.id, tc.version, got, tc.want)
		}
	}
	if len(r.kept) != keptRenders {
		t.Errorf("%d renders kept, want %d", len(r.kept), keptRenders)
	}
	var none *Renders
	none.keep("s", "1", []byte{1})
	if got := none.get("s", "1"); got != nil {
		t.Errorf("a nil Renders returned %v", got)
	}
}
