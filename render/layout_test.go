package render_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"bottle/render"
)

// moduleImports are the in-module packages each package may import (its
// non-test files), as the package docs and docs/architecture.md's package
// map say. A new package needs an entry: its place in the layout is a decision.
var moduleImports = map[string][]string{
	"render":                         {"claudemem", "render/digest", "render/record", "render/structural", "ident", "internal/shown", "pointer", "privacy", "workstate", "host/claudecode/transcript", "session"},
	"render/structural":              {"host/claudecode/transcript", "pointer", "workstate"},
	"render/record":                  {"claudemem", "internal/shown", "privacy", "session"},
	"bottles":                        {"ident", "internal/atomicfile"},
	"claudemem":                      {},
	"claudemem/memtest":              {},
	"render/digest":                  {"internal/jsonscan", "privacy"},
	"internal/jsonscan":              {},
	"locate":                         {"claudemem", "ident", "privacy", "host/claudecode/transcript", "host/codex", "internal/folders", "session"},
	"ident":                          {},
	"internal/shown":                 {"privacy"},
	"workstate":                      {"render/digest", "internal/shown", "privacy", "session"},
	"pointer":                        {"ident", "internal/shown", "host/claudecode/transcript", "host/claudecode/toolnames", "session"},
	"privacy":                        {},
	"search":                         {"claudemem", "internal/jsonscan", "locate", "privacy", "host/claudecode/transcript", "session"},
	"host/claudecode/transcript":     {"render/digest", "internal/jsonscan", "privacy", "session"},
	"host/claudecode/toolnames":      {},
	"session":                        {"render/digest"},
	"host/codex":                     {"session", "render/digest", "internal/shown", "privacy", "pointer", "internal/codexconfig"},
	"internal/atomicfile":            {},
	"internal/folders":               {},
	"internal/hookio":                {},
	"internal/permit":                {"ident", "internal/folders", "internal/hooklog", "internal/hookio", "host/claudecode/toolnames"},
	"pretooluse":                     {"internal/folders", "internal/permit", "internal/version"},
	"internal/claudesettings":        {"internal/atomicfile"},
	"internal/codexconfig":           {"internal/claudesettings"},
	"internal/measure/corpustest":    {},
	"internal/goldentest":            {},
	"internal/racemode":              {},
	"internal/measure/fidelity":      {"render", "host/claudecode/transcript", "session"},
	"internal/hooklog":               {"privacy"},
	"internal/measure/gentranscript": {},
	"internal/testbin":               {},
	"internal/version":               {},
	"tools":                          {"render", "bottles", "claudemem", "ident", "locate", "pointer", "privacy", "search"},
	"hookbin":                        {"render", "bottles", "claudemem", "ident", "locate", "pointer", "privacy", "search", "internal/claudesettings", "internal/hooklog", "internal/hookio", "internal/permit", "host/codex", "internal/codexconfig", "internal/version"},
	"mcpserver":                      {"locate", "search", "tools", "pointer", "host/codex", "internal/hooklog", "internal/version"},
	"e2e":                            {},
	"scripts/gentranscript":          {"internal/measure/gentranscript"},
}

// adapters are the packages that speak to the outside: the MCP server, the
// hooks and the CLI, their tools, the e2e tests and the scripts' mains.
// Every other package is core.
var adapters = []string{"tools", "hookbin", "mcpserver", "pretooluse", "e2e", "scripts/gentranscript"}

// coreForbidden are imports no core package may have (every package but
// the adapters): the core does no MCP and no logging (docs/architecture.md).
var coreForbidden = []string{"bottle/tools", "bottle/hookbin", "bottle/mcpserver", "github.com/mark3labs/mcp-go", "log", "log/slog"}

// TestLayout holds the import rules: each package imports only the
// in-module packages its entry allows, and the core (render/, internal/)
// imports no MCP or logging package and never writes to stdout or stderr.
func TestLayout(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := moduleFiles(fset, "..")
	if err != nil {
		t.Fatal(err)
	}
	for name := range moduleImports {
		if _, ok := pkgs[name]; !ok {
			t.Errorf("moduleImports names %s, which has no Go files", name)
		}
	}
	for name, files := range pkgs {
		allowed, ok := moduleImports[name]
		if !ok {
			t.Errorf("package %s has no entry in moduleImports: say what it may import", name)
			continue
		}
		core := !slices.Contains(adapters, name)
		for _, f := range files {
			file := fset.Position(f.Package).Filename
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if dep, ok := strings.CutPrefix(path, "bottle/"); ok && !slices.Contains(allowed, dep) {
					t.Errorf("%s imports %s; %s may import only %v", file, path, name, allowed)
				}
				for _, bad := range coreForbidden {
					if core && (path == bad || strings.HasPrefix(path, bad+"/")) {
						t.Errorf("%s imports %s: the core does no MCP and no logging", file, path)
					}
				}
			}
			if !core {
				continue
			}
			for _, w := range stdWrites(fset, f) {
				t.Errorf("%s: the core never writes to stdout or stderr", w)
			}
		}
	}
}

// stdWrites lists the places in f that name os.Stdout, os.Stderr or a
// fmt.Print function.
func stdWrites(fset *token.FileSet, f *ast.File) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok {
			switch {
			case x.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr"),
				x.Name == "fmt" && strings.HasPrefix(sel.Sel.Name, "Print"):
				found = append(found, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), x.Name, sel.Sel.Name))
			}
		}
		return true
	})
	return found
}

