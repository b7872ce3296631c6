package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"bottle/claudemem/memtest"
	"bottle/internal/claudesettings"
)

// doctorWorld is a hookWorld with a project folder and fake hookbin and
// mcpserver binaries in a bin folder that is all of PATH. Doctor sees the
// fake hookbin as its own binary.
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
	w.deps.executable = func() (string, error) { return w.hookbin, nil }
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
	err := w.deps.run(t.Context(), args, strings.NewReader(""), &out, &errb)
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
	if err := os.Remove(w.mcpserver); err != nil {
		t.Fatal(err)
	}
	lines, failed := w.doctor(t)
	if !failed {
		t.Error("doctor exited 0 with nothing registered")
	}
	wantLine(t, lines, "✓ hookbin: ")
	wantLine(t, lines, "✗ mcpserver: not found", "go build")
	wantLine(t, lines, "! Claude Code config: ", "not found")
	wantLine(t, lines, "✓ claude-mem DB: none (standalone mode: tool activity is digested from transcripts; a claude-mem DB at "+filepath.Join(w.data, "claude-mem.db")+" would be read)")
	wantLine(t, lines, "✓ bottles dir: "+w.bottlesDir()+" (not created yet; the first hook run creates it in "+w.home+", which is writable)")
	for _, ev := range []string{"SessionStart", "Stop", "SessionEnd"} {
		wantLine(t, lines, "✗ hook "+ev+" → hookbin ", ": not registered — run: hookbin install")
	}
	wantLine(t, lines, "! MCP server \"bottle\": not registered — run: hookbin install")
	wantLine(t, lines, "! last hook run: none logged yet")
	wantLine(t, lines, "✓ claude-mem endless mode: off")
	if _, err := os.Stat(w.data); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("doctor created claude-mem's data folder %s (stat: %v)", w.data, err)
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
	wantLine(t, lines, "✓ mcpserver: "+w.mcpserver)
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
			name: "OtherHookbin",
			setup: func(t *testing.T, w *doctorWorld) {
				other := doctorBinary(t, filepath.Join(w.home, "other"), "hookbin")
				w.deps.executable = func() (string, error) { return other, nil }
			},
			want: []string{"! hook SessionStart → hookbin session-start (user: ", "runs $HOOKBIN, not this hookbin (", "other"},
		},
		{
			name: "HookInBuildCache",
			setup: func(t *testing.T, w *doctorWorld) {
				t.Setenv("GOCACHE", filepath.Join(w.home, "gocache"))
				cached := doctorBinary(t, filepath.Join(w.home, "gocache", filepath.FromSlash(cacheEntry)), "hookbin")
				settings := filepath.Join(w.config, "settings.json")
				data := string(readFile(t, settings))
				writeJSON(t, settings, strings.ReplaceAll(data, claudesettings.HookCommand(w.hookbin), claudesettings.HookCommand(cached)))
			},
			want: []string{"! hook SessionStart → hookbin session-start (user: ", "gocache", `a "go run" binary in Go's build cache`, "go build -o bin/"},
		},
		{
			name: "HookInTwoScopes",
			setup: func(t *testing.T, w *doctorWorld) {
				w.hookbin = doctorBinary(t, filepath.Join(w.home, "other"), "hookbin")
				w.install(t, "--scope", "local")
			},
			want: []string{"! hook Stop → hookbin stop is registered 2 times with different commands (user: ", "; local: ", "Claude Code runs each"},
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
			want: []string{"! settings ", ": invalid JSON at line 1, column 10"},
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
		{
			name: "ArchiveIsSymlink",
			setup: func(t *testing.T, w *doctorWorld) {
				os.MkdirAll(w.bottlesDir(), 0o700)
				if err := os.Symlink(t.TempDir(), filepath.Join(w.bottlesDir(), "archive")); err != nil {
					t.Skip(err)
				}
			},
			want:     []string{"✗ bottles dir: archive folder ", "is not a real folder (a symlink is not followed)"},
			wantFail: true,
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

// TestDoctorCreatesNothing runs doctor on a scratch HOME where every folder
// is at its default: it reads and probes, and leaves no file or folder.
func TestDoctorCreatesNothing(t *testing.T) {
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "USERPROFILE": home, "CLAUDE_CONFIG_DIR": "", "CLAUDE_MEM_DATA_DIR": "", "BOTTLE_DIR": "",
	} {
		t.Setenv(k, v)
	}
	project := filepath.Join(home, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	before := tree(t, home)
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"doctor", "--project", project}, strings.NewReader(""), &out, &errb); err == nil {
		t.Error("doctor exited 0 with nothing registered")
	}
	if diff := cmp.Diff(before, tree(t, home)); diff != "" {
		t.Errorf("doctor changed %s (-before +after):\n%s", home, diff)
	}
	lines := strings.Split(out.String(), "\n")
	wantLine(t, lines, "✓ bottles dir: "+filepath.Join(home, ".claude-mem", "bottles")+" (not created yet; ", home+", which is writable")
}

// tree lists every file and folder under root, relative to it.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDoctorSessionEndNothingRecorded: the SessionEnd of a session with
// nothing recorded (what "claude mcp list" triggers) is the last hook run,
// and doctor counts it as fine.
func TestDoctorSessionEndNothingRecorded(t *testing.T) {
	w := newDoctorWorld(t)
	w.install(t)
	w.hook(t, "session-end", `{"session_id":"0d5b5f7e-1111-2222-3333-444455556666","reason":"other"}`)
	lines, _ := w.doctor(t)
	wantLine(t, lines, "✓ last hook run: ", " session-end: skipped: nothing recorded for this session")
}

