package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bottle/render/claudemem/memtest"
)

// doctorWorld is a hookWorld with a project folder and fake hookbin and
// mcpserver binaries in a bin folder that is all of PATH.
type doctorWorld struct {
	*hookWorld
	project, bin, hookbin, mcpserver string
}

func newDoctorWorld(t *testing.T) *doctorWorld {
	t.Helper()
	w := &doctorWorld{hookWorld: newHookWorld(t)}
	w.project = filepath.Join(w.home, "project")
	w.bin = filepath.Join(w.home, "bin")
	if err := os.MkdirAll(w.project, 0o755); err != nil {
		t.Fatal(err)
	}
	w.hookbin = doctorBinary(t, w.bin, "hookbin")
	w.mcpserver = doctorBinary(t, w.bin, "mcpserver")
	t.Setenv("PATH", w.bin)
	return w
}

func doctorBinary(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+exeSuffix())
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// cmd runs hookbin in process and returns stdout and the error.
func (w *doctorWorld) cmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(t.Context(), args, strings.NewReader(""), &out, &errb)
	return out.String(), err
}

func (w *doctorWorld) install(t *testing.T, args ...string) {
	t.Helper()
	args = append([]string{"install", "--hookbin", w.hookbin, "--mcpserver", w.mcpserver, "--project", w.project}, args...)
	if out, err := w.cmd(t, args...); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
}

// doctor runs hookbin doctor for the world's project and returns its lines
// and whether it exited 1.
func (w *doctorWorld) doctor(t *testing.T) (lines []string, failed bool) {
	t.Helper()
	out, err := w.cmd(t, "doctor", "--project", w.project)
	var ex exitError
	switch {
	case err == nil:
	case errors.As(err, &ex) && ex.code == 1 && ex.msg == "":
		failed = true
	default:
		t.Fatalf("doctor: %v", err)
	}
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "✓ ") && !strings.HasPrefix(l, "! ") && !strings.HasPrefix(l, "✗ ") {
			t.Errorf("line without a verdict: %q", l)
		}
	}
	return lines, failed
}

// line returns the first line that contains all of subs ("" if none).
func line(lines []string, subs ...string) string {
	for _, l := range lines {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(l, s)
		}
		if ok {
			return l
		}
	}
	return ""
}

func wantLine(t *testing.T, lines []string, subs ...string) {
	t.Helper()
	if line(lines, subs...) == "" {
		t.Errorf("no line with %q in:\n%s", subs, strings.Join(lines, "\n"))
	}
}

func TestDoctorFreshMachine(t *testing.T) {
	w := newDoctorWorld(t)
	t.Setenv("PATH", t.TempDir()) // no mcpserver anywhere
	lines, failed := w.doctor(t)
	if !failed {
		t.Error("doctor exited 0 with nothing registered")
	}
	wantLine(t, lines, "✓ hookbin: ")
	wantLine(t, lines, "✗ mcpserver: not found", "go build")
	wantLine(t, lines, "! Claude Code config: ", "not found")
	wantLine(t, lines, "! claude-mem DB: standalone (no claude-mem DB at "+filepath.Join(w.data, "claude-mem.db")+")")
	wantLine(t, lines, "✓ bottles dir: "+w.bottlesDir()+" (writable, 0 bottles)")
	for _, ev := range []string{"SessionStart", "Stop", "SessionEnd"} {
		wantLine(t, lines, "✗ hook "+ev+" → hookbin ", ": not registered — run: hookbin install")
	}
	wantLine(t, lines, "! MCP server \"bottle\": not registered — run: hookbin install")
	wantLine(t, lines, "! last hook run: none logged yet")
	wantLine(t, lines, "✓ claude-mem endless mode: off")
	if files, _ := os.ReadDir(w.bottlesDir()); len(files) != 0 {
		t.Errorf("doctor left files in the bottles dir: %v", files)
	}
}

