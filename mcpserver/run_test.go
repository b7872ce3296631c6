package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bottle/internal/hooklog"
	"bottle/locate"
)

const basicSID = "11111111-2222-4333-8444-555555555555"

// scratch points HOME, Claude Code's config and claude-mem's data folder at
// a temp dir, puts render/testdata/basic.jsonl in as the transcript of the
// project at the returned working directory, and changes into it.
func scratch(t *testing.T) (home, cwd string) {
	t.Helper()
	root := t.TempDir()
	home, cwd = filepath.Join(root, "home"), filepath.Join(root, "work", "proj")
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude"))
	t.Setenv("CLAUDE_MEM_DATA_DIR", filepath.Join(home, ".claude-mem"))
	t.Setenv("BOTTLE_DIR", "")
	data, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(home, ".claude", "projects", locate.ProjectDirName(cwd))
	for _, d := range []string{cwd, proj} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, basicSID+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return home, cwd
}

func TestRunFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantOut    string
		wantErr    bool
		wantStderr string
	}{
		{"Version", []string{"--version"}, "mcpserver ", false, ""},
		{"Help", []string{"--help"}, "usage: mcpserver", false, ""},
		{"ShortHelp", []string{"-h"}, "usage: mcpserver", false, ""},
		{"UnknownFlag", []string{"--bogus"}, "", true, ""},
		{"Argument", []string{"serve"}, "", true, ""},
		{"HostCodex", []string{"--host", "codex", "--version"}, "mcpserver ", false, ""},
		{"UnknownHost", []string{"--host", "cursor"}, "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errOut)
			if tt.wantErr {
				var u usageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), "mcpserver --help") {
					t.Errorf("run(%q) = %v, want a usage error", tt.args, err)
				}
			} else if err != nil {
				t.Errorf("run(%q) = %v", tt.args, err)
			}
			if !strings.HasPrefix(out.String(), tt.wantOut) {
				t.Errorf("run(%q) printed %q, want %q…", tt.args, out.String(), tt.wantOut)
			}
			if errOut.Len() > 0 {
				t.Errorf("run(%q) wrote to stderr: %q", tt.args, errOut.String())
			}
		})
	}
}

// rpc is one JSON-RPC message as the server writes it.
type rpc struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serve runs run with args over pipes. send writes one message and, for
// an id, returns the response with that id; stop closes stdin and returns
// run's error.
func serve(ctx context.Context, t *testing.T, args []string, stderr io.Writer) (send func(msg, id string) rpc, stop func() error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, inR, outW, stderr)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 16<<20)
	send = func(msg, id string) rpc {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if id == "" {
			return rpc{}
		}
		for lines.Scan() {
			var r rpc
			if err := json.Unmarshal(lines.Bytes(), &r); err != nil || r.JSONRPC != "2.0" {
				t.Fatalf("stdout line is not JSON-RPC: %q", lines.Text())
			}
			if string(r.ID) == id {
				return r
			}
		}
		t.Fatalf("no response to %s: %v", id, lines.Err())
		return rpc{}
	}
	stop = func() error {
		t.Helper()
		inW.Close()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			t.Fatal("run did not return after stdin closed")
			return nil
		}
	}
	return send, stop
}