// TestDoctorInvalidSettings: a settings file and an MCP config that are not
// JSON are reported as such, with line and column, and the hooks and server
// they may hold as unknown rather than "not registered".
func TestDoctorInvalidSettings(t *testing.T) {
	w := newDoctorWorld(t)
	w.install(t)
	settings, claudeJSON := filepath.Join(w.config, "settings.json"), filepath.Join(w.config, ".claude.json")
	writeJSON(t, settings, "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n")
	writeJSON(t, claudeJSON, `{"mcpServers": {"bottle": }}`)
	lines, failed := w.doctor(t)
	if !failed {
		t.Error("doctor exited 0 with no readable hook")
	}
	wantLine(t, lines, "! settings "+settings+": invalid JSON at line 4, column 3: invalid character '}'", "Claude Code may ignore the whole file")
	wantLine(t, lines, "✗ hook Stop → hookbin stop: not found in the settings that could be read; "+settings+" could not (see above)")
	wantLine(t, lines, "! MCP config "+claudeJSON+": invalid JSON at line 1, column 27")
	wantLine(t, lines, "! MCP server \"bottle\": not found in the MCP configs that could be read; "+claudeJSON)
	if l := line(lines, "not registered"); l != "" {
		t.Errorf("doctor says %q about a file it could not read", l)
	}
}

// TestDoctorReinstallFromCopy: installing again from a copy of the binaries
// replaces bottle's hooks, recognised by their subcommand, instead of adding
// a second set, and doctor vouches for the copy alone.
func TestDoctorReinstallFromCopy(t *testing.T) {
	w := newDoctorWorld(t)
	w.install(t)
	first := w.hookbin
	w.hookbin = doctorBinary(t, filepath.Join(w.home, "copy"), "hookbin")
	w.mcpserver = doctorBinary(t, filepath.Join(w.home, "copy"), "mcpserver")
	w.install(t)

	loc := claudesettings.Locations{ConfigDir: w.config, ClaudeJSON: filepath.Join(w.config, ".claude.json"), Project: w.project}
	regs, problems := claudesettings.Registrations(loc.Targets())
	if len(problems) != 0 {
		t.Errorf("problems: %+v", problems)
	}
	var got []string
	for _, r := range regs {
		got = append(got, r.Event+" "+r.Prog)
	}
	want := []string{"SessionStart " + w.hookbin, "Stop " + w.hookbin, "SessionEnd " + w.hookbin, "PreCompact " + w.hookbin, "PreToolUse " + w.hookbin, " " + w.mcpserver}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registrations after installing from a copy (-want +got):\n%s", diff)
	}
	if data := readFile(t, filepath.Join(w.config, "settings.json")); strings.Contains(string(data), first) {
		t.Errorf("settings still name the first hookbin %s:\n%s", first, data)
	}
	lines, failed := w.doctor(t)
	if failed {
		t.Error("doctor exited 1")
	}
	settings := filepath.Join(w.config, "settings.json")
	for _, ev := range []string{"SessionStart → hookbin session-start", "Stop → hookbin stop", "SessionEnd → hookbin session-end", "PreCompact → hookbin pre-compact", "PreToolUse → hookbin pre-tool-use"} {
		wantLine(t, lines, "✓ hook "+ev+" (user: "+settings+")")
	}
}

// TestDoctorDevServer: in a clone of bottle, the committed .mcp.json's
// server is the development server, also next to a user install; elsewhere
// the same file and a user install are two different "bottle" servers.
func TestDoctorDevServer(t *testing.T) {
	committed := readFile(t, filepath.Join("..", ".mcp.json"))
	tests := []struct {
		name        string
		clone, user bool
		want        []string
	}{
		{name: "Clone", clone: true, want: []string{"✓ MCP server \"bottle\": the development server of this clone (project: ", "runs scripts/mcpserver-wrapper.sh)"}},
		{name: "CloneAndUser", clone: true, user: true, want: []string{"✓ MCP server \"bottle\": the development server of this clone (project: ",
			"; also registered (user: ", "scope conflict for \"bottle\" here and starts the project one"}},
		{name: "ElsewhereAndUser", user: true, want: []string{"! MCP server \"bottle\" is registered in 2 places with different commands (user: ",
			"project: ${CLAUDE_PROJECT_DIR:-.}/scripts/mcpserver-wrapper.sh", "starts only the project one", "hookbin uninstall --scope"}},
		{name: "Elsewhere", want: []string{"✓ MCP server \"bottle\": registered (project: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newDoctorWorld(t)
			writeJSON(t, filepath.Join(w.project, ".mcp.json"), string(committed))
			if tt.clone {
				writeJSON(t, filepath.Join(w.project, "go.mod"), "module bottle\n\ngo 1.26\n")
				writeJSON(t, filepath.Join(w.project, "scripts", "mcpserver-wrapper.sh"), "#!/bin/sh\n")
			}
			if tt.user {
				w.install(t)
			}
			lines, _ := w.doctor(t)
			wantLine(t, lines, tt.want...)
		})
	}
}
