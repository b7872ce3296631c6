// Package docs_test keeps the README and the pages under docs/ true to the
// repository: the README stays a short user's guide, the fuzz table names
// exactly the targets .ci/run fuzzes and the code defines, and no comment,
// doc or script cites a document a clone does not hold. It has no code of
// its own: the pages are markdown, and these tests read them.
package docs_test

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeMaxLines bounds the README: it is for users (what bottle is, how to
// install and run it); what developers need lives under docs/.
const readmeMaxLines = 400

// repoFile is a file of the repository, named from its root.
func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestREADMELength(t *testing.T) {
	if n := strings.Count(repoFile(t, "README.md"), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move what is not for users to docs/", n, readmeMaxLines)
	}
}

// citationRE matches a citation of a document outside the repository: the
// product spec's sections, issue numbers, and paths into the shared folder
// beside the clone or its reference notes. Every section sign is one: the
// repository's own pages are cited by file and heading.
var citationRE = regexp.MustCompile(`SPEC\b|§|\b[Ii]ssues? #?[0-9]+|\.\./shared\b|\breference/[\w.-]+\.(?:md|sql)`)

// corpusPath is the corpus's default location: the tests' data, and
// configuration rather than a citation.
const corpusPath = "../shared/corpus"

// citations returns the lines of text that cite outside the repository, as
// "line: text".
func citations(text string) []string {
	var found []string
	for i, line := range strings.Split(text, "\n") {
		if citationRE.MatchString(strings.ReplaceAll(line, corpusPath, "")) {
			found = append(found, fmt.Sprintf("%d: %s", i+1, strings.TrimSpace(line)))
		}
	}
	return found
}

// commentText is what a file says in prose: a Go file's comments (string
// literals are data: tests may hold any text), a script's # lines, a
// markdown file whole.
func commentText(path string, src []byte) (string, error) {
	switch {
	case strings.HasSuffix(path, ".go"):
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return "", err
		}
		lines := make([]string, strings.Count(string(src), "\n")+1)
		for _, g := range f.Comments {
			for _, c := range g.List {
				start := fset.Position(c.Pos()).Line
				for j, l := range strings.Split(c.Text, "\n") {
					lines[start-1+j] += l
				}
			}
		}
		return strings.Join(lines, "\n"), nil
	case strings.HasSuffix(path, ".md"):
		return string(src), nil
	default:
		lines := strings.Split(string(src), "\n")
		for i, l := range lines {
			if _, c, ok := strings.Cut(l, "#"); ok {
				lines[i] = c
			} else {
				lines[i] = ""
			}
		}
		return strings.Join(lines, "\n"), nil
	}
}

