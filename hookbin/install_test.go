package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"bottle/locate"

	"github.com/google/go-cmp/cmp"

	"bottle/internal/claudesettings"
)

// world is a scratch machine: a HOME, a project directory and fake binaries.
type world struct {
	root, home, project, bin string
	hookbin, mcpserver       string
	vars                     map[string]string // environment seen through locate.Env
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{
		root:    root,
		home:    filepath.Join(root, "home"),
		project: filepath.Join(root, "project"),
		bin:     filepath.Join(root, "bin"),
		vars:    map[string]string{},
	}
	for _, d := range []string{w.home, w.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.hookbin = fakeBinary(t, w.bin, "hookbin")
	w.mcpserver = fakeBinary(t, w.bin, "mcpserver")
	return w
}

// fakeBinary creates an executable file dir/name and returns its path.
func fakeBinary(t *testing.T, dir, name string) string {
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

func (w *world) env() locate.Env {
	return locate.Env{Home: w.home, Getenv: func(k string) string { return w.vars[k] }}
}

// installDefault is runInstall with the process's own deps.
func installDefault(ctx context.Context, args []string, env locate.Env, stdout, stderr io.Writer) error {
	return runInstall(ctx, defaultDeps(), args, env, stdout, stderr)
}

// run calls runInstall or runUninstall with the world's project and, for
// install, its binaries (later args override them).
func (w *world) run(t *testing.T, cmd string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	full := []string{"--project", w.project}
	fn := runUninstall
	if cmd == "install" {
		full = append(full, "--hookbin", w.hookbin, "--mcpserver", w.mcpserver)
		fn = installDefault
	}
	full = append(full, args...)
	var out, errb bytes.Buffer
	err = fn(t.Context(), full, w.env(), &out, &errb)
	return out.String(), errb.String(), err
}

// mustRun is run that fails the test on an error.
func (w *world) mustRun(t *testing.T, cmd string, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := w.run(t, cmd, args...)
	if err != nil {
		t.Fatalf("%s %q: %v\nstdout:\n%s", cmd, args, err, stdout)
	}
	return stdout, stderr
}

// paths returns the settings file and MCP config file of a scope.
func (w *world) paths(scope string) (settings, mcp string) {
	config := filepath.Join(w.home, ".claude")
	claudeJSON := filepath.Join(w.home, ".claude.json")
	if d := w.vars["CLAUDE_CONFIG_DIR"]; d != "" {
		config, claudeJSON = d, filepath.Join(d, ".claude.json")
	}
	switch scope {
	case "project":
		return filepath.Join(w.project, ".claude", "settings.json"), filepath.Join(w.project, ".mcp.json")
	case "local":
		return filepath.Join(w.project, ".claude", "settings.local.json"), claudeJSON
	}
	return filepath.Join(config, "settings.json"), claudeJSON
}

// projectKey is the key of the project in ~/.claude.json.
func (w *world) projectKey(t *testing.T) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(w.project)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(p)
}

// snapshot maps every file and directory under the world's home and project
// (relative path) to its content.
func (w *world) snapshot(t *testing.T) map[string]string {
	t.Helper()
	snap := map[string]string{}
	for _, dir := range []string{w.home, w.project} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(w.root, p)
			if d.IsDir() {
				snap[rel] = "<dir>"
				return nil
			}
			b, err := os.ReadFile(p)
			snap[rel] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return snap
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixture reads testdata/install/name, with $PROJECT replaced by key.
func fixture(t *testing.T, name, key string) []byte {
	t.Helper()
	b := readFile(t, filepath.Join("testdata", "install", name))
	return bytes.ReplaceAll(b, []byte("$PROJECT"), []byte(key))
}

// parse decodes JSON keeping numbers as written.
func parse(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("parse %s: %v", data, err)
	}
	return v
}

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object (%v): %s", err, data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// canonical is data in the format install writes: two-space indentation
// and a final newline.
func canonical(t *testing.T, data []byte) []byte {
	t.Helper()
	var compact, b bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&b, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), '\n')
}

