package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/claudemem/memtest"
	"bottle/locate"
)

// basicSID is the session of render/testdata/basic.jsonl.
const basicSID = "11111111-2222-4333-8444-555555555555"

var fixedNow = time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)

// fixture is a scratch machine: a home with Claude Code's config folder, a
// project working directory and its transcripts folder.
type fixture struct {
	deps    Deps
	home    string
	cwd     string
	projDir string // <config>/projects/<dashed cwd>
	vars    map[string]string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), cwd: filepath.Join(root, "work", "proj"), vars: map[string]string{}}
	for _, d := range []string{f.home, f.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := locate.Env{Home: f.home, Getenv: func(k string) string { return f.vars[k] }}
	f.projDir = filepath.Join(env.ProjectsDir(), locate.ProjectDirName(f.cwd))
	if err := os.MkdirAll(f.projDir, 0o700); err != nil {
		t.Fatal(err)
	}
	f.deps = Deps{Env: env, Cwd: f.cwd, Now: func() time.Time { return fixedNow }, Location: time.UTC, Renders: &Renders{}}
	return f
}

// addTranscript copies render/testdata/<name>.jsonl into the project's
// transcripts folder as <id>.jsonl, modified at mod, and returns its path.
func (f *fixture) addTranscript(t testing.TB, name, id string, mod time.Time) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "render", "testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return f.writeTranscript(t, id, data, mod)
}

func (f *fixture) writeTranscript(t testing.TB, id string, data []byte, mod time.Time) string {
	t.Helper()
	p := filepath.Join(f.projDir, id+".jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
	return p
}

// addDB creates claude-mem's database in the data folder from rows.
func (f *fixture) addDB(t testing.TB, rows string) string {
	t.Helper()
	if err := os.MkdirAll(f.deps.Env.DataDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	return memtest.Create(t, f.deps.Env.DBPath(), memtest.SchemaCurrent, rows, "wal")
}

func (f *fixture) bottlePath(id string) string {
	return filepath.Join(f.deps.Env.BottlesDir(), id+".md")
}

// newClient starts an in-process client of NewServer(d), initialised with
// the protocol version Claude Code asks for.
func newClient(t testing.TB, d Deps) *client.Client {
	t.Helper()
	c, _ := startClient(t, NewServer(d, "test"))
	return c
}

// startClient starts an in-process client of s, initialised with the
// protocol version Claude Code asks for, and returns it with the
// server's answer to initialize.
func startClient(t testing.TB, s *server.MCPServer) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(s, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "tools-test", Version: "0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if res.ProtocolVersion != mcp.ProtocolVersion20251125 {
		t.Fatalf("negotiated protocol %q, want %q", res.ProtocolVersion, mcp.ProtocolVersion20251125)
	}
	return c, res
}

// call calls tool name with args and fails the test on a protocol error.
func call(t testing.TB, c *client.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	if res.StructuredContent != nil {
		t.Errorf("%s: result has structuredContent; tools return text only", name)
	}
	return res
}

// text is the concatenated text content of r; every block must be text.
func text(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range r.Content {
		tc, ok := mcp.AsTextContent(c)
		if !ok {
			t.Fatalf("non-text content %T", c)
		}
		b.WriteString(tc.Text)
	}
	return b.String()
}

// wantOK returns the text of a successful result.
func wantOK(t testing.TB, r *mcp.CallToolResult) string {
	t.Helper()
	s := text(t, r)
	if r.IsError {
		t.Fatalf("isError result: %s", s)
	}
	return s
}

// wantError returns the text of an isError result that contains every one
// of subs.
func wantError(t testing.TB, r *mcp.CallToolResult, subs ...string) string {
	t.Helper()
	s := text(t, r)
	if !r.IsError {
		t.Fatalf("want an isError result, got: %s", s)
	}
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("error %q lacks %q", s, sub)
		}
	}
	return s
}

func wantContains(t testing.TB, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("result lacks %q:\n%s", sub, s)
		}
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// addCodexRollout copies host/codex/testdata/<name> under the fixture's
// $CODEX_HOME as the rollout of thread id, recorded in the fixture's
// working directory, and returns its path.
func (f *fixture) addCodexRollout(t testing.TB, id, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "host", "codex", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(f.home, "codexhome")
	f.vars["CODEX_HOME"] = home
	p := filepath.Join(home, "sessions", "2026", "12", "04", "rollout-2026-12-04T06-17-51-"+id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte("/sandbox/work"), []byte(f.cwd)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// clientsByIndex yields a client of d with its in-memory index (true) and
// one of d without any (false): a search answers the same either way.
func clientsByIndex(t testing.TB, d Deps) iter.Seq2[bool, *client.Client] {
	return func(yield func(bool, *client.Client) bool) {
		for _, withIndex := range []bool{true, false} {
			e := d
			if !withIndex {
				e.Index = nil
			}
			if !yield(withIndex, newClient(t, e)) {
				return
			}
		}
	}
}