// TestNoOutsideCitations: no Go comment, markdown page or script comment in
// the repository cites the spec, an issue or a file outside the repository.
func TestNoOutsideCitations(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || d.Name() == "dist" ||
				(strings.HasPrefix(d.Name(), ".") && rel != ".ci" && rel != ".claude-plugin")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, ".md") && !strings.HasSuffix(rel, ".sh") &&
			!strings.HasSuffix(rel, ".py") && rel != ".ci/run" && !strings.HasPrefix(rel, "plugin/bin/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text, err := commentText(rel, src)
		if err != nil {
			return err
		}
		scanned++
		for _, c := range citations(text) {
			t.Errorf("%s:%s: cites outside the repository; cite docs/ or say it in words", rel, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 100 {
		t.Errorf("scanned %d files; the walk is missing the repository", scanned)
	}
}

// TestNoOutsideCitationsCatches: each kind of citation is found, in Go
// comments and scripts, and what is not a citation is not.
// The words of the citations TestNoOutsideCitationsCatches plants, spelled
// in pieces so that this file does not cite what it tests for.
const (
	spec   = "SP" + "EC"
	issue  = "iss" + "ue"
	shared = ".." + "/shared"
)

func TestNoOutsideCitationsCatches(t *testing.T) {
	for _, tt := range []struct {
		path, src string
		want      int
	}{
		{"a.go", "package a\n\n// Modes (" + spec + " §3.3).\nvar x = 1\n", 1},
		{"a.go", "package a\n\n/* as " + issue + " 15 defines */\nvar x = 1\n", 1},
		{"a.go", "package a\n\n// see " + shared + "/reference/transcript-format.md\nvar x = 1\n", 1},
		{"a.go", "package a\n\n// after reference/claude-mem-schema.sql\nvar x = 1\n", 1},
		{"a.go", "package a\n\n// transcript-format.md §1\nvar x = 1\n", 1},
		{"a.go", "package a\n\nvar x = \"" + issue + " 123 and " + spec + " §2\" // data, not prose\n", 0},
		{"a.go", "package a\n\n// The corpus: $BOTTLE_CORPUS, else ../shared/corpus.\nvar x = 1\n", 0},
		{"a.go", "package a\n\n// docs/format.md, \"The budget\"; golang/go#75804.\nvar x = 1\n", 0},
		{"run", "# runs with " + shared + " beside it\necho hi\n", 1},
		{"run", "echo \"" + issue + " 9\"\n# fine\n", 0},
		{"x.md", "See " + spec + ".md.\n", 1},
	} {
		text, err := commentText(tt.path, []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := citations(text); len(got) != tt.want {
			t.Errorf("citations in %s %q = %q, want %d", tt.path, tt.src, got, tt.want)
		}
	}
}

// fuzzTarget is one fuzz target: its package (as .ci/run names it,
// "./privacy") and its name.
type fuzzTarget struct{ pkg, name string }

func (f fuzzTarget) String() string { return f.pkg + " " + f.name }

var (
	ciFuzzRE  = regexp.MustCompile(`(?m)^fuzz (\./\S+) (Fuzz\w+)`)
	docFuzzRE = regexp.MustCompile("(?m)^\\| `(Fuzz\\w+)` \\| `(\\./[^`]+)` \\|")
	codeFuzzR = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
)

// ciFuzzTargets are the targets .ci/run fuzzes.
func ciFuzzTargets(run string) []fuzzTarget {
	var ts []fuzzTarget
	for _, m := range ciFuzzRE.FindAllStringSubmatch(run, -1) {
		ts = append(ts, fuzzTarget{m[1], m[2]})
	}
	return ts
}

// docFuzzTargets are the rows of testing.md's fuzz table.
func docFuzzTargets(page string) []fuzzTarget {
	var ts []fuzzTarget
	for _, m := range docFuzzRE.FindAllStringSubmatch(page, -1) {
		ts = append(ts, fuzzTarget{m[2], m[1]})
	}
	return ts
}

// codeFuzzTargets are the Fuzz functions of the module's test files.
func codeFuzzTargets(t *testing.T, root string) []fuzzTarget {
	t.Helper()
	var ts []fuzzTarget
	pkgs := moduleTestFiles(t, root)
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		for _, path := range slices.Sorted(maps.Keys(pkgs[pkg])) {
			for _, m := range codeFuzzR.FindAllStringSubmatch(pkgs[pkg][path], -1) {
				ts = append(ts, fuzzTarget{pkg, m[1]})
			}
		}
	}
	return ts
}

// compareFuzz says how the lists differ: each target must appear once in
// each, and every list must hold the same targets.
func compareFuzz(lists map[string][]fuzzTarget) []string {
	var problems []string
	all := map[fuzzTarget]bool{}
	for _, name := range slices.Sorted(maps.Keys(lists)) {
		seen := map[fuzzTarget]bool{}
		for _, f := range lists[name] {
			if seen[f] {
				problems = append(problems, fmt.Sprintf("%s names %s twice", name, f))
			}
			seen[f] = true
			all[f] = true
		}
	}
	for _, f := range slices.SortedFunc(maps.Keys(all), func(a, b fuzzTarget) int { return strings.Compare(a.String(), b.String()) }) {
		for _, name := range slices.Sorted(maps.Keys(lists)) {
			if !slices.Contains(lists[name], f) {
				problems = append(problems, fmt.Sprintf("%s lacks %s", name, f))
			}
		}
	}
	return problems
}

// TestFuzzTargets: docs/testing.md's fuzz table, .ci/run's fuzz list and the
// code's Fuzz functions name the same targets in the same packages.
func TestFuzzTargets(t *testing.T) {
	lists := map[string][]fuzzTarget{
		".ci/run":         ciFuzzTargets(repoFile(t, ".ci/run")),
		"docs/testing.md": docFuzzTargets(repoFile(t, "docs/testing.md")),
		"the code":        codeFuzzTargets(t, ".."),
	}
	if len(lists["the code"]) == 0 {
		t.Fatal("found no Fuzz function in the module")
	}
	for _, p := range compareFuzz(lists) {
		t.Error(p)
	}
}

// TestFuzzTargetsCatches: a target missing from the table, fuzzed in the
// wrong package, or listed twice is reported.
func TestFuzzTargetsCatches(t *testing.T) {
	run := "fuzz ./render FuzzExitCode\nfuzz ./privacy FuzzStrip\nfuzz ./hookbin FuzzHostileSession -fuzzminimizetime 5s\n"
	page := "| `FuzzStrip` | `./privacy` | x |\n| `FuzzHostileSession` | `./render` | y |\n| `FuzzStrip` | `./privacy` | x |\n"
	got := compareFuzz(map[string][]fuzzTarget{"ci": ciFuzzTargets(run), "doc": docFuzzTargets(page)})
	want := []string{
		"doc names ./privacy FuzzStrip twice",
		"doc lacks ./hookbin FuzzHostileSession",
		"doc lacks ./render FuzzExitCode",
		"ci lacks ./render FuzzHostileSession",
	}
	if !slices.Equal(got, want) {
		t.Errorf("compareFuzz = %q, want %q", got, want)
	}
}

// TestDocsLinks: every relative link of the README and the docs pages
// names a file of the repository, and every #anchor a heading of it.
func TestDocsLinks(t *testing.T) {
	linkRE := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"), filepath.Join("..", "plugin", "README.md"))
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(src), -1) {
			target, anchor := m[1], m[2]
			if strings.Contains(target, "://") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), target)
			}
			body, err := os.ReadFile(file)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", page, target)
				continue
			}
			if anchor != "" && !hasAnchor(string(body), anchor[1:]) {
				t.Errorf("%s links to %s%s: no such heading", page, target, anchor)
			}
		}
	}
}

