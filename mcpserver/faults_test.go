//go:build unix

package main

// Database faults and load through the real server (docs/reliability.md): claude-mem's
// database replaced (renamed over) while the server runs — cleanly, over a
// stale write-ahead log, by a corrupt file, by an old schema, or removed —
// committed frames still in the WAL, a writer holding a write transaction;
// and 50 concurrent tool calls answered in bounded memory. The server is
// the built binary, driven over stdio as Claude Code drives it.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"bottle/claudemem/memtest"
	"bottle/locate"
)

// liveServer is a running mcpserver and its scratch home.
type liveServer struct {
	c            *client.Client
	cmd          *exec.Cmd
	stderr       *syncBuffer
	home, cwd    string
	db, projects string
}

// startServer starts the built server in a scratch home whose project holds
// render/testdata/basic.jsonl as session basicSID.
func startServer(t *testing.T) *liveServer {
	t.Helper()
	bin := builtServer(t)
	root := t.TempDir()
	s := &liveServer{home: filepath.Join(root, "home"), cwd: filepath.Join(root, "work", "proj"), stderr: &syncBuffer{}}
	s.db = filepath.Join(s.home, ".claude-mem", "claude-mem.db")
	s.projects = filepath.Join(s.home, ".claude", "projects", locate.ProjectDirName(s.cwd))
	for _, d := range []string{s.cwd, s.projects, filepath.Dir(s.db)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.projects, basicSID+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	tr := transport.NewStdioWithOptions(bin, nil, nil,
		transport.WithCommandStderrWriter(s.stderr),
		transport.WithCommandFunc(func(ctx context.Context, command string, _, args []string) (*exec.Cmd, error) {
			s.cmd = exec.CommandContext(ctx, command, args...)
			s.cmd.Dir = s.cwd
			s.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.home, "TZ=UTC"}
			return s.cmd, nil
		}))
	s.c = client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20251125))
	life, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	if err := s.c.Start(life); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	init.Params.ClientInfo = mcp.Implementation{Name: "claude-code", Version: "test"}
	ctx, cancel := context.WithTimeout(life, time.Minute)
	defer cancel()
	if _, err := s.c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() {
		s.c.Close()
		if e := s.stderr.String(); e != "" {
			t.Errorf("server wrote to stderr: %q", e)
		}
	})
	return s
}

// call calls a tool within limit and returns its text and isError; a
// protocol error (a Go error in a handler, or no answer) fails the test.
func (s *liveServer) call(t *testing.T, limit time.Duration, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// rowsTitled stores basicSID's session with observations id → title.
func rowsTitled(titles map[int]string) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, started_at, started_at_epoch, status)
 VALUES (1, '` + basicSID + `', 'mem-1', 'proj', 'claude', 'x', 1767607260000, 'active');
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
 VALUES (1, '` + basicSID + `', 1, 'List the Go files in this project.', 'x', 1767607260000);
`)
	for id, title := range titles {
		fmt.Fprintf(&b, `INSERT INTO observations (id, memory_session_id, project, type, title, narrative, prompt_number, created_at, created_at_epoch, content_hash)
 VALUES (%d, 'mem-1', 'proj', 'discovery', '%s', 'narrative of %s.', 1, 'x', %d, 'h%d');
`, id, title, title, 1767607380000+int64(id), id)
	}
	return b.String()
}

// rowsV10 is rowsTitled in claude-mem 10.6's schema.
func rowsV10(id int, title string) string {
	return `INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, started_at, started_at_epoch, status)
 VALUES (1, '` + basicSID + `', 'mem-1', 'proj', 'x', 1767607260000, 'active');
