package render_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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
// non-test files), as the package docs and the README's architecture map
// say. A new package needs an entry: its place in the layout is a decision.
var moduleImports = map[string][]string{
	"render":                     {"claudemem", "render/digest", "ident", "internal/shown", "pointer", "privacy", "workstate", "host/claudecode/transcript"},
	"bottles":                    {"ident", "internal/atomicfile"},
	"claudemem":                  {},
	"claudemem/memtest":          {},
	"render/digest":              {"internal/jsonscan", "privacy"},
	"internal/jsonscan":          {},
	"locate":                     {"claudemem", "ident", "privacy", "host/claudecode/transcript"},
	"ident":                      {},
	"internal/shown":             {"privacy"},
	"workstate":                  {"render/digest", "internal/shown", "privacy", "host/claudecode/transcript"},
	"pointer":                    {"ident", "internal/shown", "host/claudecode/transcript"},
	"privacy":                    {},
	"search":                     {"claudemem", "internal/jsonscan", "locate", "privacy", "host/claudecode/transcript"},
	"host/claudecode/transcript": {"render/digest", "internal/jsonscan", "privacy"},
	"internal/atomicfile":        {},
	"internal/claudesettings":    {"internal/atomicfile"},
	"internal/corpustest":        {},
	"internal/goldentest":        {},
	"internal/fidelity":          {"render", "host/claudecode/transcript"},
	"internal/hooklog":           {},
	"internal/gentranscript":     {},
	"tools":                      {"render", "bottles", "claudemem", "ident", "locate", "pointer", "privacy", "search"},
	"hookbin":                    {"render", "bottles", "claudemem", "ident", "locate", "pointer", "privacy", "search", "internal/claudesettings", "internal/hooklog"},
	"mcpserver":                  {"locate", "search", "tools", "internal/hooklog"},
	"e2e":                        {},
	"scripts/gentranscript":      {"internal/gentranscript"},
}

// adapters are the packages that speak to the outside: the MCP server, the
// hooks and the CLI, their tools, the e2e tests and the scripts' mains.
// Every other package is core.
var adapters = []string{"tools", "hookbin", "mcpserver", "e2e", "scripts/gentranscript"}

// coreForbidden are imports no core package may have (every package but
// the adapters): the core does no MCP and no logging (SPEC §2).
var coreForbidden = []string{"bottle/tools", "bottle/hookbin", "bottle/mcpserver", "github.com/mark3labs/mcp-go", "log", "log/slog"}

// TestLayout holds the import rules: each package imports only the
// in-module packages its entry allows, and the core (render/, internal/)
// imports no MCP or logging package and never writes to stdout or stderr.
func TestLayout(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
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

// TestArchitectureMap: the README's architecture table lists every package
// of the module, and nothing else.
func TestArchitectureMap(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Architecture\n")
	if !ok {
		t.Fatal("README has no ## Architecture section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if name, _, ok := strings.Cut(rest, "/` |"); ok {
				listed[name] = true
			}
		}
	}
	for name := range moduleImports {
		if !listed[name] {
			t.Errorf("package %s is missing from the README's architecture table", name)
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("the README's architecture table lists %s, which is not a package", name)
	}
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