// hasAnchor says whether markdown has a heading whose GitHub anchor is a.
func hasAnchor(markdown, a string) bool {
	sc := bufio.NewScanner(strings.NewReader(markdown))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
				b.WriteRune(r)
			}
		}
		if b.String() == a {
			return true
		}
	}
	return false
}

// TestREADMETestCommand: the test command the README gives is the one
// .ci/run runs, so a green CI run is the README's command passing.
func TestREADMETestCommand(t *testing.T) {
	_, tests, ok := strings.Cut(repoFile(t, "README.md"), "\n## Tests\n")
	if !ok {
		t.Fatal("README.md has no ## Tests section")
	}
	_, block, ok := strings.Cut(tests, "```sh\n")
	if !ok {
		t.Fatal("README.md's Tests section has no sh block")
	}
	command, _, _ := strings.Cut(block, "\n")
	command, _, _ = strings.Cut(command, "#")
	command = strings.TrimSpace(command)
	if !strings.HasPrefix(command, "go test") || !slices.Contains(strings.Split(repoFile(t, ".ci/run"), "\n"), command) {
		t.Errorf("README.md's test command %q is not a line of .ci/run", command)
	}
}

// TestREADMEPackages: the README's Architecture section names every package
// of the module, so a reader sees the whole layout before opening
// docs/architecture.md.
func TestREADMEPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}", "bottle/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 10 {
		t.Fatalf("go list printed %q: too few packages to be the module", out)
	}
	_, section, ok := strings.Cut(repoFile(t, "README.md"), "\n## Architecture\n")
	if !ok {
		t.Fatal("README has no ## Architecture section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, p := range pkgs {
		if name := strings.TrimPrefix(p, "bottle/"); !strings.Contains(section, "`"+name+"`") {
			t.Errorf("the README's Architecture section does not name %s", name)
		}
	}
}