// TestServeStdio drives run over pipes with the exchange Claude Code 2.1.332
// opens with (as the e2e test records it): a server/discover probe with a
// string id, initialize at 2025-11-25, tools/list, then a tool call.
func TestServeStdio(t *testing.T) {
	home, cwd := scratch(t)
	t.Chdir(cwd)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var stderr bytes.Buffer
	send, stop := serve(ctx, t, nil, &stderr)

	start := time.Now()
	disc := send(`{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.332"},`+
		`"io.modelcontextprotocol/clientCapabilities":{}}}}`, `"server-discover-probe-1"`)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("server/discover answered after %v", d)
	}
	var dr struct {
		SupportedVersions []string `json:"supportedVersions"`
		Instructions      string   `json:"instructions"`
	}
	json.Unmarshal(disc.Result, &dr)
	if disc.Error != nil || len(dr.SupportedVersions) == 0 || dr.SupportedVersions[0] != "2025-11-25" ||
		strings.Contains(strings.Join(dr.SupportedVersions, ","), "2026-07-28") {
		t.Errorf("server/discover = %s %+v; want legacy versions only, 2025-11-25 first", disc.Result, disc.Error)
	}

	init := send(`{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},`+
		`"clientInfo":{"name":"claude-code","version":"2.1.332"}},"jsonrpc":"2.0","id":0}`, "0")
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name string }
		Instructions    string `json:"instructions"`
	}
	json.Unmarshal(init.Result, &ir)
	if ir.ProtocolVersion != "2025-11-25" || ir.ServerInfo.Name != "bottle" || !strings.Contains(ir.Instructions, "read_bottle") {
		t.Errorf("initialize = %s", init.Result)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "")

	list := send(`{"method":"tools/list","jsonrpc":"2.0","id":1}`, "1")
	for _, name := range []string{"render_bottle", "read_bottle", "expand_observation"} {
		if !bytes.Contains(list.Result, []byte(`"name":"`+name+`"`)) {
			t.Errorf("tools/list lacks %s", name)
		}
	}

	res := send(`{"method":"tools/call","params":{"name":"read_bottle","arguments":{},"_meta":{"claudecode/toolUseId":"toolu_1","progressToken":2}},"jsonrpc":"2.0","id":2}`, "2")
	var cr struct {
		Content []struct{ Type, Text string }
		IsError bool `json:"isError"`
	}
	json.Unmarshal(res.Result, &cr)
	if cr.IsError || len(cr.Content) != 1 || !strings.HasPrefix(cr.Content[0].Text, "# Session bottle — "+basicSID) ||
		!strings.Contains(cr.Content[0].Text, "current session: the newest transcript of "+cwd) {
		t.Errorf("read_bottle = %s", res.Result)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude-mem", "bottles", basicSID+".md")); err != nil {
		t.Errorf("bottle not written: %v", err)
	}

	unknown := send(`{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`, "3")
	if unknown.Error == nil || unknown.Error.Code != -32601 {
		t.Errorf("unknown method: %+v, want error -32601", unknown.Error)
	}

	if err := stop(); err != nil { // Claude Code closes stdin to stop a server
		t.Errorf("run after stdin closed = %v, want nil", err)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr not quiet: %q", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".claude-mem", "logs", "bottle.log")); err == nil {
		t.Error("a log file was written in normal operation")
	}
}

func TestLogWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "bottle.log")
	w := logWriter{path: path}
	w.Write([]byte("Error reading input: boom\nsecond line\n"))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line := string(data)
	if !strings.HasSuffix(line, " mcpserver session=- mode=- 0ms error: Error reading input: boom second line\n") ||
		strings.Count(line, "\n") != 1 {
		t.Errorf("log line %q", line)
	}
	// Rotation past the cap.
	os.WriteFile(path, bytes.Repeat([]byte("x"), hooklog.MaxSize+1), 0o600)
	w.Write([]byte("after"))
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != hooklog.MaxSize+1 {
		t.Errorf("log not rotated: %v", err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "error: after") || len(data) > 200 {
		t.Errorf("new log %q", data)
	}
}

// TestLogWriterLine pins the line of a message: flattened to one line, cut
// after 1000 bytes, in the hooks' format.
func TestLogWriterLine(t *testing.T) {
	tests := []struct{ name, msg, want string }{
		{"Plain", "stopped: EOF\n", "error: stopped: EOF"},
		{"Spaces", "a\tb\u00a0c\u3000d  e\r\n", "error: a b c d e"},
		{"Long", strings.Repeat("x", 1200), "error: " + strings.Repeat("x", 1000) + "…"},
		{"AtCap", strings.Repeat("x", 1000), "error: " + strings.Repeat("x", 1000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bottle.log")
			logWriter{path: path}.Write([]byte(tt.msg))
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := " mcpserver session=- mode=- 0ms " + tt.want + "\n"
			if line := string(data); !strings.HasSuffix(line, want) || len(line) != len("2026-07-20T10:32:00.123Z")+len(want) {
				t.Errorf("log line %q, want <time>%q", line, want)
			}
		})
	}
}

// TestServeCodexWords: under --host codex the server's instructions and
// tools are worded for Codex: read_bottle reads a bottle (Codex has no Read
// tool), the tools are the functions of the mcp__bottle namespace.
func TestServeCodexWords(t *testing.T) {
	_, cwd := scratch(t)
	t.Chdir(cwd)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	send, stop := serve(ctx, t, []string{"--host", "codex"}, io.Discard)
	init := string(send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"codex-mcp-client","version":"0.171.0"}}}`, "0").Result)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "")
	list := string(send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "1").Result)
	if err := stop(); err != nil {
		t.Errorf("run = %v", err)
	}
	for _, want := range []string{"functions of the mcp__bottle namespace", "Read it with read_bottle"} {
		if !strings.Contains(init, want) {
			t.Errorf("initialize lacks %q: %s", want, init)
		}
	}
	if !strings.Contains(list, "has no file-reading tool") {
		t.Errorf("tools/list is not worded for Codex: %s", list)
	}
	for _, text := range []string{init, list} {
		if strings.Contains(text, "Read tool") {
			t.Errorf("the Codex server names Claude Code's Read tool: %s", text)
		}
	}
}