// indent formats compact JSON the way install writes files.
func indent(t *testing.T, compact string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(compact), "", "  "); err != nil {
		t.Fatalf("indent %s: %v", compact, err)
	}
	return b.String() + "\n"
}

// js is s as a JSON string literal, without HTML escaping (as install
// writes commands).
func js(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// hooksJSON is the "hooks" object install writes into an empty settings file.
func hooksJSON(hookbin string) string {
	return `{"SessionStart":[{"matcher":"compact|resume|fork","hooks":[{"type":"command","command":` + js(hookbin+" session-start") + `,"timeout":10}]}],` +
		`"Stop":[{"hooks":[{"type":"command","command":` + js(hookbin+" stop") + `,"timeout":5}]}],` +
		`"SessionEnd":[{"hooks":[{"type":"command","command":` + js(hookbin+" session-end") + `,"timeout":2}]}],` +
		`"PreCompact":[{"hooks":[{"type":"command","command":` + js(hookbin+" pre-compact") + `,"timeout":5}]}],` +
		`"PreToolUse":[{"matcher":"^Read$|^mcp__bottle__","hooks":[{"type":"command","command":` + js(hookbin+" pre-tool-use") + `,"timeout":5}]}]}`
}

func serverJSON(mcpserver string) string {
	return `{"type":"stdio","command":` + js(mcpserver) + `,"args":[]}`
}

// addBottle returns doc (a parsed settings or MCP config) with bottle's entries
// added the way install adds them: hooks when hookbin is set, the server at
// path when mcpserver is set.
func addBottle(t *testing.T, doc any, hookbin, mcpserver string, path ...string) any {
	t.Helper()
	m := doc.(map[string]any)
	if hookbin != "" {
		hooks, _ := m["hooks"].(map[string]any)
		if hooks == nil {
			hooks = map[string]any{}
			m["hooks"] = hooks
		}
		ours := parse(t, []byte(hooksJSON(hookbin))).(map[string]any)
		for event, groups := range ours {
			have, _ := hooks[event].([]any)
			hooks[event] = append(have, groups.([]any)...)
		}
	}
	if mcpserver != "" {
		cur := m
		for _, k := range append(path, "mcpServers") {
			next, _ := cur[k].(map[string]any)
			if next == nil {
				next = map[string]any{}
				cur[k] = next
			}
			cur = next
		}
		cur["bottle"] = parse(t, []byte(serverJSON(mcpserver)))
	}
	return doc
}

var backupName = regexp.MustCompile(`\.bak-\d{8}T\d{6}Z(-\d+)?$`)

// backups returns the backup files of path.
func backups(t *testing.T, path string) []string {
	t.Helper()
	matches, err := filepath.Glob(path + ".bak-*")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		if !backupName.MatchString(m) {
			t.Errorf("backup %s: name does not match %v", m, backupName)
		}
	}
	return matches
}

func TestInstallEmptyHome(t *testing.T) {
	tests := []struct {
		name, scope string
		configDir   bool // set CLAUDE_CONFIG_DIR
		wantWarning bool
	}{
		{name: "User", scope: "user"},
		{name: "UserConfigDir", scope: "user", configDir: true},
		{name: "Project", scope: "project", wantWarning: true},
		{name: "Local", scope: "local"},
		{name: "LocalConfigDir", scope: "local", configDir: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if tt.configDir {
				w.vars["CLAUDE_CONFIG_DIR"] = filepath.Join(w.root, "config")
			}
			stdout, stderr := w.mustRun(t, "install", "--scope", tt.scope)

			settings, mcp := w.paths(tt.scope)
			wantMCP := `{"mcpServers":{"bottle":` + serverJSON(w.mcpserver) + `}}`
			if tt.scope == "local" {
				wantMCP = `{"projects":{` + js(w.projectKey(t)) + `:{"mcpServers":{"bottle":` + serverJSON(w.mcpserver) + `}}}}`
			}
			want := map[string]string{
				settings: indent(t, `{"hooks":`+hooksJSON(w.hookbin)+`}`),
				mcp:      indent(t, wantMCP),
			}
			for path, content := range want {
				got := string(readFile(t, path))
				if diff := cmp.Diff(content, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", path, diff)
				}
				if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
				}
			}
			// Nothing else was written: no backup of a new file, no temp file.
			for rel, content := range w.snapshot(t) {
				if content == "<dir>" {
					continue
				}
				if _, ok := want[filepath.Join(w.root, rel)]; !ok {
					t.Errorf("unexpected file %s", rel)
				}
			}
			for _, path := range []string{settings, mcp} {
				if !strings.Contains(stdout, "created "+path) {
					t.Errorf("stdout does not say %s was created:\n%s", path, stdout)
				}
			}
			if !strings.Contains(stdout, "hookbin doctor") {
				t.Errorf("stdout does not name the next step:\n%s", stdout)
			}
			if got := strings.Contains(stderr, "usually committed"); got != tt.wantWarning {
				t.Errorf("warning on stderr = %v, want %v; stderr:\n%s", got, tt.wantWarning, stderr)
			}
		})
	}
}