INSERT INTO user_prompts (content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
 VALUES ('` + basicSID + `', 1, 'List the Go files in this project.', 'x', 1767607260000);
INSERT INTO observations (id, memory_session_id, project, type, title, narrative, prompt_number, created_at, created_at_epoch)
 VALUES (` + fmt.Sprint(id) + `, 'mem-1', 'proj', 'discovery', '` + title + `', 'old schema narrative.', 1, 'x', 1767607390000);`
}

// replace builds a database with build in the data folder beside the live
// one and renames it over the live one, as a restore or migration would.
func (s *liveServer) replace(t *testing.T, build func(path string)) {
	t.Helper()
	tmp := s.db + ".new"
	build(tmp)
	if err := os.Rename(tmp, s.db); err != nil {
		t.Fatal(err)
	}
}

// TestDBReplacedWhileRunning: the server opens claude-mem's database per
// call, so whatever stands at its path when a call comes is what it reads:
// a replacement's rows at once; an old schema by its columns; a corrupt
// file or none as a note and digests — never a hang or a protocol error.
func TestDBReplacedWhileRunning(t *testing.T) {
	s := startServer(t)
	const limit = 20 * time.Second
	memtest.Create(t, s.db, memtest.SchemaCurrent, rowsTitled(map[int]string{4242: "OBS-A"}), "wal")
	expand := func(ids ...any) string {
		t.Helper()
		text, _ := s.call(t, limit, "expand_observation", map[string]any{"ids": ids, "session_id": basicSID})
		return text
	}
	render := func() string {
		t.Helper()
		text, isErr := s.call(t, limit, "render_bottle", map[string]any{"session_id": basicSID})
		if isErr {
			t.Errorf("render_bottle: %s", text)
		}
		md, _ := os.ReadFile(filepath.Join(s.home, ".claude-mem", "bottles", basicSID+".md"))
		return text + "\n" + string(md)
	}
	if got := expand("4242"); !strings.Contains(got, "OBS-A") {
		t.Fatalf("before the replacement: %s", got)
	}

	// A clean replacement (rollback journal, no -wal beside it).
	s.replace(t, func(p string) {
		memtest.Create(t, p, memtest.SchemaCurrent, rowsTitled(map[int]string{4242: "OBS-B", 4343: "OBS-B2"}), "delete")
	})
	if got := expand("4242", "4343"); !strings.Contains(got, "OBS-B") || !strings.Contains(got, "OBS-B2") || strings.Contains(got, "OBS-A") {
		t.Errorf("after a replacement: %s", got)
	}
	if got := render(); !strings.Contains(got, "- [#4343] OBS-B2") {
		t.Errorf("render after a replacement:\n%s", got)
	}

	// Committed rows still in the WAL (a writer with checkpoints off keeps
	// its connection): seen at once. An uncommitted row of a writer holding
	// a write transaction: not seen, and no wait.
	s.replace(t, func(p string) {
		memtest.Create(t, p, memtest.SchemaCurrent, rowsTitled(map[int]string{4242: "OBS-C"}), "wal")
	})
	w := memtest.Writer(t, s.db)
	conn, err := w.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"PRAGMA wal_autocheckpoint=0",
		`INSERT INTO observations (id, memory_session_id, project, type, title, prompt_number, created_at, created_at_epoch, content_hash)
		 VALUES (4444, 'mem-1', 'proj', 'change', 'OBS-WAL', 1, 'x', 1767607500000, 'hw')`,
		"BEGIN IMMEDIATE",
		`INSERT INTO observations (id, memory_session_id, project, type, title, prompt_number, created_at, created_at_epoch, content_hash)
		 VALUES (4545, 'mem-1', 'proj', 'change', 'OBS-UNCOMMITTED', 1, 'x', 1767607600000, 'hu')`,
	} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(s.db + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("precondition: no WAL frames: %v", err)
	}
	start := time.Now()
	if got := expand("4242", "4444", "4545"); !strings.Contains(got, "OBS-C") || !strings.Contains(got, "OBS-WAL") || strings.Contains(got, "OBS-UNCOMMITTED") {
		t.Errorf("with frames in the WAL and a writer mid-transaction: %s", got)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a writer's open transaction delayed a read by %v", d)
	}

	// Renamed over while that writer still has the old file open and its
	// WAL and index beside it: whatever SQLite makes of the pair, the tools
	// answer.
	s.replace(t, func(p string) {
		memtest.Create(t, p, memtest.SchemaCurrent, rowsTitled(map[int]string{4242: "OBS-D"}), "delete")
	})
	t.Logf("replaced under a live writer's WAL: %.300s", expand("4242", "4444"))
	render()
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	w.Close()
	os.Remove(s.db + "-wal")
	os.Remove(s.db + "-shm")

	// claude-mem 10.6's schema.
	s.replace(t, func(p string) { memtest.Create(t, p, memtest.SchemaV10, rowsV10(7, "OBS-OLD-SCHEMA"), "wal") })
	if got := expand("7"); !strings.Contains(got, "OBS-OLD-SCHEMA") {
		t.Errorf("old schema: %s", got)
	}

	// A corrupt file: a note in the bottle, digests instead of observations,
	// and an expansion that says the database failed.
	s.replace(t, func(p string) {
		if err := os.WriteFile(p, []byte("SQLite format 3\x00"+strings.Repeat("garbage ", 512)), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	if got := render(); !strings.Contains(got, "claude-mem observations unavailable") || !strings.Contains(got, "- [#t1] Glob") {
		t.Errorf("render with a corrupt database:\n%s", got)
	}
	if got := expand("4242"); !strings.Contains(got, "database") {
		t.Errorf("expand with a corrupt database: %s", got)
	}

	// Removed: standalone mode.
	os.Remove(s.db)
	if got := render(); !strings.Contains(got, "- [#t1] Glob") || strings.Contains(got, "unavailable") {
		t.Errorf("render with the database removed:\n%s", got)
	}
	// A directory in its place.
	if err := os.Mkdir(s.db, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := render(); !strings.Contains(got, "claude-mem observations unavailable") {
		t.Errorf("render with a directory for a database:\n%s", got)
	}
}

// vmHWM is the peak resident set of process pid in KB (0 when unknown).
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb
		}
	}
	return 0
}

// TestConcurrentCalls50: 50 tool calls in flight at once (more than the
// stdio server's 5 workers; its queue holds 100), ten times over, against a
// server with a database. Every call is answered with a result, and the
// server's peak memory stays bounded and does not grow with the rounds.
func TestConcurrentCalls50(t *testing.T) {
	s := startServer(t)
	memtest.Create(t, s.db, memtest.SchemaCurrent, rowsTitled(map[int]string{4242: "OBS-A", 4243: "OBS-B"}), "wal")
	calls := []struct {
		name string
		args map[string]any
	}{
		{"render_bottle", map[string]any{"session_id": basicSID}},
		{"read_bottle", map[string]any{"session_id": basicSID, "max_chars": 1000}},
		{"read_bottle", map[string]any{}},
		{"expand_observation", map[string]any{"ids": []any{"4242", "4243", "t1", "u1", "a1"}, "session_id": basicSID}},
		{"render_bottle", map[string]any{"session_id": "no-such-session"}}, // isError, by design
	}
	var peaks []int64
	start := time.Now()
	for round := range 10 {
		var wg sync.WaitGroup
		errs := make(chan string, 50)
		for i := range 50 {
			wg.Go(func() {
				tc := calls[i%len(calls)]
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = tc.name, tc.args
				res, err := s.c.CallTool(ctx, req)
				switch {
				case err != nil:
					errs <- fmt.Sprintf("%s: %v", tc.name, err)
				case res.IsError != (tc.args["session_id"] == "no-such-session"):
					errs <- fmt.Sprintf("%s %v: isError %v", tc.name, tc.args, res.IsError)
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Errorf("round %d: %s", round, e)
		}
		peaks = append(peaks, vmHWM(s.cmd.Process.Pid))
	}
	elapsed := time.Since(start)
	t.Logf("500 calls, 50 at a time: %v; server peak RSS (VmHWM) after each round: %v KB", elapsed.Round(time.Millisecond), peaks)
	if last := peaks[len(peaks)-1]; last > 256<<10 {
		t.Errorf("server peak RSS %d MB under 50 concurrent calls", last>>10)
	}
	if first, last := peaks[0], peaks[len(peaks)-1]; first > 0 && last > first+64<<10 {
		t.Errorf("server peak RSS grew from %d MB to %d MB over the rounds", first>>10, last>>10)
	}
}
