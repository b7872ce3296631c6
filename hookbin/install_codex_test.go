package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"bottle/internal/codexconfig"
)

// codexRun runs install or uninstall --host codex in w with CODEX_HOME set.
func codexRun(t *testing.T, w *world, cmd string, args ...string) (string, error) {
	t.Helper()
	full := []string{"--host", "codex"}
	fn := runUninstall
	if cmd == "install" {
		full = append(full, "--hookbin", w.hookbin, "--mcpserver", w.mcpserver)
		fn = installDefault
	}
	var out, errb bytes.Buffer
	err := fn(t.Context(), append(full, args...), w.env(), &out, &errb)
	return out.String(), err
}

func TestInstallCodex(t *testing.T) {
	w := newWorld(t)
	home := filepath.Join(w.root, "codexhome")
	w.vars["CODEX_HOME"] = home
	config := filepath.Join(home, "config.toml")
	orig := "# my settings\r\nmodel = \"o3\"\r\n\r\n[mcp_servers.other]\r\ncommand = \"x\"\r\n"
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	before := w.snapshot(t)
	out, err := codexRun(t, w, "install", "--dry-run")
	if err != nil || !strings.Contains(out, "dry run") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
		t.Errorf("--dry-run wrote files:\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(home, "hooks.json")); err == nil {
		t.Error("--dry-run created hooks.json")
	}

	out, err = codexRun(t, w, "install")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "/hooks") {
		t.Errorf("install without --trust does not say how to trust the hooks:\n%s", out)
	}
	cfg, _ := os.ReadFile(config)
	if !strings.HasPrefix(string(cfg), orig) {
		t.Errorf("config.toml lost its bytes:\n%q", cfg)
	}
	if cmd, err := codexconfig.ServerCommand(cfg); err != nil || cmd != w.mcpserver {
		t.Errorf("server command %q, %v; want %s", cmd, err, w.mcpserver)
	}
	hooks, _ := os.ReadFile(filepath.Join(home, "hooks.json"))
	if own, _ := codexconfig.OwnHooks(hooks); len(own) != 3 {
		t.Errorf("%d hooks registered, want 3:\n%s", len(own), hooks)
	}
	backups, _ := filepath.Glob(config + ".bak-*")
	if len(backups) != 1 {
		t.Errorf("backups %v, want one of config.toml", backups)
	}

	out, err = codexRun(t, w, "install")
	if err != nil || !strings.Contains(out, "already installed") {
		t.Errorf("second install: %v\n%s", err, out)
	}

	if _, err = codexRun(t, w, "uninstall"); err != nil {
		t.Fatal(err)
	}
	cfg, _ = os.ReadFile(config)
	if string(cfg) != orig {
		t.Errorf("uninstall did not restore config.toml byte for byte:\n%q\nwant\n%q", cfg, orig)
	}
}

func TestInstallCodexRefusesMalformed(t *testing.T) {
	for _, tt := range []struct{ file, content, want string }{
		{"config.toml", "model = \n", "invalid TOML at line 1"},
		{"hooks.json", "{\"hooks\":", "invalid JSON"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			w := newWorld(t)
			home := filepath.Join(w.root, "codexhome")
			w.vars["CODEX_HOME"] = home
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, tt.file), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			before := w.snapshot(t)
			_, err := codexRun(t, w, "install")
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line with %q", err, tt.want)
			}
			if diff := cmp.Diff(before, w.snapshot(t)); diff != "" {
				t.Errorf("a refused install wrote files:\n%s", diff)
			}
		})
	}
}

func TestHostArg(t *testing.T) {
	for _, tt := range []struct {
		args  []string
		codex bool
		rest  []string
		bad   bool
	}{
		{[]string{"--dry-run"}, false, []string{"--dry-run"}, false},
		{[]string{"--host", "codex", "--dry-run"}, true, []string{"--dry-run"}, false},
		{[]string{"--dry-run", "--host=codex"}, true, []string{"--dry-run"}, false},
		{[]string{"--host", "claude-code"}, false, nil, false},
		{[]string{"--host", "vim"}, false, nil, true},
		{[]string{"--host"}, false, nil, true},
	} {
		codex, rest, err := hostCheck(tt.args)
		if (err != nil) != tt.bad || codex != tt.codex || (!tt.bad && !cmp.Equal(rest, tt.rest)) {
			t.Errorf("hostCheck(%q) = %v, %q, %v", tt.args, codex, rest, err)
		}
	}
}

