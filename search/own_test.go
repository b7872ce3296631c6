package search

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOwnRulesReads(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real-bottles")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "bottles")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	r := newOwnRules(Own{BottlesDir: link, Tools: []string{"mcp__bottle__read_bottle", "mcp__plugin_bottle_bottle__read_bottle"}})
	tests := []struct {
		tool string
		path string
		want bool
	}{
		{"Read", filepath.Join(link, "s.md"), true},
		{"Read", filepath.Join(real, "s.md"), true}, // the folder's real path
		{"Read", filepath.Join(link, "archive", "20260101T000000Z-s.md"), true},
		{"Read", filepath.Join(link, "x", "..", "s.md"), true},
		{"Read", filepath.Join(link, "..", "other.md"), false},
		{"Read", link, false}, // the folder itself
		{"Read", link + "2/s.md", false},
		{"Read", "bottles/s.md", false}, // relative: not resolvable
		{"Edit", filepath.Join(link, "s.md"), false},
		{"Grep", filepath.Join(link, "s.md"), false},
		{"mcp__bottle__read_bottle", "", true},
		{"mcp__plugin_bottle_bottle__read_bottle", "", true},
		{"mcp__other__read_bottle", "", false},
	}
	for _, tt := range tests {
		var paths []string
		if tt.path != "" {
			paths = []string{tt.path}
		}
		if got := r.reads(tt.tool, paths); got != tt.want {
			t.Errorf("reads(%q, %q) = %v, want %v", tt.tool, tt.path, got, tt.want)
		}
	}
	var none *ownRules
	if none.reads("mcp__bottle__read_bottle", nil) || newOwnRules(Own{}).reads("Read", []string{filepath.Join(link, "s.md")}) {
		t.Error("no rules: a call counted as bottle's own")
	}
	if newOwnRules(Own{BottlesDir: link}).key() == newOwnRules(Own{BottlesDir: real}).key() {
		t.Error("rules of two folders share an index key")
	}
}
