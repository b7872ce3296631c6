package render

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// neutralPackages are the packages every host's sessions go through: they
// take a host's session model or reader and name no host beyond Claude
// Code's default (the second host plugs in through session.Reader and
// locate).
var neutralPackages = []string{"session", "render", "render/digest", "render/structural", "render/record", "workstate", "search", "ident", "pointer", "privacy"}

// hostNames are words that name the second host.
var hostNames = regexp.MustCompile(`(?i)codex`)

// TestHostNeutral: no non-test file of a host-neutral package names the
// second host, in code or comments.
func TestHostNeutral(t *testing.T) {
	for _, pkg := range neutralPackages {
		dir := filepath.Join("..", filepath.FromSlash(pkg))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range hostLines(string(data)) {
				t.Errorf("%s/%s: names a host: %s", pkg, e.Name(), l)
			}
		}
	}
}

// hostLines are the lines of src that name the second host.
func hostLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if hostNames.MatchString(l) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

func TestHostNeutralCatches(t *testing.T) {
	src := "package x\n// Codex's rollouts\nvar r = codexReader\nvar ok = 1\n"
	if got := hostLines(src); len(got) != 2 {
		t.Errorf("hostLines finds %q, want the comment and the variable", got)
	}
}
