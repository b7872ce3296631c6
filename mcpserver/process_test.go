package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"bottle/internal/testbin"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// syncBuffer is a bytes.Buffer safe for the transport's stderr goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// builtServer returns mcpserver, built once per test run (internal/testbin).
func builtServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; not in -short")
	}
	return testbin.For(t, false).MCPServer
}

// TestSubprocess runs the real binary and drives it over stdio as Claude
// Code does: initialize at 2025-11-25, list the tools, read a bottle, close
// stdin; the process must exit 0 having written nothing to stderr.
func TestSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := builtServer(t)
	home, cwd := scratch(t)

	var stderr syncBuffer
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(bin, nil, nil,
		transport.WithCommandStderrWriter(&stderr),
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Dir = cwd          // the server's working directory names the current project
			cmd.Env = os.Environ() // HOME and the data folders are the test's (t.Setenv)
			return cmd, nil
		}))
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-code", Version: "test"}
	ir, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if ir.ProtocolVersion != mcp.ProtocolVersion20251125 || ir.ServerInfo.Name != "bottle" {
		t.Errorf("initialize = %s %+v", ir.ProtocolVersion, ir.ServerInfo)
	}
	lr, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(lr.Tools) != 5 {
		t.Fatalf("tools/list = %v, %v", lr, err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "read_bottle"
	req.Params.Arguments = map[string]any{"session_id": basicSID}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("read_bottle: %v", err)
	}
	if tc, ok := mcp.AsTextContent(res.Content[0]); res.IsError || !ok ||
		!strings.HasPrefix(tc.Text, "# Session bottle — "+basicSID) || !strings.Contains(tc.Text, "end of bottle]") {
		t.Errorf("read_bottle = %+v", res)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("server did not exit cleanly after stdin closed: %v", cmd.ProcessState)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("server wrote to stderr: %q", s)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude-mem", "bottles", basicSID+".md")); err != nil {
		t.Errorf("bottle not written: %v", err)
	}
}
