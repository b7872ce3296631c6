package locate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"bottle/claudemem/memtest"
)

func TestProjectDirName(t *testing.T) {
	// Expected values computed with Claude Code's own functions under Node:
	//   s.replace(/[^a-zA-Z0-9]/g, "-"); over 200: s.slice(0, 200) + "-" +
	//   Math.abs(djb2Hash(path)).toString(36)
	tests := []struct {
		name, cwd, want string
	}{
		{"Simple", "/Users/a/my.proj", "-Users-a-my-proj"},
		{"Windows", `C:\Users\a\b c`, "C--Users-a-b-c"},
		{"NonASCII", "/home/ü/😀", "-home-----"}, // 😀 is two UTF-16 units
		{"Long",
			"/home/user/" + strings.Repeat("very-long.directory_name/", 9) + "project",
			"-home-user" + strings.Repeat("-very-long-directory-name", 7) + "-very-long-dire-f641bv"},
		{"LongNonASCII",
			"/home/ü/日本/😀/proj" + strings.Repeat("/x", 100),
			"-home---------proj" + strings.Repeat("-x", 91) + "-jo0bwn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProjectDirName(tt.cwd); got != tt.want {
				t.Errorf("ProjectDirName(%q) = %q, want %q", tt.cwd, got, tt.want)
			}
		})
	}
}

// sessionFixture is a scratch Claude Code config with one project folder.
type sessionFixture struct {
	env      Env
	cwd      string
	projDir  string
	settings map[string]string
}