// TestDoctorCodex: doctor --host codex fails on a missing install and on
// untrusted hooks, and passes (with a warning: hashes unchecked without a
// codex binary) once trust entries exist.
func TestDoctorCodex(t *testing.T) {
	w := newWorld(t)
	home := filepath.Join(w.root, "codexhome")
	w.vars["CODEX_HOME"] = home
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	doctor := func() (string, error) {
		var out bytes.Buffer
		err := runDoctor(t.Context(), defaultDeps(), []string{"--host", "codex", "--codex", filepath.Join(w.root, "no-codex")}, w.env(), &out)
		return out.String(), err
	}
	out, err := doctor()
	if err == nil || !strings.Contains(out, "✗ hooks:") || !strings.Contains(out, "✗ MCP server:") {
		t.Errorf("before install: %v\n%s", err, out)
	}
	if _, err := codexRun(t, w, "install"); err != nil {
		t.Fatal(err)
	}
	out, err = doctor()
	if err == nil || !strings.Contains(out, "✓ hooks:") || !strings.Contains(out, "✗ trust:") || !strings.Contains(out, "✓ MCP server:") {
		t.Errorf("untrusted: %v\n%s", err, out)
	}
	hooksPath, config := filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml")
	keys, err := bottleHookKeys(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	var entries []codexconfig.Trust
	for _, k := range keys {
		entries = append(entries, codexconfig.Trust{Key: k, Hash: "sha256:00"})
	}
	data, _ := os.ReadFile(config)
	data, _, err = codexconfig.SetTrust(data, entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, data, 0o600); err != nil {
		t.Fatal(err)
	}
	rollout := filepath.Join(home, "sessions", "2026", "01", "02", "rollout-2026-01-02T00-00-00-abc.jsonl")
	if err := os.MkdirAll(filepath.Dir(rollout), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rollout, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = doctor()
	if err != nil || !strings.Contains(out, "! trust:") || !strings.Contains(out, "✓ rollouts: 1") {
		t.Errorf("trusted: %v\n%s", err, out)
	}
	// A server registered before --host codex words its pointers for Claude Code.
	data, _ = os.ReadFile(config)
	if err := os.WriteFile(config, bytes.Replace(data, []byte(`args = ["--host", "codex"]`+"\n"), nil, 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _ = doctor(); !strings.Contains(out, "! MCP server: [mcp_servers.bottle] runs ") || !strings.Contains(out, "without --host codex") {
		t.Errorf("a server without --host codex:\n%s", out)
	}
	if _, err := codexRun(t, w, "uninstall"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(config); strings.Contains(string(data), "hooks.state") {
		t.Errorf("uninstall left trust entries:\n%s", data)
	}
}

// TestDoctorCodexPlugin: with bottle's Codex plugin added, doctor takes its
// hooks and server for the install (none in hooks.json is no failure), fails
// a plugin without binaries, and warns when hookbin install's hooks and
// server run beside the plugin's (two pointers per compaction).
func TestDoctorCodexPlugin(t *testing.T) {
	w := newWorld(t)
	home := filepath.Join(w.root, "codexhome")
	w.vars["CODEX_HOME"] = home
	dir := filepath.Join(home, "plugins", "cache", "mk", "bottle", "1.0.0")
	for _, f := range []string{".codex-plugin/plugin.json", "hooks/codex-hooks.json", ".codex-mcp.json"} {
		data, err := os.ReadFile(filepath.Join("..", "plugin", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), data)
	}
	config := filepath.Join(home, "config.toml")
	writeFile(t, config, []byte("[plugins.\"bottle@mk\"]\nenabled = true\n"))
	doctor := func() string {
		var out bytes.Buffer
		_ = runDoctor(t.Context(), defaultDeps(), []string{"--host", "codex", "--codex", filepath.Join(w.root, "no-codex")}, w.env(), &out)
		return out.String()
	}
	out := doctor()
	for _, want := range []string{"✗ plugin: bottle@mk 1.0.0", "no hookbin or mcpserver", "✗ trust: 0 of bottle's 3 hooks", "✓ MCP server: from the plugin"} {
		if !strings.Contains(out, want) {
			t.Errorf("no binaries: doctor lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hooks.json") {
		t.Errorf("no binaries: doctor asks for hooks.json although the plugin brings the hooks:\n%s", out)
	}
	libexec := filepath.Join(dir, "libexec", runtime.GOOS+"-"+runtime.GOARCH)
	for _, b := range []string{"hookbin", "mcpserver"} {
		writeFile(t, filepath.Join(libexec, b+exeSuffix()), []byte("binary"))
	}
	if out := doctor(); !strings.Contains(out, "✓ plugin: bottle@mk 1.0.0") {
		t.Errorf("with binaries: doctor lacks the plugin line:\n%s", out)
	}
	if _, err := codexRun(t, w, "install"); err != nil {
		t.Fatal(err)
	}
	out = doctor()
	for _, want := range []string{"! hooks: bottle's plugin and 3 hooks of hookbin install", "! MCP server: both the plugin and [mcp_servers.bottle]", "trust: 0 of bottle's 6 hooks"} {
		if !strings.Contains(out, want) {
			t.Errorf("plugin and install: doctor lacks %q:\n%s", want, out)
		}
	}
}
