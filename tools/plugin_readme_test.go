package tools

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"bottle/pointer"
)

// TestPluginReadme: the plugin's README, the only one a release user gets,
// names every tool of tools/list and every prompt of prompts/list under the
// names Claude Code gives them under the plugin, every command of
// plugin/commands/, and nothing that does not exist.
func TestPluginReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "plugin", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(readme)
	c := newClient(t, newFixture(t).deps)
	ctx := context.Background()
	tl, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := pointer.PluginNames
	var served []string
	for _, tool := range tl.Tools {
		served = append(served, tool.Name)
		if want := "`" + names.Tool(tool.Name) + "`"; !strings.Contains(doc, want) {
			t.Errorf("plugin/README.md does not name the tool %s as %s", tool.Name, want)
		}
	}
	for _, p := range pl.Prompts {
		served = append(served, p.Name)
		if want := "/" + names.Tool(p.Name); !strings.Contains(doc, want) {
			t.Errorf("plugin/README.md does not name the prompt %s as %s", p.Name, want)
		}
	}
	if len(tl.Tools) == 0 || len(pl.Prompts) == 0 {
		t.Fatalf("the server lists %d tools and %d prompts", len(tl.Tools), len(pl.Prompts))
	}
	prefix := names.Tool("")
	for _, m := range regexp.MustCompile(regexp.QuoteMeta(prefix)+`(\w+)`).FindAllStringSubmatch(doc, -1) {
		if !slices.Contains(served, m[1]) {
			t.Errorf("plugin/README.md names %s, which the server does not serve", m[0])
		}
	}
	cmds, err := filepath.Glob(filepath.Join("..", "plugin", "commands", "*.md"))
	if err != nil || len(cmds) == 0 {
		t.Fatalf("no plugin commands: %v", err)
	}
	for _, f := range cmds {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		if want := "`/bottle:" + name; !strings.Contains(doc, want) {
			t.Errorf("plugin/README.md does not name the command /bottle:%s", name)
		}
	}
}
