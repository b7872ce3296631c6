package locate

import (
	"context"
	"os"
	"path/filepath"
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
