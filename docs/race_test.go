package docs_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// raceBuildOnly are the packages whose tests read racemode.Enabled to build
// what they run the way they are built, not to check a sample: .ci/run runs
// them with the detector.
var raceBuildOnly = []string{"./e2e"}

// sampledTests are the tests of each package (as .ci/run names it, "./search")
// that read racemode.Enabled, themselves or through a function of their
// package's test files: under the race detector they check a sample.
func sampledTests(pkgs map[string]map[string]string) ([]string, error) {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		if slices.Contains(raceBuildOnly, pkg) {
			continue
		}
		fset := token.NewFileSet()
		reads, calls := map[string]bool{}, map[string][]string{}
		var tests []string
		for _, name := range slices.Sorted(maps.Keys(pkgs[pkg])) {
			f, err := parser.ParseFile(fset, name, pkgs[pkg][name], parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || fd.Body == nil {
					continue
				}
				fn := fd.Name.Name
				if strings.HasPrefix(fn, "Test") {
					tests = append(tests, fn)
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.SelectorExpr:
						if x, ok := n.X.(*ast.Ident); ok && x.Name == "racemode" && n.Sel.Name == "Enabled" {
							reads[fn] = true
						}
					case *ast.Ident:
						calls[fn] = append(calls[fn], n.Name)
					}
					return true
				})
			}
		}
		for _, test := range tests {
			seen := map[string]bool{test: true}
			for queue := []string{test}; len(queue) > 0; queue = queue[1:] {
				if reads[queue[0]] {
					out = append(out, pkg+" "+test)
					break
				}
				for _, c := range calls[queue[0]] {
					if !seen[c] {
						seen[c] = true
						queue = append(queue, c)
					}
				}
			}
		}
	}
	return out, nil
}

// wholeRun is one `go test` line of .ci/run without -race: its -run
// pattern and its packages.
type wholeRun struct {
	run  *regexp.Regexp
	pkgs []string
}

var (
	ciRunRE = regexp.MustCompile(`-run (?:'([^']*)'|(\S+))`)
	ciPkgRE = regexp.MustCompile(`(?:^|\s)(\./[\w./-]*)`)
)

// wholeRuns are .ci/run's `go test` commands that run without the race
// detector and name the tests they run (a line ending in "\" goes on).
func wholeRuns(script string) ([]wholeRun, error) {
	var runs []wholeRun
	for _, line := range strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "go test ") || strings.Contains(line, "-race") {
			continue
		}
		line, _, _ = strings.Cut(line, " | ") // what the output is piped to
		m := ciRunRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		pattern := m[1] + m[2]
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, fmt.Errorf("-run %q: %w", pattern, err)
		}
		r := wholeRun{run: re}
		for _, p := range ciPkgRE.FindAllStringSubmatch(line, -1) {
			r.pkgs = append(r.pkgs, p[1])
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// unwhole are the sampled tests no run of runs checks whole.
func unwhole(sampled []string, runs []wholeRun) []string {
	var out []string
	for _, s := range sampled {
		pkg, test, _ := strings.Cut(s, " ")
		if !slices.ContainsFunc(runs, func(r wholeRun) bool { return slices.Contains(r.pkgs, pkg) && r.run.MatchString(test) }) {
			out = append(out, s)
		}
	}
	return out
}

// moduleTestFiles are the module's test files by package, as .ci/run names
// them.
func moduleTestFiles(t *testing.T, root string) map[string]map[string]string {
	t.Helper()
	pkgs := map[string]map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := "./" + filepath.ToSlash(rel)
		if pkgs[pkg] == nil {
			pkgs[pkg] = map[string]string{}
		}
		pkgs[pkg][path] = string(src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestRaceSamples: a test that checks a sample of its data under the race
// detector (internal/racemode) is one .ci/run also runs without it, whole.
func TestRaceSamples(t *testing.T) {
	sampled, err := sampledTests(moduleTestFiles(t, ".."))
	if err != nil {
		t.Fatal(err)
	}
	if len(sampled) == 0 {
		t.Fatal("found no test that reads racemode.Enabled")
	}
	runs, err := wholeRuns(repoFile(t, ".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range unwhole(sampled, runs) {
		t.Errorf("%s checks a sample under -race, and no `go test -run` line of .ci/run without -race runs it", s)
	}
	t.Logf("%d tests sample under -race: %s", len(sampled), strings.Join(sampled, ", "))
}

// TestRaceSamplesCatches: a sampled test, directly or through a helper,
// that only a -race line or a line of another package runs is reported.
func TestRaceSamplesCatches(t *testing.T) {
	pkgs := map[string]map[string]string{
		"./a": {"a_test.go": `package a
func TestDirect(t *testing.T) { if racemode.Enabled { return } }
func TestHelped(t *testing.T) { inputs(t) }
func TestPlain(t *testing.T) {}
func inputs(t *testing.T) int { n := 8; if racemode.Enabled { n = 1 }; return n }
`},
		"./b":   {"b_test.go": "package b\nfunc TestOther(t *testing.T) { _ = racemode.Enabled }\n"},
		"./e2e": {"e_test.go": "package e2e\nfunc TestBuild(t *testing.T) { _ = racemode.Enabled }\n"},
	}
	sampled, err := sampledTests(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"./a TestDirect", "./a TestHelped", "./b TestOther"}; !slices.Equal(sampled, want) {
		t.Fatalf("sampledTests = %q, want %q", sampled, want)
	}
	script := "go test -race -count=1 -run 'TestHelped' ./a\n" +
		"go test -count=1 -run 'TestDirect|TestOther' \\\n\t./a ./c 2>&1 | grep -v x\n" +
		"go test -count=1 -v -run TestPlain ./b | grep -v y\n"
	runs, err := wholeRuns(script)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := unwhole(sampled, runs), []string{"./a TestHelped", "./b TestOther"}; !slices.Equal(got, want) {
		t.Errorf("unwhole = %q, want %q", got, want)
	}
}