// TestInstallKeepsForeign installs over settings holding claude-mem's hooks
// and foreign MCP servers, then reinstalls and uninstalls.
func TestInstallKeepsForeign(t *testing.T) {
	tests := []struct {
		name, scope         string
		settingsFix, mcpFix string // fixture names
	}{
		{name: "User", scope: "user", settingsFix: "settings-claude-mem.json", mcpFix: "claude.json"},
		{name: "Project", scope: "project", settingsFix: "settings-claude-mem.json", mcpFix: "mcp.json"},
		{name: "Local", scope: "local", settingsFix: "settings-local.json", mcpFix: "claude.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			settings, mcp := w.paths(tt.scope)
			var serverPath []string // where mcpServers sits in the MCP config
			if tt.scope == "local" {
				serverPath = []string{"projects", w.projectKey(t)}
			}
			orig := map[string][]byte{
				settings: fixture(t, tt.settingsFix, w.projectKey(t)),
				mcp:      fixture(t, tt.mcpFix, w.projectKey(t)),
			}
			for path, data := range orig {
				writeFile(t, path, data)
				// The round trip below compares bytes, so the fixtures must be
				// in the format install writes.
				if got := canonical(t, data); !bytes.Equal(got, data) {
					t.Fatalf("fixture %s is not in canonical format:\n%s", path, got)
				}
			}

			stdout, _ := w.mustRun(t, "install", "--scope", tt.scope)

			gotSettings, gotMCP := readFile(t, settings), readFile(t, mcp)
			wantSettings := addBottle(t, parse(t, orig[settings]), w.hookbin, "")
			if diff := cmp.Diff(wantSettings, parse(t, gotSettings)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", settings, diff)
			}
			wantMCP := addBottle(t, parse(t, orig[mcp]), "", w.mcpserver, serverPath...)
			if diff := cmp.Diff(wantMCP, parse(t, gotMCP)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", mcp, diff)
			}
			for path, got := range map[string][]byte{settings: gotSettings, mcp: gotMCP} {
				if diff := cmp.Diff(topKeys(t, orig[path]), topKeys(t, got)); diff != "" {
					t.Errorf("%s: top-level key order changed (-want +got):\n%s", path, diff)
				}
				b := backups(t, path)
				if len(b) != 1 {
					t.Fatalf("backups of %s = %q, want one", path, b)
				}
				if got := readFile(t, b[0]); !bytes.Equal(got, orig[path]) {
					t.Errorf("backup %s differs from the original:\n%s", b[0], got)
				}
				if !strings.Contains(stdout, b[0]) {
					t.Errorf("stdout does not name backup %s:\n%s", b[0], stdout)
				}
			}
			if bytes.Contains(gotSettings, []byte(`\u0026`)) || bytes.Contains(gotMCP, []byte(`\u003c`)) {
				t.Errorf("install HTML-escaped foreign strings")
			}

			t.Run("Idempotent", func(t *testing.T) {
				before := w.snapshot(t)
				stdout, _ := w.mustRun(t, "install", "--scope", tt.scope)
				if !strings.Contains(stdout, "already installed") {
					t.Errorf("second install does not say it is already installed:\n%s", stdout)
				}
				if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
					t.Errorf("second install changed files (-before +after):\n%s", diff)
				}
			})

			t.Run("UninstallRoundTrip", func(t *testing.T) {
				w.mustRun(t, "uninstall", "--scope", tt.scope)
				for path, want := range orig {
					if diff := cmp.Diff(string(want), string(readFile(t, path))); diff != "" {
						t.Errorf("%s after uninstall (-want +got):\n%s", path, diff)
					}
					if b := backups(t, path); len(b) != 2 {
						t.Errorf("backups of %s = %q, want two (install, uninstall)", path, b)
					}
				}
				before := w.snapshot(t)
				stdout, _ := w.mustRun(t, "uninstall", "--scope", tt.scope)
				if !strings.Contains(stdout, "not installed") {
					t.Errorf("second uninstall does not say it is not installed:\n%s", stdout)
				}
				if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
					t.Errorf("second uninstall changed files (-before +after):\n%s", diff)
				}
			})
		})
	}
}