// TestDoctorInstalled: after install, a hook run and with a claude-mem
// database, every line is ✓ and doctor exits 0.
func TestDoctorInstalled(t *testing.T) {
	w := newDoctorWorld(t)
	w.install(t)
	w.transcript(t, "abc", "basic")
	w.hook(t, "stop", `{"session_id":"abc"}`)
	memtest.Create(t, filepath.Join(w.data, "claude-mem.db"), memtest.SchemaCurrent, `
INSERT INTO sdk_sessions (id, content_session_id, memory_session_id, project, started_at, started_at_epoch)
  VALUES (1, 'abc', 'mem-1', 'proj', 'x', 1767607260000);`, "wal")
	lines, failed := w.doctor(t)
	if failed {
		t.Error("doctor exited 1 on a complete install")
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "✓ ") {
			t.Errorf("not fine: %q", l)
		}
	}
	settings := filepath.Join(w.config, "settings.json")
	wantLine(t, lines, "✓ mcpserver: "+w.mcpserver+" (on PATH)")
	wantLine(t, lines, "✓ Claude Code config: "+w.config+" (1 transcript in 1 project)")
	wantLine(t, lines, "✓ claude-mem DB: "+filepath.Join(w.data, "claude-mem.db")+" (1 session)")
	wantLine(t, lines, "✓ bottles dir: ", "(writable, 1 bottle)")
	wantLine(t, lines, "✓ hook SessionStart → hookbin session-start (user: "+settings+")")
	wantLine(t, lines, "✓ hook Stop → hookbin stop (user: "+settings+")")
	wantLine(t, lines, "✓ hook SessionEnd → hookbin session-end (user: "+settings+")")
	wantLine(t, lines, "✓ MCP server \"bottle\": registered (user: "+filepath.Join(w.config, ".claude.json")+")")
	wantLine(t, lines, "✓ last hook run: ", " stop: ok")
}

func TestDoctorScopes(t *testing.T) {
	for _, tt := range []struct{ scope, settings, mcp string }{
		{"project", filepath.Join(".claude", "settings.json"), "project: "},
		{"local", filepath.Join(".claude", "settings.local.json"), "local: "},
	} {
		t.Run(tt.scope, func(t *testing.T) {
			w := newDoctorWorld(t)
			w.install(t, "--scope", tt.scope)
			lines, failed := w.doctor(t)
			if failed {
				t.Errorf("doctor exited 1 after install --scope %s:\n%s", tt.scope, strings.Join(lines, "\n"))
			}
			wantLine(t, lines, "✓ hook Stop → hookbin stop ("+tt.scope+": "+filepath.Join(w.project, tt.settings)+")")
			wantLine(t, lines, "✓ MCP server \"bottle\": registered ("+tt.mcp)
		})
	}
}

