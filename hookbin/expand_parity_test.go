package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"bottle/claudemem/memtest"
	"bottle/locate"
	"bottle/tools"
)

// parityRows: the session of basic.jsonl with two observations, another
// session with one, and an observation of no stored session.
const parityRows = `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt,
  started_at, started_at_epoch, status) VALUES
 (1, 'p-basic', 'mem-1', 'proj', 'claude', 'x', 'x', 1767607260000, 'completed'),
 (2, 'p-other', 'mem-2', 'proj', 'claude', 'y', 'x', 1767607260000, 'completed');
INSERT INTO observations (id, memory_session_id, project, text, type, title, prompt_number, created_at, created_at_epoch, content_hash) VALUES
 (4242, 'mem-1', 'proj', NULL, 'discovery', 'Listed Go files', 1, 'x', 1767607380000, 'h1'),
 (4243, 'mem-1', 'proj', 'legacy text', 'change', 'Edited util.go', NULL, 'x', 1767607390000, 'h2'),
 (5000, 'mem-2', 'proj', NULL, 'bugfix', 'Other session work', 1, 'x', 1767607400000, 'h3'),
 (6000, 'mem-9', 'proj', NULL, 'bugfix', 'No stored session', 1, 'x', 1767607400000, 'h4');
`

// TestExpandParity: hookbin expand and the MCP tool expand_observation find
// and refuse the same ids, for the same reasons, in a session that exists.
func TestExpandParity(t *testing.T) {
	home, vars := scratchEnv(t)
	cwd := filepath.Join(home, "work", "proj")
	env := locate.Env{Home: home, Getenv: func(k string) string { return vars[k] }}
	proj := filepath.Join(env.ProjectsDir(), locate.ProjectDirName(cwd))
	for _, d := range []string{cwd, proj, env.DataDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "render", "testdata", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "p-basic.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	memtest.Create(t, env.DBPath(), memtest.SchemaCurrent, parityRows, "wal")
	_, expandTool := tools.ExpandObservation(tools.Deps{Env: env, Cwd: cwd})

	ids := []string{"4242", "#4243", "5000", "6000", "999999", "t1", "T1", "#u1", "a1", "t9", "u7", "A7",
		"bogus", "t-1", "1234567890123456789", "t1234567890", " t1 "}
	for _, session := range []string{"p-basic", "p-other", "p-none"} {
		t.Run(session, func(t *testing.T) {
			out, _, err := runCmd(t, vars, append(append([]string{"expand"}, ids...), "--session", session)...)
			if session == "p-none" {
				// Neither a transcript nor claude-mem holds it: the CLI
				// refuses the session as a whole.
				if err == nil || !strings.Contains(err.Error(), `no such session "p-none"`) {
					t.Errorf("expand --session p-none: error %v, want no such session", err)
				}
				return
			}
			cli := cliOutcomes(out)

			res, err := expandTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{
				Name: "expand_observation", Arguments: map[string]any{"ids": anySlice(ids), "session_id": session}}})
			if err != nil {
				t.Fatal(err)
			}
			mcpOut := ""
			for _, c := range res.Content {
				if tc, ok := c.(mcp.TextContent); ok {
					mcpOut += tc.Text
				}
			}
			got := mcpOutcomes(mcpOut)
			// The MCP tool shows each id once; compare each distinct id.
			want := map[string]string{}
			for id, why := range cli {
				want[id] = why
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("expand_observation and hookbin expand disagree (-cli +mcp):\n%s\nCLI:\n%s\nMCP:\n%s", diff, out, mcpOut)
			}
			// Each session's own observations expand, and only those.
			own := map[string]string{"p-basic": "4242", "p-other": "5000"}[session]
			for _, id := range []string{"4242", "5000", "6000"} {
				if expanded := want[id] == ""; expanded != (id == own) {
					t.Errorf("session %s: observation %s expanded = %v (%q)", session, id, expanded, want[id])
				}
			}
		})
	}
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// cliOutcomes reads hookbin expand's output: id (canonical, or as given
// when it is not an id) -> "" when expanded, else the reason.
func cliOutcomes(out string) map[string]string {
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^## \[#([^\]]*)\]( not expanded: (.*))?$`).FindAllStringSubmatch(out, -1) {
		got[m[1]] = m[3]
	}
	return got
}

// mcpOutcomes reads expand_observation's result the same way.
func mcpOutcomes(out string) map[string]string {
	got := map[string]string{}
	if m := regexp.MustCompile(`(?m)^expanded: (.*)$`).FindStringSubmatch(out); m != nil {
		for _, id := range strings.Split(m[1], ", ") {
			got[strings.TrimPrefix(id, "#")] = ""
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^- (#\S+|"[^"]*"): (.*)$`).FindAllStringSubmatch(out, -1) {
		id := strings.TrimPrefix(m[1], "#")
		if uq, err := strconv.Unquote(m[1]); err == nil {
			id = uq
		}
		got[id] = m[2]
	}
	return got
}