// TestLayoutCatches: the stdout check is not vacuous.
func TestLayoutCatches(t *testing.T) {
	src := "package x\nimport (\n\"fmt\"\n\"os\"\n)\nfunc f() { fmt.Println(os.Stdout); fmt.Fprintln(os.Stderr) }\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := stdWrites(fset, f); len(got) != 3 {
		t.Errorf("stdWrites finds %v in %q, want fmt.Println, os.Stdout and os.Stderr", got, src)
	}
}

// TestArchitectureMap: docs/architecture.md's package map lists every
// package of the module and nothing else, and each row's import column
// names exactly the module's packages that package's non-test files import.
func TestArchitectureMap(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed, err := architectureMap(string(page))
	if err != nil {
		t.Fatal(err)
	}
	actual, err := moduleImportsOf("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range compareArchitectureMap(listed, actual) {
		t.Error("docs/architecture.md: " + p)
	}
}

// TestArchitectureMapCatches: a package missing from the map, one listed
// that does not exist, an import the column lacks and one it names
// falsely are each reported.
func TestArchitectureMapCatches(t *testing.T) {
	page := "# Architecture\n\n## Package map\n\n| package | owns | may import (in the module) |\n|---|---|---|\n" +
		"| `render/` | sources → bottle | `privacy` (stripping), `locate` |\n" +
		"| `privacy/` | the stripper | — |\n" +
		"| `gone/` | nothing | — |\n\n## Data flow\n\n| `late/` | not in the map | — |\n"
	listed, err := architectureMap(page)
	if err != nil {
		t.Fatal(err)
	}
	actual := map[string][]string{
		"render":  {"privacy", "claudemem"},
		"privacy": {},
		"search":  {"privacy"},
	}
	got := compareArchitectureMap(listed, actual)
	want := []string{
		"the map lists gone, which is not a package of the module",
		"render imports claudemem, which its row does not name",
		"render's row names locate, which it does not import",
		"package search is missing from the map",
	}
	if !slices.Equal(got, want) {
		t.Errorf("compareArchitectureMap = %q, want %q", got, want)
	}
	if _, err := architectureMap("# Architecture\n"); err == nil {
		t.Error("a page without a package map parsed")
	}
}

// architectureMap reads the package map (the table under "## Package map")
// of docs/architecture.md: each package and the module packages its last
// column names in backquotes.
func architectureMap(page string) (map[string][]string, error) {
	_, section, ok := strings.Cut(page, "\n## Package map\n")
	if !ok {
		return nil, fmt.Errorf("no ## Package map section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		rest, ok := strings.CutPrefix(line, "| `")
		if !ok {
			continue
		}
		name, rest, ok := strings.Cut(rest, "/` |")
		if !ok {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimSpace(rest), "|"), " | ")
		imports := []string{}
		for _, f := range strings.Split(cells[len(cells)-1], "`")[1:] {
			imports = append(imports, f)
		}
		// Backquoted names are every other field: `a` (note), `b`.
		var names []string
		for i := 0; i < len(imports); i += 2 {
			names = append(names, imports[i])
		}
		listed[name] = names
	}
	if len(listed) == 0 {
		return nil, fmt.Errorf("the package map lists no package")
	}
	return listed, nil
}

// compareArchitectureMap says where the map and the module's real imports
// differ, in a stable order.
func compareArchitectureMap(listed, actual map[string][]string) []string {
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		imports, ok := actual[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("the map lists %s, which is not a package of the module", name))
			continue
		}
		for _, dep := range imports {
			if !slices.Contains(listed[name], dep) {
				problems = append(problems, fmt.Sprintf("%s imports %s, which its row does not name", name, dep))
			}
		}
		for _, dep := range listed[name] {
			if !slices.Contains(imports, dep) {
				problems = append(problems, fmt.Sprintf("%s's row names %s, which it does not import", name, dep))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(actual)) {
		if _, ok := listed[name]; !ok {
			problems = append(problems, fmt.Sprintf("package %s is missing from the map", name))
		}
	}
	return problems
}

// moduleFiles parses the non-test Go files of the module under root, by
// package (its folder, relative to root).
func moduleFiles(fset *token.FileSet, root string) (map[string][]*ast.File, error) {
	pkgs := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		pkgs[rel] = append(pkgs[rel], f)
		return nil
	})
	return pkgs, err
}

// moduleImportsOf maps every package of the module under root that has
// non-test Go files to the module packages those files import, sorted.
func moduleImportsOf(root string) (map[string][]string, error) {
	pkgs, err := moduleFiles(token.NewFileSet(), root)
	if err != nil {
		return nil, err
	}
	actual := map[string][]string{}
	for name, files := range pkgs {
		imports := []string{}
		for _, f := range files {
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if dep, ok := strings.CutPrefix(p, "bottle/"); ok && !slices.Contains(imports, dep) {
					imports = append(imports, dep)
				}
			}
		}
		slices.Sort(imports)
		actual[name] = imports
	}
	return actual, nil
}

// TestREADMEExample: the README's sample bottle is what
// `hookbin render --example` prints.
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "\n## What a bottle looks like\n")
	if !ok {
		t.Fatal("README has no ## What a bottle looks like section")
	}
	_, block, ok := strings.Cut(after, "\n````markdown\n")
	if !ok {
		t.Fatal("the section has no ````markdown block")
	}
	block, _, _ = strings.Cut(block, "````\n")
	want, err := render.Example()
	if err != nil {
		t.Fatal(err)
	}
	if block != string(want) {
		t.Errorf("the README's sample bottle differs from render.Example():\n%s", cmp.Diff(string(want), block))
	}
}
