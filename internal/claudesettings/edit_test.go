package claudesettings

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCommitKeepsModeAndSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes and symlinks differ on Windows")
	}
	m := newMachine(t)
	tg := m.target(t, User)
	// settings.json is a symlink into a dotfiles repo; .claude.json is 0644.
	real := filepath.Join(m.root, "dotfiles", "settings.json")
	writeFile(t, real, []byte(`{"model":"opus"}`))
	if err := os.MkdirAll(filepath.Dir(tg.Settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, tg.Settings); err != nil {
		t.Fatal(err)
	}
	writeFile(t, tg.MCP, []byte(`{}`))
	if err := os.Chmod(tg.MCP, 0o644); err != nil {
		t.Fatal(err)
	}
	m.install(t, User, "/bin/hookbin")

	if fi, err := os.Lstat(tg.Settings); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symlink (err %v)", tg.Settings, err)
	}
	if got := readFile(t, real); !bytes.Contains(got, []byte(`"model": "opus"`)) || !bytes.Contains(got, []byte("session-start")) {
		t.Errorf("symlink target not updated:\n%s", got)
	}
	if b := backups(t, real); len(b) != 1 {
		t.Errorf("backups of %s = %q, want one", real, b)
	}
	if fi, err := os.Stat(tg.MCP); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s mode = %v (err %v), want 0644", tg.MCP, fi.Mode().Perm(), err)
	}
}

// TestCommitConflict: a file that changed, appeared or vanished after the
// plan read it is not written.
func TestCommitConflict(t *testing.T) {
	tests := []struct {
		name   string
		before string // "" = no file when planning
		after  string // "" = no file when committing
	}{
		{name: "Changed", before: `{"a":1}`, after: `{"a":2}`},
		{name: "Appeared", after: `{"a":2}`},
		{name: "Vanished", before: `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			tg := m.target(t, Project)
			if tt.before != "" {
				writeFile(t, tg.Settings, []byte(tt.before))
			}
			edits, err := tg.PlanInstall("/bin/hookbin", "/bin/mcpserver")
			if err != nil {
				t.Fatal(err)
			}
			if tt.after != "" {
				writeFile(t, tg.Settings, []byte(tt.after))
			} else {
				os.Remove(tg.Settings)
			}
			err = edits[0].Commit(time.Now())
			if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), tg.Settings) {
				t.Errorf("Commit = %v, want ErrChanged naming %s", err, tg.Settings)
			}
			got, _ := os.ReadFile(tg.Settings)
			if string(got) != tt.after {
				t.Errorf("%s = %q, want it left as %q", tg.Settings, got, tt.after)
			}
			if b := backups(t, tg.Settings); len(b) != 0 {
				t.Errorf("backups %q after a refused commit", b)
			}
		})
	}
}

// TestBackupNames: two backups in one second keep both, the second with -2.
func TestBackupNames(t *testing.T) {
	m := newMachine(t)
	tg := m.target(t, Project)
	writeFile(t, tg.Settings, []byte(`{"model":"opus"}`))
	now := time.Date(2026, 7, 20, 12, 32, 5, 0, time.FixedZone("CEST", 2*3600))
	base := tg.Settings + ".bak-20260720T103205Z"
	for _, plan := range []func() ([]*Edit, error){
		func() ([]*Edit, error) { return tg.PlanInstall("/bin/hookbin", "/bin/mcpserver") },
		tg.PlanUninstall,
	} {
		edits, err := plan()
		if err != nil {
			t.Fatal(err)
		}
		if err := edits[0].Commit(now); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := backups(t, tg.Settings), []string{base, base + "-2"}; !slices.Equal(got, want) {
		t.Errorf("backups = %q, want %q", got, want)
	}
	if got := string(readFile(t, base)); got != `{"model":"opus"}` {
		t.Errorf("first backup = %q, want the original", got)
	}
	if got := string(readFile(t, tg.Settings)); got != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("after install and uninstall: %q", got)
	}
}

// TestPlanWritesNothing: planning reads only; a malformed file fails the
// whole plan with one line naming it.
func TestPlanWritesNothing(t *testing.T) {
	tests := []struct {
		name, settings, mcp string
		wantErr             string // "" = the plan succeeds
	}{
		{name: "Empty"},
		{name: "Syntax", settings: "{\n  \"hooks\": {,\n}", wantErr: "line 2, column 13"},
		{name: "MCPNotObject", mcp: `[]`, wantErr: "not a JSON object"},
		{name: "HooksNotObject", settings: `{"hooks":7}`, wantErr: "hooks is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			tg := m.target(t, Project)
			if tt.settings != "" {
				writeFile(t, tg.Settings, []byte(tt.settings))
			}
			if tt.mcp != "" {
				writeFile(t, tg.MCP, []byte(tt.mcp))
			}
			edits, err := tg.PlanInstall("/bin/hookbin", "/bin/mcpserver")
			switch {
			case tt.wantErr == "" && (err != nil || len(edits) != 2 || !edits[0].Changed() || !edits[1].Changed()):
				t.Errorf("PlanInstall = %v, %v; want two changed edits", edits, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n")):
				t.Errorf("PlanInstall error = %v, want one line saying %q", err, tt.wantErr)
			}
			entries, _ := os.ReadDir(m.loc.Project)
			for _, e := range entries {
				if e.Name() != ".claude" && e.Name() != ".mcp.json" || tt.settings == "" && tt.mcp == "" {
					t.Errorf("planning wrote %s", e.Name())
				}
			}
		})
	}
}