func TestDoctorProblems(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, w *doctorWorld)
		want     []string
		wantFail bool
	}{
		{
			name: "BottlesNotWritable",
			setup: func(t *testing.T, w *doctorWorld) {
				file := filepath.Join(w.home, "file")
				os.WriteFile(file, nil, 0o600)
				t.Setenv("BOTTLE_DIR", filepath.Join(file, "bottles"))
			},
			want:     []string{"✗ bottles dir: ", "not writable", "set BOTTLE_DIR"},
			wantFail: true,
		},
		{
			name:     "HookBinaryGone",
			setup:    func(t *testing.T, w *doctorWorld) { os.Remove(w.hookbin) },
			want:     []string{"✗ hook SessionStart → hookbin session-start (user: ", "runs $HOOKBIN,", "missing"},
			wantFail: true,
		},
		{
			name: "HooksDisabled",
			setup: func(t *testing.T, w *doctorWorld) {
				writeJSON(t, filepath.Join(w.project, ".claude", "settings.local.json"), `{"disableAllHooks": true}`)
			},
			want:     []string{"✗ hooks: disableAllHooks is set in "},
			wantFail: true,
		},
		{
			name: "MatcherMissesCompact",
			setup: func(t *testing.T, w *doctorWorld) {
				writeJSON(t, filepath.Join(w.config, "settings.json"), `{"hooks": {
  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "`+w.hookbin+` session-start"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "`+w.hookbin+`", "args": ["stop"]}]}],
  "SessionEnd": [{"matcher": "*", "hooks": [{"type": "command", "command": "${HOME}/bin/hookbin session-end"}]}]}}`)
			},
			want: []string{"! hook SessionStart → hookbin session-start", "does not match source compact"},
		},
		{
			name: "BrokenSettings",
			setup: func(t *testing.T, w *doctorWorld) {
				writeJSON(t, filepath.Join(w.project, ".claude", "settings.json"), `{"hooks": `)
			},
			want: []string{"! settings ", "is not valid JSON"},
		},
		{
			name: "LastRunFailed",
			setup: func(t *testing.T, w *doctorWorld) {
				w.hook(t, "session-start", "garbage")
			},
			want: []string{"! last hook run: ", "session-start: error: payload is not JSON", "— see ", filepath.Join("mem", "logs", "bottle.log")},
		},
		{
			name: "CorruptDB",
			setup: func(t *testing.T, w *doctorWorld) {
				writeJSON(t, filepath.Join(w.data, "claude-mem.db"), "not a database at all, not at all")
			},
			want: []string{"! claude-mem DB: ", "rendered from transcripts alone"},
		},
		{
			name: "EndlessModeSameDir",
			setup: func(t *testing.T, w *doctorWorld) {
				writeJSON(t, filepath.Join(w.data, "settings.json"), `{"CLAUDE_MEM_ENDLESS_MODE": "true", "CLAUDE_MEM_MODE": "code"}`)
			},
			want: []string{"! claude-mem endless mode: CLAUDE_MEM_ENDLESS_MODE is set in ", "set BOTTLE_DIR to another folder"},
		},
		{
			name: "EndlessModeOtherDir",
			setup: func(t *testing.T, w *doctorWorld) {
				writeJSON(t, filepath.Join(w.data, "settings.json"), `{"env": {"CLAUDE_MEM_ENDLESS_MODE": true}}`)
				t.Setenv("BOTTLE_DIR", filepath.Join(w.home, "my-bottles"))
			},
			want: []string{"✓ claude-mem endless mode: CLAUDE_MEM_ENDLESS_MODE is set in ", "bottle writes elsewhere"},
		},
		{
			name: "EndlessModeOff",
			setup: func(t *testing.T, w *doctorWorld) {
				writeJSON(t, filepath.Join(w.data, "settings.json"), `{"CLAUDE_MEM_ENDLESS_MODE": "false"}`)
			},
			want: []string{"✓ claude-mem endless mode: off"},
		},
		{
			name: "OpenBottlesDir",
			setup: func(t *testing.T, w *doctorWorld) {
				os.MkdirAll(w.bottlesDir(), 0o755)
				os.Chmod(w.bottlesDir(), 0o755)
			},
			want: []string{"! bottles dir: ", "open to other users (mode 0755)", "chmod 700"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "OpenBottlesDir" && exeSuffix() != "" {
				t.Skip("no Unix modes on Windows")
			}
			w := newDoctorWorld(t)
			w.install(t)
			tt.setup(t, w)
			lines, failed := w.doctor(t)
			if failed != tt.wantFail {
				t.Errorf("doctor failed = %v, want %v", failed, tt.wantFail)
			}
			want := make([]string, len(tt.want))
			for i, s := range tt.want {
				want[i] = strings.ReplaceAll(s, "$HOOKBIN", w.hookbin)
			}
			wantLine(t, lines, want...)
		})
	}
}

func writeJSON(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDoctorHelp(t *testing.T) {
	w := newDoctorWorld(t)
	out, err := w.cmd(t, "doctor", "--help")
	if err != nil || !strings.HasPrefix(out, "usage: hookbin doctor") {
		t.Errorf("doctor --help: %v, %q", err, out)
	}
	if _, err := w.cmd(t, "doctor", "extra"); err == nil {
		t.Error("doctor accepted an argument")
	}
}