func newSessionFixture(t *testing.T) *sessionFixture {
	t.Helper()
	root := t.TempDir()
	f := &sessionFixture{cwd: filepath.Join(root, "work", "my.proj"), settings: map[string]string{}}
	if err := os.MkdirAll(f.cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	f.env = Env{Home: filepath.Join(root, "home"), Getenv: func(k string) string { return f.settings[k] }}
	f.projDir = filepath.Join(f.env.ProjectsDir(), ProjectDirName(f.cwd))
	if err := os.MkdirAll(f.projDir, 0o700); err != nil {
		t.Fatal(err)
	}
	return f
}

// transcript writes a transcript named id.jsonl into dir, modified at mod.
func writeTranscriptAt(t *testing.T, dir, name string, mod time.Time) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(`{"type":"user"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
	return p
}

var curT0 = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

func TestCurrentSessionNewestTranscript(t *testing.T) {
	f := newSessionFixture(t)
	writeTranscriptAt(t, f.projDir, "older.jsonl", curT0)
	want := writeTranscriptAt(t, f.projDir, "newest.jsonl", curT0.Add(time.Hour))
	writeTranscriptAt(t, f.projDir, "middle.jsonl", curT0.Add(time.Minute))
	// Not sessions: subagent files, bad names, other extensions, folders.
	writeTranscriptAt(t, f.projDir, "agent-1234abcd.jsonl", curT0.Add(2*time.Hour))
	writeTranscriptAt(t, f.projDir, "bad name.jsonl", curT0.Add(2*time.Hour))
	writeTranscriptAt(t, f.projDir, "notes.txt", curT0.Add(2*time.Hour))
	if err := os.MkdirAll(filepath.Join(f.projDir, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Another project's newer transcript is not this project's.
	other := filepath.Join(f.env.ProjectsDir(), "-elsewhere")
	os.MkdirAll(other, 0o700)
	writeTranscriptAt(t, other, "foreign.jsonl", curT0.Add(3*time.Hour))

	id, p, err := Current(context.Background(), f.env, f.cwd)
	if err != nil {
		t.Fatalf("Current: %v", err)
	}
	if id != "newest" || p != want {
		t.Errorf("Current = %q, %q; want %q, %q", id, p, "newest", want)
	}
}

func TestCurrentSessionSkipsSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	f := newSessionFixture(t)
	writeTranscriptAt(t, f.projDir, "real.jsonl", curT0)
	outside := writeTranscriptAt(t, t.TempDir(), "x.jsonl", curT0.Add(time.Hour))
	if err := os.Symlink(outside, filepath.Join(f.projDir, "linked.jsonl")); err != nil {
		t.Fatal(err)
	}
	id, _, err := Current(context.Background(), f.env, f.cwd)
	if err != nil || id != "real" {
		t.Errorf("Current = %q, %v; want real (a symlinked transcript is not a session)", id, err)
	}
}

func TestCurrentSessionSymlinkedCwd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	// Claude Code records the resolved path; the server may see the link.
	f := newSessionFixture(t)
	writeTranscriptAt(t, f.projDir, "s1.jsonl", curT0)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(f.cwd, link); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(f.cwd)
	if err != nil {
		t.Fatal(err)
	}
	if real != f.cwd { // the temp dir itself is behind a symlink (macOS /var)
		os.MkdirAll(filepath.Join(f.env.ProjectsDir(), ProjectDirName(real)), 0o700)
		writeTranscriptAt(t, filepath.Join(f.env.ProjectsDir(), ProjectDirName(real)), "s1.jsonl", curT0)
	}
	id, _, err := Current(context.Background(), f.env, link)
	if err != nil || id != "s1" {
		t.Errorf("Current(link) = %q, %v; want s1", id, err)
	}
}

func TestCurrentSessionLongPath(t *testing.T) {
	f := newSessionFixture(t)
	cwd := filepath.Join(f.cwd, strings.Repeat("deep-folder.", 10), strings.Repeat("x", 60), strings.Repeat("y", 60))
	name := ProjectDirName(cwd)
	if len(name) <= 200 {
		t.Fatalf("ProjectDirName = %d chars, want a hashed name over 200", len(name))
	}
	t.Run("DJB2", func(t *testing.T) {
		dir := filepath.Join(f.env.ProjectsDir(), name)
		os.MkdirAll(dir, 0o700)
		defer os.RemoveAll(dir)
		writeTranscriptAt(t, dir, "node.jsonl", curT0)
		if id, _, err := Current(context.Background(), f.env, cwd); err != nil || id != "node" {
			t.Errorf("Current = %q, %v; want node", id, err)
		}
	})
	t.Run("OtherHash", func(t *testing.T) {
		// Claude Code's native build hashes with Bun.hash: same prefix,
		// another suffix.
		dir := filepath.Join(f.env.ProjectsDir(), name[:201]+"1x2y3z")
		os.MkdirAll(dir, 0o700)
		defer os.RemoveAll(dir)
		writeTranscriptAt(t, dir, "bun.jsonl", curT0)
		if id, _, err := Current(context.Background(), f.env, cwd); err != nil || id != "bun" {
			t.Errorf("Current = %q, %v; want bun", id, err)
		}
	})
}

// rowsCurrentSessions: two sessions of project "my.proj", one of another
// project, one of another platform and one with an id unfit for a path.
const rowsCurrentSessions = `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, platform_source, user_prompt,
  started_at, started_at_epoch, status) VALUES
 (1, 'stored-old', 'mem-1', 'my.proj', 'claude', 'a', 'x', 1767607260000, 'completed'),
 (2, 'stored-new', 'mem-2', 'my.proj', 'claude', 'b', 'x', 1767610860000, 'completed'),
 (3, 'codex-run', 'mem-3', 'my.proj', 'codex', 'c', 'x', 1767690000000, 'completed'),
 (4, 'other-project', 'mem-4', 'other', 'claude', 'd', 'x', 1767690000000, 'completed'),
 (5, '../evil', 'mem-5', 'my.proj', 'claude', 'e', 'x', 1767690000000, 'completed');
`

func TestCurrentSessionFromDB(t *testing.T) {
	f := newSessionFixture(t)
	if err := os.MkdirAll(f.env.DataDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	memtest.Create(t, f.env.DBPath(), memtest.SchemaCurrent, rowsCurrentSessions, "wal")
	id, p, err := Current(context.Background(), f.env, f.cwd)
	if err != nil || id != "stored-new" || p != "" {
		t.Errorf("Current = %q, %q, %v; want stored-new with no transcript", id, p, err)
	}

	// A transcript wins over stored sessions, however old.
	writeTranscriptAt(t, f.projDir, "from-transcript.jsonl", curT0.AddDate(-1, 0, 0))
	if id, _, err := Current(context.Background(), f.env, f.cwd); err != nil || id != "from-transcript" {
		t.Errorf("Current = %q, %v; want from-transcript", id, err)
	}

	refs := Sessions(context.Background(), f.env, f.cwd)
	var got []string
	for _, r := range refs {
		got = append(got, r.ID)
	}
	if diff := cmp.Diff([]string{"from-transcript", "stored-new", "stored-old"}, got); diff != "" {
		t.Errorf("Sessions ids (-want +got):\n%s", diff)
	}
}

func TestCurrentSessionNone(t *testing.T) {
	f := newSessionFixture(t)
	_, _, err := Current(context.Background(), f.env, f.cwd)
	if !errors.Is(err, ErrNoCurrentSession) {
		t.Errorf("Current with no transcripts = %v, want ErrNoCurrentSession", err)
	}
	if _, _, err := Current(context.Background(), f.env, ""); !errors.Is(err, ErrNoCurrentSession) {
		t.Errorf("Current(\"\") = %v, want ErrNoCurrentSession", err)
	}
	// A corrupt database is skipped, not an error of its own.
	os.MkdirAll(f.env.DataDir(), 0o700)
	os.WriteFile(f.env.DBPath(), []byte("not a database"), 0o600)
	if _, _, err := Current(context.Background(), f.env, f.cwd); !errors.Is(err, ErrNoCurrentSession) {
		t.Errorf("Current with a corrupt DB = %v, want ErrNoCurrentSession", err)
	}
}

func TestClaudeMemProject(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	repo := mk("src", "repo")
	mk("src", "repo", ".git")
	sub := mk("src", "repo", "pkg", "deep")
	plain := mk("plain dir")
	wt := mk("trees", "feature-x")
	gitdir := filepath.Join(repo, ".git", "worktrees", "feature-x")
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
	wtSub := mk("trees", "feature-x", "cmd")
	sm := mk("src", "repo", "vendor", "mod")
	os.WriteFile(filepath.Join(sm, ".git"), []byte("gitdir: ../../.git/modules/mod\n"), 0o644)

	tests := []struct {
		name, cwd, want string
	}{
		{"RepoRoot", repo, "repo"},
		{"RepoSubdir", sub, "repo"},
		{"NoRepo", plain, "plain dir"},
		{"WorktreeRoot", wt, "repo/feature-x"},
		{"WorktreeSubdir", wtSub, "feature-x"}, // claude-mem checks cwd/.git only
		{"Submodule", sm, "mod"},
		{"Empty", "", "unknown-project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClaudeMemProject(tt.cwd); got != tt.want {
				t.Errorf("ClaudeMemProject(%q) = %q, want %q", tt.cwd, got, tt.want)
			}
		})
	}
	if runtime.GOOS != "windows" {
		if got := ClaudeMemProject("/"); got != "unknown-project" {
			t.Errorf("ClaudeMemProject(/) = %q, want unknown-project", got)
		}
	}
}