func TestUninstallEmptyRoundTrip(t *testing.T) {
	for _, scope := range []string{"user", "project", "local"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.mustRun(t, "install", "--scope", scope)
			stdout, _ := w.mustRun(t, "uninstall", "--scope", scope)
			settings, mcp := w.paths(scope)
			for _, path := range []string{settings, mcp} {
				if got := string(readFile(t, path)); got != "{}\n" {
					t.Errorf("%s after uninstall = %q, want {}", path, got)
				}
			}
			for _, want := range []string{"- hooks.SessionStart [compact|resume|fork]: " + w.hookbin + " session-start", "- " + "hooks.Stop: " + w.hookbin + " stop", ".bottle: " + w.mcpserver} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}

func TestInstallDryRun(t *testing.T) {
	tests := []struct {
		name, scope string
		fixtures    bool // start from the foreign fixtures instead of nothing
		installed   bool // install first
		cmd         string
	}{
		{name: "InstallEmpty", scope: "user", cmd: "install"},
		{name: "InstallForeign", scope: "user", fixtures: true, cmd: "install"},
		{name: "InstallProject", scope: "project", fixtures: true, cmd: "install"},
		{name: "InstallLocal", scope: "local", cmd: "install"},
		{name: "Uninstall", scope: "user", fixtures: true, installed: true, cmd: "uninstall"},
		{name: "UninstallLocal", scope: "local", installed: true, cmd: "uninstall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			settings, mcp := w.paths(tt.scope)
			if tt.fixtures {
				writeFile(t, settings, fixture(t, "settings-claude-mem.json", ""))
				mcpFix := "claude.json"
				if tt.scope == "project" {
					mcpFix = "mcp.json"
				}
				writeFile(t, mcp, fixture(t, mcpFix, w.projectKey(t)))
			}
			if tt.installed {
				w.mustRun(t, "install", "--scope", tt.scope)
			}
			before := w.snapshot(t)
			stdout, _ := w.mustRun(t, tt.cmd, "--scope", tt.scope, "--dry-run")
			if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
				t.Errorf("dry run changed files (-before +after):\n%s", diff)
			}
			for _, want := range []string{"dry run", "would", settings, mcp} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}

func TestInstallMalformed(t *testing.T) {
	tests := []struct {
		name, scope, cmd string
		settings, mcp    string // file contents; "" = no file
		wantErrFile      string // "settings" or "mcp"
		wantErr          string
	}{
		{name: "SettingsSyntax", scope: "user", cmd: "install", settings: "{\n  \"hooks\": {,\n}", mcp: `{"mcpServers":{}}`, wantErrFile: "settings", wantErr: "line 2, column 13"},
		{name: "ClaudeJSONSyntax", scope: "user", cmd: "install", settings: `{"model":"opus"}`, mcp: `{"mcpServers":`, wantErrFile: "mcp", wantErr: "invalid JSON"},
		{name: "MCPJSONTrailing", scope: "project", cmd: "install", mcp: `{"mcpServers":{}} {}`, wantErrFile: "mcp", wantErr: "invalid JSON"},
		{name: "SettingsArray", scope: "user", cmd: "install", settings: `[]`, wantErrFile: "settings", wantErr: "not a JSON object"},
		{name: "HooksArray", scope: "user", cmd: "install", settings: `{"hooks":[]}`, wantErrFile: "settings", wantErr: "hooks is not a JSON object"},
		{name: "EventNotArray", scope: "project", cmd: "install", settings: `{"hooks":{"Stop":{}}}`, wantErrFile: "settings", wantErr: "hooks.Stop is not a JSON array"},
		{name: "ServersNotObject", scope: "user", cmd: "install", mcp: `{"mcpServers":[]}`, wantErrFile: "mcp", wantErr: "mcpServers is not a JSON object"},
		{name: "ProjectsNotObject", scope: "local", cmd: "install", mcp: `{"projects":7}`, wantErrFile: "mcp", wantErr: "projects is not a JSON object"},
		{name: "UninstallSyntax", scope: "user", cmd: "uninstall", settings: `{"hooks":{"Stop":[]}}`, mcp: `{"mcpServers":{"bottle":}}`, wantErrFile: "mcp", wantErr: "invalid JSON"},
		{name: "SettingsIsDir", scope: "project", cmd: "install", wantErrFile: "settings", wantErr: "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			settings, mcp := w.paths(tt.scope)
			if tt.settings != "" {
				writeFile(t, settings, []byte(tt.settings))
			}
			if tt.mcp != "" {
				writeFile(t, mcp, []byte(tt.mcp))
			}
			if tt.name == "SettingsIsDir" {
				if err := os.MkdirAll(settings, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := w.snapshot(t)
			_, _, err := w.run(t, tt.cmd, "--scope", tt.scope)
			if err == nil {
				t.Fatalf("%s succeeded, want an error", tt.cmd)
			}
			file := settings
			if tt.wantErrFile == "mcp" {
				file = mcp
			}
			if msg := err.Error(); !strings.Contains(msg, file) || !strings.Contains(msg, tt.wantErr) || strings.Contains(msg, "\n") {
				t.Errorf("error = %q, want one line naming %s and saying %q", msg, file, tt.wantErr)
			}
			if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
				t.Errorf("files changed after the error (-before +after):\n%s", diff)
			}
		})
	}
}

// cacheEntry is a folder of Go's build cache that holds a "go run" binary.
const cacheEntry = "ab/ab5f3e0c8d1b2a4f6e7d9c0b1a2f3e4d5c6b7a8f9e0d1c2b3a4f5e6d7c8b9a0f-d"

// TestInstallRefusesGoBuild: install refuses binaries where the go command
// builds and later deletes them, and only warns about other temporary paths.
func TestInstallRefusesGoBuild(t *testing.T) {
	tests := []struct {
		name    string
		binary  string // which binary lives in the build folder
		argFlag string
		dir     string // the build folder, under the world's root
		vars    map[string]string
		want    string
	}{
		{name: "GoRunHookbin", binary: "hookbin", argFlag: "--hookbin", dir: "tmp/go-build2718281828/b001/exe", want: `temporary "go run" build`},
		{name: "GoRunMCPServer", binary: "mcpserver", argFlag: "--mcpserver", dir: "tmp/go-build2718281828/b001/exe", want: `temporary "go run" build`},
		{name: "CacheLayout", binary: "hookbin", argFlag: "--hookbin", dir: "somewhere/" + cacheEntry, want: "build cache"},
		{name: "GOCACHE", binary: "hookbin", argFlag: "--hookbin", dir: "gocache/xy/other", vars: map[string]string{"GOCACHE": "$ROOT/gocache"}, want: "build cache"},
		{name: "DefaultCache", binary: "mcpserver", argFlag: "--mcpserver", dir: "xdg/go-build/cd/anything", vars: map[string]string{"XDG_CACHE_HOME": "$ROOT/xdg"}, want: "build cache"},
		{name: "GOTMPDIR", binary: "hookbin", argFlag: "--hookbin", dir: "gotmp/x", vars: map[string]string{"GOTMPDIR": "$ROOT/gotmp"}, want: "$GOTMPDIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.name == "DefaultCache" && runtime.GOOS != "linux" {
				t.Skip("XDG_CACHE_HOME moves the cache on Linux only")
			}
			w := newWorld(t)
			for k, v := range tt.vars {
				w.vars[k] = strings.ReplaceAll(v, "$ROOT", w.root)
			}
			p := fakeBinary(t, filepath.Join(w.root, filepath.FromSlash(tt.dir)), tt.binary)
			before := w.snapshot(t)
			_, _, err := w.run(t, "install", tt.argFlag, p)
			if err == nil {
				t.Fatal("install succeeded, want a refusal")
			}
			for _, want := range []string{tt.want, "go build -o bin/ ./hookbin ./mcpserver", "bin/hookbin install", p} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error = %q, want it to contain %q", err, want)
				}
			}
			if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
				t.Errorf("files changed after the refusal (-before +after):\n%s", diff)
			}
		})
	}
}

