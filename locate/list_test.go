package locate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"bottle/claudemem/memtest"
)

// TestListLastActivity: a session's last activity is its transcript's last
// entry, else its newest stored record, else the file's time.
func TestListLastActivity(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Getenv: func(k string) string {
		return map[string]string{"CLAUDE_MEM_DATA_DIR": filepath.Join(home, "mem")}[k]
	}}
	proj := filepath.Join(env.ProjectsDir(), "-proj")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	fileTime := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	write := func(id, data string) {
		t.Helper()
		p := filepath.Join(proj, id+".jsonl")
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fileTime, fileTime); err != nil {
			t.Fatal(err)
		}
	}
	prompt := func(ts string) string {
		return `{"type":"user","uuid":"u-` + ts + `","sessionId":"x","timestamp":"` + ts + `","message":{"role":"user","content":"hello there"}}` + "\n"
	}
	write("s-entries", prompt("2026-01-05T10:00:00Z")+prompt("2026-01-05T11:00:00Z"))
	write("s-no-times", `{"type":"user","uuid":"u1","message":{"role":"user","content":"hello there"}}`+"\n")
	write("s-nothing", `{"type":"summary"}`+"\n")
	if err := os.MkdirAll(env.DataDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	memtest.Create(t, env.DBPath(), memtest.SchemaCurrent, `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt,
  started_at, started_at_epoch, status) VALUES
 (1, 's-no-times', 'mem-1', 'proj', 'claude', 'hello there', 'x', 1767607260000, 'completed'),
 (2, 's-stored', 'mem-2', 'proj', 'claude', 'stored prompt', 'x', 1767607260000, 'completed');
INSERT INTO user_prompts (session_db_id, content_session_id, prompt_number, prompt_text, created_at, created_at_epoch) VALUES
 (1, 's-no-times', 1, 'hello there', 'x', 1767610860000),
 (2, 's-stored', 1, 'stored prompt', 'x', 1767614460000);
`, "wal")
	got, _, err := List(context.Background(), env, "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Time{
		"s-entries":  time.Date(2026, 1, 5, 11, 0, 0, 0, time.UTC), // the last entry, not the file's time
		"s-no-times": time.UnixMilli(1767610860000).UTC(),          // the newest stored record
		"s-nothing":  fileTime,                                     // the file's time
		"s-stored":   time.UnixMilli(1767614460000).UTC(),          // stored only
	}
	for _, l := range got {
		if w, ok := want[l.ID]; !ok {
			t.Errorf("unexpected session %s", l.ID)
		} else if !l.LastActivity.Equal(w) {
			t.Errorf("%s: LastActivity = %v, want %v", l.ID, l.LastActivity, w)
		}
		delete(want, l.ID)
	}
	if len(want) > 0 {
		t.Errorf("sessions not listed: %v", want)
	}
}

// TestListCodex: a listing holds the Codex threads whose working directory
// is the project, beside its Claude Code sessions, each naming its host,
// newest first across both; a Claude Code transcript of a thread's id
// wins; without a project every thread is listed.
func TestListCodex(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(home, "codexhome")
	env := Env{Home: home, Getenv: func(k string) string { return map[string]string{"CODEX_HOME": codexHome}[k] }}
	project := filepath.Join(home, "work", "proj")
	src, err := os.ReadFile(filepath.Join("..", "host", "codex", "testdata", "compact_mid_turn.jsonl")) // last record 2026-12-04T06:17:54Z
	if err != nil {
		t.Fatal(err)
	}
	rollout := func(dir, id, cwd string) {
		t.Helper()
		p := filepath.Join(codexHome, dir, "rollout-2026-12-04T06-17-51-"+id+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		data := strings.ReplaceAll(string(src), "/sandbox/work", cwd)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const (
		mine     = "01a23fb3-b428-7550-a450-000000000001"
		archived = "01a23fb3-b428-7550-a450-000000000002"
		other    = "01a23fb3-b428-7550-a450-000000000003"
		both     = "01a23fb3-b428-7550-a450-000000000004"
	)
	rollout("sessions/2026/12/04", mine, project)
	rollout("archived_sessions", archived, project)
	rollout("sessions/2026/12/04", other, filepath.Join(home, "elsewhere"))
	rollout("sessions/2026/12/04", both, project)
	proj := filepath.Join(env.ProjectsDir(), ProjectDirName(project))
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	prompt := func(ts string) string {
		return `{"type":"user","uuid":"u-` + ts + `","sessionId":"x","cwd":"` + project + `","timestamp":"` + ts + `","message":{"role":"user","content":"hello there"}}` + "\n"
	}
	for id, ts := range map[string]string{"cc-newer": "2026-12-05T10:00:00Z", "cc-older": "2026-12-01T10:00:00Z", both: "2026-11-01T10:00:00Z"} {
		if err := os.WriteFile(filepath.Join(proj, id+".jsonl"), []byte(prompt(ts)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list := func(dir string) []string {
		t.Helper()
		got, _, err := List(context.Background(), env, filepath.Join(home, "none.db"), dir)
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, l := range got {
			rows = append(rows, l.ID+" "+l.Host+" "+l.LastActivity.Format(time.RFC3339))
			if l.Host == HostCodex && (l.Prompts == 0 || l.FirstPrompt == "" || l.Cwd == "") {
				t.Errorf("%s: prompts %d, first prompt %q, cwd %q", l.ID, l.Prompts, l.FirstPrompt, l.Cwd)
			}
		}
		return rows
	}
	tests := []struct {
		name, dir string
		want      []string
	}{
		{"project", project, []string{
			"cc-newer claude-code 2026-12-05T10:00:00Z",
			mine + " codex 2026-12-04T06:17:54Z",
			archived + " codex 2026-12-04T06:17:54Z",
			"cc-older claude-code 2026-12-01T10:00:00Z",
			both + " claude-code 2026-11-01T10:00:00Z",
		}},
		{"all", "", []string{
			"cc-newer claude-code 2026-12-05T10:00:00Z",
			mine + " codex 2026-12-04T06:17:54Z",
			archived + " codex 2026-12-04T06:17:54Z",
			other + " codex 2026-12-04T06:17:54Z",
			"cc-older claude-code 2026-12-01T10:00:00Z",
			both + " claude-code 2026-11-01T10:00:00Z",
		}},
	}
	var ids []string
	for _, r := range CodexSessions(env, project) {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	if want := []string{mine, archived, both}; !slices.Equal(ids, want) {
		t.Errorf("CodexSessions of the project: %v, want %v", ids, want)
	}
	if got := CodexSessions(env, ""); len(got) != 4 {
		t.Errorf("CodexSessions of every project: %d, want 4", len(got))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := list(tt.dir); !slices.Equal(got, tt.want) {
				t.Errorf("listing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
