package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"bottle/internal/measure/gentranscript"
)

// rowsHistory stores sessions sess-1 … sess-n (memory ids mem-1 … mem-n)
// with 100 observations, 3 prompts and a summary each. Observation ids run
// in insertion order from 1, so session k holds ids k+n*j for j = 0 … 99.
func rowsHistory(n int) string {
	r := strings.NewReplacer("@N@", fmt.Sprint(n), "@P@", fmt.Sprint(3*n), "@OBS@", fmt.Sprint(100*n))
	return r.Replace(`
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @N@)
INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
SELECT 'sess-' || i, 'mem-' || i, 'proj' || (i % 10), 'prompt', 'x', 1769468400000 + i * 60000, 'completed' FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @P@ - 1)
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
SELECT 1 + (i % @N@), 'sess-' || (1 + (i % @N@)), 1 + i / @N@, 'prompt text ' || i, 'x', 1769468400000 + i * 1000 FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @OBS@ - 1)
INSERT INTO observations (memory_session_id, project, type, title, subtitle, narrative, facts, concepts, files_read,
  files_modified, prompt_number, created_at, created_at_epoch, content_hash)
SELECT 'mem-' || (1 + (i % @N@)), 'proj', 'discovery', 'Read file ' || i, 'subtitle ' || i,
  'A narrative of moderate length about call ' || i || '. It found what it looked for.',
  '["fact one","fact two","fact three"]', '["how-it-works","pattern"]', '["internal/x.go","internal/y.go"]',
  '["internal/z.go"]', 1 + (i % 3), 'x', 1769468400000 + i * 1000, 'h' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < @N@)
INSERT INTO session_summaries (memory_session_id, project, request, completed, prompt_number, created_at, created_at_epoch)
SELECT 'mem-' || i, 'proj', 'request', 'completed', 3, 'x', 1769468400000 + i * 1000 FROM n;
`)
}

// BenchmarkExpandObservation expands 3 observations of one session (the
// first, a middle and the last of its 100) in process, through the MCP
// client, from databases of 2,000 and 200,000 observations.
func BenchmarkExpandObservation(b *testing.B) {
	for _, sessions := range []int{20, 2000} {
		b.Run(fmt.Sprintf("observations=%d", 100*sessions), func(b *testing.B) {
			f := newFixture(b)
			f.addDB(b, rowsHistory(sessions))
			f.deps.DB = &DBCache{} // as mcpserver runs it
			b.Cleanup(func() { f.deps.DB.Close() })
			c := newClient(b, f.deps)
			const k = 7 // session sess-7 holds ids 7, 7+n, …
			ids := []string{fmt.Sprint(k), fmt.Sprint(k + sessions*50), fmt.Sprint(k + sessions*99)}
			args := map[string]any{"ids": ids, "session_id": fmt.Sprintf("sess-%d", k)}
			out := wantOK(b, call(b, c, "expand_observation", args))
			for _, id := range ids {
				if !strings.Contains(out, "#"+id) {
					b.Fatalf("observation %s missing:\n%s", id, out)
				}
			}
			for b.Loop() {
				call(b, c, "expand_observation", args)
			}
		})
	}
}

// stdioConn is a client of the stdio server over pipes: one JSON-RPC
// message per line, as Claude Code speaks to mcpserver.
type stdioConn struct {
	w   io.Writer
	r   *bufio.Reader
	id  int
	buf bytes.Buffer
}

func (c *stdioConn) send(tb testing.TB, method string, params any, notify bool) json.RawMessage {
	tb.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if !notify {
		c.id++
		msg["id"] = c.id
	}
	c.buf.Reset()
	if err := json.NewEncoder(&c.buf).Encode(msg); err != nil {
		tb.Fatal(err)
	}
	if _, err := c.w.Write(c.buf.Bytes()); err != nil {
		tb.Fatal(err)
	}
	if notify {
		return nil
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		tb.Fatal(err)
	}
	var resp struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.ID != c.id || resp.Error != nil {
		tb.Fatalf("%s: bad response %s (%v)", method, line, err)
	}
	return resp.Result
}

// BenchmarkReadBottleStdio is one read_bottle round trip over the stdio
// transport, after start-up: a request line in, the first page of a
// 4 MB session's bottle out.
func BenchmarkReadBottleStdio(b *testing.B) {
	f := newFixture(b)
	var tr bytes.Buffer
	if _, err := gentranscript.Write(&tr, gentranscript.Config{Bytes: 4 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	id := gentranscript.DefaultSessionID
	f.writeTranscript(b, id, tr.Bytes(), time.Now().Add(-time.Hour))

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stdio := server.NewStdioServer(NewServer(f.deps, "bench"))
	stdio.SetErrorLogger(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- stdio.Listen(ctx, inR, outW) }()
	b.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		<-done
	})
	c := &stdioConn{w: inW, r: bufio.NewReaderSize(outR, 1<<20)}
	c.send(b, "initialize", map[string]any{"protocolVersion": mcp.ProtocolVersion20251125,
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "0"}}, false)
	c.send(b, "notifications/initialized", map[string]any{}, true)
	args := map[string]any{"name": "read_bottle", "arguments": map[string]any{"session_id": id}}
	first := c.send(b, "tools/call", args, false) // renders the bottle
	if !bytes.Contains(first, []byte("Session bottle")) {
		b.Fatalf("read_bottle: %.300s", first)
	}
	for b.Loop() {
		c.send(b, "tools/call", args, false)
	}
}
