package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"bottle/internal/racemode"
	"bottle/locate"
	"bottle/pointer"
)

var update = flag.Bool("update", false, "rewrite the goldens under testdata/ (tools/list, prompts/list)")

// TestToolsListGolden pins what the model sees of every tool: names,
// descriptions, input schemas and annotations. Refresh with
// go test ./tools -run TestToolsListGolden -update, and review the diff.
func TestToolsListGolden(t *testing.T) {
	c := newClient(t, newFixture(t).deps)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tools_list.golden.json", "tools/list", res.Tools)
}

// checkGolden compares v, as indented JSON, with testdata/name (written
// instead with -update).
func checkGolden(t *testing.T, name, what string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tools -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from %s (-want +got); run with -update if intended:\n%s", what, path, diff)
	}
}

// TestToolNames holds pointer.ToolNames, the tools bottle's PreToolUse hook
// lets through without a permission prompt, to the tools the server offers.
func TestToolNames(t *testing.T) {
	var got []string
	for _, st := range All(newFixture(t).deps) {
		got = append(got, st.Tool.Name)
	}
	if diff := cmp.Diff(pointer.ToolNames, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("pointer.ToolNames differs from the server's tools (-ToolNames +server):\n%s", diff)
	}
}

func TestToolDefinitions(t *testing.T) {
	c := newClient(t, newFixture(t).deps)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	want := map[string]hints{
		"render_bottle":      {readOnly: false, destructive: false, idempotent: true},
		"read_bottle":        {readOnly: true, idempotent: true},
		"expand_observation": {readOnly: true, idempotent: true},
		"search_history":     {readOnly: true, idempotent: true},
		"list_sessions":      {readOnly: true, idempotent: true},
	}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		a := tool.Annotations
		got := hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}
		if got != w {
			t.Errorf("%s annotations %+v, want %+v", tool.Name, got, w)
		}
		// Claude Code truncates descriptions at 2 KB; each shows an example.
		if n := len(tool.Description); n > 2048 {
			t.Errorf("%s description is %d bytes, want ≤ 2048", tool.Name, n)
		}
		if !strings.Contains(tool.Description, "Example: {") {
			t.Errorf("%s description has no example argument object", tool.Name)
		}
		if len("mcp__bottle__"+tool.Name) > 64 {
			t.Errorf("%s: model-facing name too long", tool.Name)
		}
		if tool.OutputSchema.Type != "" {
			t.Errorf("%s declares an output schema; results are text only", tool.Name)
		}
		for name, p := range tool.InputSchema.Properties {
			m, _ := p.(map[string]any)
			if m["type"] == nil || m["description"] == nil {
				t.Errorf("%s.%s lacks a type or description: %v", tool.Name, name, p)
			}
		}
	}
	for _, names := range []pointer.MCPNames{pointer.SettingsNames, pointer.PluginNames} {
		if n := len(ServerInstructions(names)); n > 2048 {
			t.Errorf("instructions for %s are %d bytes, want ≤ 2048", names.Server, n)
		}
	}
}

// TestInstructionsToolNames: under the plugin ($CLAUDE_PLUGIN_ROOT set) the
// instructions name the tools mcp__plugin_bottle_bottle__<tool>.
func TestInstructionsToolNames(t *testing.T) {
	for _, tt := range []struct {
		root, want, not string
	}{
		{"", "mcp__bottle__read_bottle", "mcp__plugin_"},
		{"/p/plugin", "mcp__plugin_bottle_bottle__read_bottle", "mcp__bottle__"},
	} {
		d := Deps{Env: locate.Env{Getenv: func(k string) string {
			if k == "CLAUDE_PLUGIN_ROOT" {
				return tt.root
			}
			return ""
		}}}
		got := ServerInstructions(d.names())
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("root %q: instructions end %q, want %s and no %s", tt.root, got[strings.LastIndex(got, "\n")+1:], tt.want, tt.not)
		}
	}
}

func TestInitializeInstructions(t *testing.T) {
	_, res := startClient(t, NewServer(newFixture(t).deps, "v9"))
	if res.ServerInfo.Name != "bottle" || res.ServerInfo.Version != "v9" {
		t.Errorf("server info %+v", res.ServerInfo)
	}
	if res.Instructions != ServerInstructions(pointer.SettingsNames) || !strings.Contains(res.Instructions, "mcp__bottle__read_bottle") {
		t.Errorf("instructions %q", res.Instructions)
	}
	if res.Capabilities.Tools == nil || res.Capabilities.Tools.ListChanged {
		t.Errorf("tools capability %+v, want listChanged false", res.Capabilities.Tools)
	}
}

// TestPanicRecovered: a panicking handler becomes an error of that call and
// the server goes on serving.
func TestPanicRecovered(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	s := NewServer(f.deps, "test")
	s.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("kaboom")
	})
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "boom"
	if _, err := c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), "panic recovered") {
		t.Errorf("panicking tool: err = %v, want a recovered panic", err)
	}
	wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))
}

// TestConcurrentCalls runs every tool from many goroutines at once (mcp-go
// serves stdio tool calls on a worker pool); run with -race.
func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow.Add(-time.Hour))
	f.addTranscript(t, "commands", commandsSID, fixedNow)
	f.addDB(t, rowsExpand)
	c := newClient(t, f.deps)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 16 {
		wg.Go(func() {
			id := []string{basicSID, commandsSID}[i%2]
			for _, tc := range []struct {
				name string
				args map[string]any
			}{
				{"render_bottle", map[string]any{"session_id": id}},
				{"read_bottle", map[string]any{"session_id": id, "max_chars": 200}},
				{"read_bottle", map[string]any{}},
				{"expand_observation", map[string]any{"ids": []any{"4242", "t1"}, "session_id": basicSID}},
			} {
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = tc.name, tc.args
				res, err := c.CallTool(context.Background(), req)
				if err != nil || res.IsError {
					errs <- tc.name + ": " + errText(err, res)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Concurrent renders leave a complete bottle and no temp files.
	entries, _ := os.ReadDir(f.deps.Env.BottlesDir())
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			t.Errorf("stray file %s in the bottles folder", e.Name())
		}
	}
}

func errText(err error, res *mcp.CallToolResult) string {
	if err != nil {
		return err.Error()
	}
	var b bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMemoryFlat: a thousand calls leave the heap where it was.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	if racemode.Enabled {
		// The detector slows each call tenfold and its own memory is not
		// the heap measured here; .ci/run measures without it.
		t.Skip("a measurement of memory, made without the race detector")
	}
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	f.addDB(t, rowsExpand)
	c := newClient(t, f.deps)
	calls := []struct {
		name string
		args map[string]any
	}{
		{"read_bottle", map[string]any{"session_id": basicSID}},
		{"render_bottle", map[string]any{"session_id": basicSID}},
		{"expand_observation", map[string]any{"ids": []any{"4242"}, "session_id": basicSID}},
		{"read_bottle", map[string]any{"session_id": "nobody"}},
	}
	run := func(n int) {
		for i := range n {
			tc := calls[i%len(calls)]
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = tc.name, tc.args
			if _, err := c.CallTool(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
	}
	heap := func() uint64 {
		var m runtime.MemStats
		for range 3 {
			runtime.GC()
		}
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	run(100) // warm up caches and pools
	before := heap()
	run(1000)
	after := heap()
	t.Logf("heap in use: %d KB before, %d KB after 1,000 calls", before>>10, after>>10)
	if after > before+8<<20 {
		t.Errorf("heap grew from %d KB to %d KB over 1,000 calls", before>>10, after>>10)
	}
}