// TestInstallWarnsTempDir: binaries elsewhere in the temporary folder (where
// tests install from) are registered, with a warning.
func TestInstallWarnsTempDir(t *testing.T) {
	t.Parallel()
	w := newWorld(t) // under t.TempDir()
	_, stderr := w.mustRun(t, "install")
	for _, b := range []string{w.hookbin, w.mcpserver} {
		if !strings.Contains(stderr, "hookbin: warning: ") || !strings.Contains(stderr, b+" is in the temporary folder") {
			t.Errorf("stderr does not warn about %s:\n%s", b, stderr)
		}
	}
}

func TestGoBuildPlace(t *testing.T) {
	g := goDirs{cache: "/home/me/.cache/go-build", tmp: "/scratch/gotmp"}
	tests := []struct {
		path string
		want string // part of the place; "" = not a build place
	}{
		{"/tmp/go-build3141592653/b001/exe/hookbin", `"go run"`},
		{"/var/folders/x/T/go-build123/b001/exe/hookbin", `"go run"`},
		{`C:\Users\me\AppData\Local\Temp\go-build123\b001\exe\hookbin.exe`, `"go run"`},
		{"/home/me/.cache/go-build/" + cacheEntry + "/hookbin", "build cache"},
		{"/elsewhere/cache/" + cacheEntry + "/hookbin", "build cache"},
		{"/home/me/.cache/go-build/12/whatever/hookbin", "build cache"},
		{"/scratch/gotmp/hookbin", "$GOTMPDIR"},
		{"/home/me/bottle/bin/hookbin", ""},
		{"/home/me/go/bin/hookbin", ""},
		{"/home/me/exe/hookbin", ""},
		{"/home/me/go-builder/hookbin", ""},
		{"/home/me/go-build/bin/exe/hookbin", ""},
		{"/home/me/ab/cd0123456789abcdef-d/hookbin", ""},
		{"/home/me/ab/ab0123456789abcdef-d/sub/hookbin", ""},
		{"/home/me/.cache/go-builder/hookbin", ""},
		{"/scratch/gotmpx/hookbin", ""},
	}
	for _, tt := range tests {
		got := goBuildPlace(tt.path, g)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("goBuildPlace(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestInstallFindsMCPServer covers the default lookup of mcpserver: beside
// hookbin, else on PATH, else a clear error. It sets PATH, so it is not parallel.
func TestInstallFindsMCPServer(t *testing.T) {
	tests := []struct {
		name       string
		beside     bool // an mcpserver next to hookbin
		onPath     bool // an mcpserver in a PATH directory
		wantBeside bool
		wantErr    string
	}{
		{name: "Beside", beside: true, onPath: true, wantBeside: true},
		{name: "OnPath", onPath: true},
		{name: "Missing", wantErr: "mcpserver not found beside hookbin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			dir := filepath.Join(w.root, "only-hookbin")
			hookbin := fakeBinary(t, dir, "hookbin")
			if tt.beside {
				fakeBinary(t, dir, "mcpserver")
			}
			pathDir := filepath.Join(w.root, "path")
			if err := os.MkdirAll(pathDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.onPath {
				fakeBinary(t, pathDir, "mcpserver")
			}
			t.Setenv("PATH", pathDir)
			var out, errb bytes.Buffer
			err := runInstall(t.Context(), defaultDeps(), []string{"--hookbin", hookbin}, w.env(), &out, &errb)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("install error = %v, want %q", err, tt.wantErr)
				}
				if _, err := os.Stat(filepath.Join(w.home, ".claude.json")); err == nil {
					t.Errorf("install wrote ~/.claude.json despite the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// From PATH, symlinks are resolved; beside hookbin, the path is as given.
			want := filepath.Join(pathDir, "mcpserver"+exeSuffix())
			if r, err := filepath.EvalSymlinks(want); err == nil {
				want = r
			}
			if tt.wantBeside {
				want = filepath.Join(dir, "mcpserver"+exeSuffix())
			}
			doc := parse(t, readFile(t, filepath.Join(w.home, ".claude.json")))
			got := doc.(map[string]any)["mcpServers"].(map[string]any)["bottle"].(map[string]any)["command"]
			if got != want {
				t.Errorf("registered mcpserver = %v, want %v", got, want)
			}
		})
	}
}

// TestReinstallReplaces checks that entries from an earlier install, from any
// path and in any form, are replaced in place rather than duplicated.
func TestReinstallReplaces(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	settings, mcp := w.paths("user")
	writeFile(t, settings, fixture(t, "settings-claude-mem.json", ""))
	writeFile(t, mcp, fixture(t, "claude.json", ""))
	w.mustRun(t, "install")
	first := parse(t, readFile(t, settings))

	newBin := filepath.Join(w.root, "new bin")
	w.hookbin = fakeBinary(t, newBin, "hookbin")
	w.mcpserver = fakeBinary(t, newBin, "mcpserver")
	stdout, _ := w.mustRun(t, "install")
	if !strings.Contains(stdout, "~ hooks.Stop: was ") || !strings.Contains(stdout, "~ mcpServers.bottle: was ") {
		t.Errorf("stdout does not report the replacements:\n%s", stdout)
	}

	// The new entries sit where the old ones were.
	want := addBottle(t, parse(t, fixture(t, "settings-claude-mem.json", "")), claudesettings.HookCommand(w.hookbin), "")
	if diff := cmp.Diff(want, parse(t, readFile(t, settings))); diff != "" {
		t.Errorf("%s (-want +got):\n%s", settings, diff)
	}
	if diff := cmp.Diff(first, parse(t, readFile(t, settings))); diff == "" {
		t.Errorf("second install did not change the hook commands")
	}
	wantMCP := addBottle(t, parse(t, fixture(t, "claude.json", "")), "", w.mcpserver)
	if diff := cmp.Diff(wantMCP, parse(t, readFile(t, mcp))); diff != "" {
		t.Errorf("%s (-want +got):\n%s", mcp, diff)
	}

	// A path with a space is quoted, recognised and removed by uninstall.
	w.mustRun(t, "uninstall")
	if got, want := string(readFile(t, settings)), string(fixture(t, "settings-claude-mem.json", "")); got != want {
		t.Errorf("settings after uninstall (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestUninstallKeepsForeignBottleServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	_, mcp := w.paths("project")
	orig := []byte(`{"mcpServers":{"bottle":{"command":"${CLAUDE_PROJECT_DIR:-.}/scripts/mcp.sh","args":[]}}}`)
	writeFile(t, mcp, orig)
	stdout, _ := w.mustRun(t, "uninstall", "--scope", "project")
	if !strings.Contains(stdout, "! kept mcpServers.bottle") {
		t.Errorf("stdout does not say the foreign server was kept:\n%s", stdout)
	}
	if got := readFile(t, mcp); !bytes.Equal(got, orig) {
		t.Errorf("%s changed: %s", mcp, got)
	}
}

func TestInstallFlags(t *testing.T) {
	tests := []struct {
		name       string
		cmd        string
		args       []string
		wantStdout string
		wantErr    string
	}{
		{name: "InstallHelp", cmd: "install", args: []string{"--help"}, wantStdout: "usage: hookbin install"},
		{name: "InstallHelpDocumentsProject", cmd: "install", args: []string{"-h"}, wantStdout: "-project dir"},
		{name: "UninstallHelp", cmd: "uninstall", args: []string{"--help"}, wantStdout: "usage: hookbin uninstall"},
		{name: "BadScope", cmd: "install", args: []string{"--scope", "global"}, wantErr: `unknown scope "global"`},
		{name: "Positional", cmd: "uninstall", args: []string{"now"}, wantErr: "takes no arguments"},
		{name: "UnknownFlag", cmd: "install", args: []string{"--overwrite"}, wantErr: "not defined"},
		{name: "UninstallHasNoForce", cmd: "uninstall", args: []string{"--force"}, wantErr: "not defined"},
		{name: "MissingHookbin", cmd: "install", args: []string{"--hookbin", "/nonexistent/hookbin"}, wantErr: "hookbin binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			before := w.snapshot(t)
			stdout, _, err := w.run(t, tt.cmd, tt.args...)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("%s %q: %v", tt.cmd, tt.args, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("%s %q error = %v, want %q", tt.cmd, tt.args, err, tt.wantErr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, stdout)
			}
			if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
				t.Errorf("files changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestInstallBesidePlugin: install refuses while bottle's plugin is enabled
// in any scope (Claude Code would run every hook twice) unless --force, goes
// ahead when it is disabled, and refuses binaries in the plugin folder even
// with --force.
func TestInstallBesidePlugin(t *testing.T) {
	tests := []struct {
		name    string
		enabled map[string]bool // enabledPlugins["bottle@bottle"] by scope
		cached  bool            // hookbin lives in <config>/plugins/cache/…
		args    []string
		want    string // in the error; "" = installs
	}{
		{name: "NoPlugin"},
		{name: "EnabledUser", enabled: map[string]bool{"user": true}, want: "bottle is installed as the Claude Code plugin bottle@bottle (enabled in $USER)"},
		{name: "EnabledProject", enabled: map[string]bool{"project": true}, want: "claude plugin disable bottle@bottle, then hookbin install (--force installs anyway)"},
		{name: "EnabledLocalOnly", enabled: map[string]bool{"user": false, "local": true}, want: "enabled in $LOCAL"},
		{name: "Disabled", enabled: map[string]bool{"user": false}},
		{name: "Forced", enabled: map[string]bool{"user": true}, args: []string{"--force"}},
		{name: "BinaryInPluginCache", cached: true, args: []string{"--force"}, want: "is inside Claude Code's plugin folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			files := map[string]string{}
			for scope, on := range tt.enabled {
				settings, _ := w.paths(scope)
				files["$"+strings.ToUpper(scope)] = settings
				writeFile(t, settings, []byte(`{"enabledPlugins": {"bottle@bottle": `+strconv.FormatBool(on)+`}}`))
			}
			args := tt.args
			if tt.cached {
				dir := filepath.Join(w.home, ".claude", "plugins", "cache", "bottle", "bottle", "0.1.0", "libexec", "linux-amd64")
				args = append(args, "--hookbin", fakeBinary(t, dir, "hookbin"), "--mcpserver", fakeBinary(t, dir, "mcpserver"))
			}
			before := w.snapshot(t)
			_, _, err := w.run(t, "install", args...)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("install: %v", err)
				}
				return
			}
			want := tt.want
			for k, v := range files {
				want = strings.ReplaceAll(want, k, v)
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("install error = %v, want one containing %q", err, want)
			}
			if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
				t.Errorf("files changed after the refusal (-before +after):\n%s", diff)
			}
		})
	}
}
