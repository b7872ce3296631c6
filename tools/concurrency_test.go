//go:build !windows

package tools

// Concurrency through the tools (docs/reliability.md): renders and readers of one
// session at once, as mcp-go's worker pool runs them. Every page a reader
// gets is a whole bottle, and no temp file is left behind.
//
// Not on Windows: there a reader holding the bottle open makes a rename over
// it fail (the write errors and the previous bottle stays), which these tests
// would count as a failure.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// longSession is a transcript of n turns with about 1 KB per message, so
// that its bottle is tens of KB (a torn read would show).
func longSession(t *testing.T, sid string, n int) []byte {
	t.Helper()
	var b strings.Builder
	line := func(v map[string]any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(data, '\n'))
	}
	filler := strings.Repeat("some words of the conversation ", 32)
	for i := range n {
		ts := fixedNow.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		line(map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", i), "sessionId": sid, "timestamp": ts,
			"message": map[string]any{"role": "user", "content": fmt.Sprintf("PROMPT-%d %s", i, filler)}})
		line(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "sessionId": sid, "timestamp": ts,
			"message": map[string]any{"id": fmt.Sprintf("m%d", i), "role": "assistant",
				"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("REPLY-%d %s", i, filler)}}}})
	}
	return []byte(b.String())
}

// TestConcurrentRendersAndReaders: 32 render_bottle and 32 read_bottle
// calls of one session at once, twice each. Renders share the
// injected clock, so every bottle is the same bytes: each page (one page
// holds the whole bottle) must be exactly the file a lone render writes.
func TestConcurrentRendersAndReaders(t *testing.T) {
	f := newFixture(t)
	const sid = "concurrent-tools-1"
	f.writeTranscript(t, sid, longSession(t, sid, 30), fixedNow)
	c := newClient(t, f.deps)
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": sid}))
	want, err := os.ReadFile(f.bottlePath(sid))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 32<<10 || len(want) > maxPageChars {
		t.Fatalf("precondition: bottle of %d bytes", len(want))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 256)
	start := make(chan struct{})
	for i := range 64 {
		wg.Go(func() {
			<-start
			name, args := "render_bottle", map[string]any{"session_id": sid}
			if i%2 == 1 {
				name, args = "read_bottle", map[string]any{"session_id": sid, "max_chars": maxPageChars}
			}
			for range 2 {
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = name, args
				res, err := c.CallTool(context.Background(), req)
				if err != nil || res.IsError {
					errs <- name + ": " + errText(err, res)
					return
				}
				if name == "read_bottle" {
					got := errText(nil, res)
					page := got[:strings.LastIndex(got, "\n[bottle ")]
					if page != string(want) || !strings.HasSuffix(got, "end of bottle]") {
						errs <- fmt.Sprintf("read_bottle returned %d bytes that are not the whole bottle (%d)", len(page), len(want))
					}
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got, _ := os.ReadFile(f.bottlePath(sid)); string(got) != string(want) {
		t.Error("the bottle after the concurrent renders is not a whole render")
	}
	entries, _ := os.ReadDir(f.deps.Env.BottlesDir())
	for _, e := range entries {
		if e.Name() != sid+".md" {
			t.Errorf("stray file %s in the bottles folder", e.Name())
		}
	}
}
