package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"bottle/internal/claudesettings"
)

// plugin installs bottle's plugin in the world as "claude plugin install"
// does: a record in installed_plugins.json pointing at a copy in the plugin
// cache (created unless gone), and enabledPlugins["bottle@bottle"] = enabled
// in the user settings (merged into what is there). It returns the copy.
func (w *doctorWorld) plugin(t *testing.T, enabled, gone bool) string {
	t.Helper()
	copyDir := filepath.Join(w.config, "plugins", "cache", "bottle", "bottle", "0.1.0")
	if !gone {
		pluginBinaries(t, copyDir)
	}
	rec, _ := json.Marshal(map[string]any{"version": 2, "plugins": map[string]any{
		"bottle@bottle": []any{map[string]any{"scope": "user", "installPath": copyDir, "version": "0.1.0"}}}})
	writeJSON(t, filepath.Join(w.config, "plugins", "installed_plugins.json"), string(rec))
	w.enable(t, filepath.Join(w.config, "settings.json"), enabled)
	return copyDir
}

// pluginBinaries puts this platform's hookbin and mcpserver into the
// plugin folder root, as a build or a release does.
func pluginBinaries(t *testing.T, root string) {
	t.Helper()
	for _, tool := range []string{"hookbin", "mcpserver"} {
		doctorBinary(t, filepath.Join(root, "libexec", runtime.GOOS+"-"+runtime.GOARCH), tool)
	}
}

// marketplace makes dir a directory marketplace named bottle offering the
// plugin of version from dir/plugin (with its binaries when built), and
// points known_marketplaces.json's "bottle" at it, as "claude plugin
// marketplace add dir" does (the last one added wins).
func (w *doctorWorld) marketplace(t *testing.T, dir, version string, built bool) string {
	t.Helper()
	root := filepath.Join(dir, "plugin")
	writeJSON(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"),
		`{"name":"bottle","owner":{"name":"x"},"plugins":[{"name":"bottle","source":"./plugin","version":"`+version+`"}]}`)
	writeJSON(t, filepath.Join(root, ".claude-plugin", "plugin.json"), `{"name":"bottle","version":"`+version+`"}`)
	if built {
		pluginBinaries(t, root)
	}
	known, _ := json.Marshal(map[string]any{"bottle": map[string]any{
		"source": map[string]any{"source": "directory", "path": dir}, "installLocation": dir}})
	writeJSON(t, filepath.Join(w.config, "plugins", "known_marketplaces.json"), string(known))
	return root
}

// enable sets enabledPlugins["bottle@bottle"] in a settings file, keeping
// the rest of it.
func (w *doctorWorld) enable(t *testing.T, settings string, on bool) {
	t.Helper()
	doc := map[string]any{}
	if data, err := os.ReadFile(settings); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
	}
	doc["enabledPlugins"] = map[string]any{"bottle@bottle": on, "other@bottle-fork": true}
	data, _ := json.Marshal(doc)
	writeJSON(t, settings, string(data))
}

// TestDoctorPluginInstall: doctor recognises the plugin, says which install
// is active, flags a settings install beside an enabled plugin and a stale
// plugin copy, and never tells a plugin user to run hookbin install.
func TestDoctorPluginInstall(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, w *doctorWorld)
		want     [][]string
		absent   []string
		wantFail bool
	}{
		{
			name:  "PluginOnly",
			setup: func(t *testing.T, w *doctorWorld) { w.plugin(t, true, false) },
			want: [][]string{
				{"✓ plugin bottle@bottle: installed (user scope) and enabled (user: ", "); Claude Code loads version 0.1.0 from ", "come from it"},
				{"✓ hookbin for a plugin user: /bottle:hookbin <command> in a session", "in a shell: sh HOME/.claude/plugins/cache/bottle/bottle/0.1.0/bin/bottle-run hookbin <command>"},
				{"✓ hook Stop → hookbin stop: from the plugin bottle@bottle (hooks/hooks.json)"},
				{"✓ hook SessionStart → hookbin session-start: from the plugin bottle@bottle"},
				{"✓ MCP server \"plugin:bottle:bottle\": from the plugin bottle@bottle (.mcp.json)"},
			},
			absent: []string{"hookbin install", "installed twice", "✗"},
		},
		{
			name:   "SettingsOnly",
			setup:  func(t *testing.T, w *doctorWorld) { w.install(t) },
			want:   [][]string{{"✓ hook Stop → hookbin stop (user: "}, {"✓ MCP server \"bottle\": registered (user: "}},
			absent: []string{"plugin", "installed twice"},
		},
		{
			name:  "Both",
			setup: func(t *testing.T, w *doctorWorld) { w.install(t); w.plugin(t, true, false) },
			want: [][]string{
				{"✓ plugin bottle@bottle: installed (user scope"},
				{"! bottle is installed twice: as the plugin bottle@bottle and in settings (user: ", "runs every hook twice and starts two MCP servers",
					"keep the plugin: hookbin uninstall --scope user (or claude plugin disable bottle@bottle"},
			},
		},
		{
			name:  "PluginDisabled",
			setup: func(t *testing.T, w *doctorWorld) { w.plugin(t, false, false) },
			want: [][]string{
				{"! plugin bottle@bottle: installed (user scope, ", ") but disabled — enable it: claude plugin enable bottle@bottle"},
				{"✗ hook Stop → hookbin stop: not registered: the plugin bottle@bottle is installed but disabled — enable it: claude plugin enable bottle@bottle"},
				{"! MCP server \"bottle\": not registered: the plugin bottle@bottle is installed but disabled"},
			},
			absent:   []string{"hookbin install"},
			wantFail: true,
		},
		{
			name: "PluginDisabledInLocalScope",
			setup: func(t *testing.T, w *doctorWorld) {
				w.plugin(t, true, false)
				w.enable(t, filepath.Join(w.project, ".claude", "settings.local.json"), false)
			},
			want:     [][]string{{"! plugin bottle@bottle: installed (user scope, ", ") but disabled"}},
			absent:   []string{"hookbin install", "come from it"},
			wantFail: true,
		},
		{
			name:  "PluginDisabledSettingsActive",
			setup: func(t *testing.T, w *doctorWorld) { w.install(t); w.plugin(t, false, false) },
			want: [][]string{
				{"✓ plugin bottle@bottle: installed (user scope, ", ") but disabled; the settings install (user: ", ") is the active one"},
				{"✓ hook Stop → hookbin stop (user: "},
			},
			absent: []string{"installed twice"},
		},
		{
			name:     "StaleCachePath",
			setup:    func(t *testing.T, w *doctorWorld) { w.plugin(t, true, true) },
			want:     [][]string{{"✗ plugin bottle@bottle: installed (", "; that copy is gone — reinstall it: claude plugin uninstall bottle@bottle, then claude plugin install bottle@bottle"}},
			absent:   []string{"hookbin install"},
			wantFail: true,
		},
		{
			name: "OrphanedCachePath",
			setup: func(t *testing.T, w *doctorWorld) {
				copyDir := w.plugin(t, true, false)
				writeJSON(t, filepath.Join(copyDir, ".orphaned_at"), "1767607260000")
			},
			want:     [][]string{{"✗ plugin bottle@bottle: installed (", "that copy is orphaned (.orphaned_at)"}},
			wantFail: true,
		},
		{
			name: "SettingsRunPluginCopy",
			setup: func(t *testing.T, w *doctorWorld) {
				// Written by hand: install refuses such binaries.
				w.install(t)
				copyDir := w.plugin(t, false, false)
				cached := filepath.Join(copyDir, "libexec", runtime.GOOS+"-"+runtime.GOARCH, "hookbin"+exeSuffix())
				settings := filepath.Join(w.config, "settings.json")
				data := string(readFile(t, settings))
				writeJSON(t, settings, strings.ReplaceAll(data, claudesettings.HookCommand(w.hookbin), claudesettings.HookCommand(cached)))
			},
			want: [][]string{{"! settings (user: ", "run ", filepath.Join("cache", "bottle", "bottle", "0.1.0"),
				"inside Claude Code's plugin folder, whose versioned copies a plugin update or uninstall orphans"}},
		},
		{
			name: "SettingsNotJSON",
			setup: func(t *testing.T, w *doctorWorld) {
				w.plugin(t, true, false)
				writeJSON(t, filepath.Join(w.config, "settings.json"), `{"enabledPlugins": {"bottle@bottle": true,}`)
			},
			want: [][]string{
				{"✗ plugin bottle@bottle: whether it is enabled cannot be read until " + "SETTINGS" + " is fixed (", "Claude Code cannot read that file either — fix SETTINGS (or move it aside), then run hookbin doctor again"},
				{"! MCP server \"bottle\": not registered in an MCP config; the plugin's may serve it, but whether the plugin is enabled cannot be read until SETTINGS is fixed"},
			},
			absent:   []string{"claude plugin enable", "hookbin install", "come from it"},
			wantFail: true,
		},
		{
			name: "TwoMarketplacesNamedBottle",
			setup: func(t *testing.T, w *doctorWorld) {
				// Installed from a first marketplace (recorded at 0.1.0 in
				// the cache), then a second one named bottle was added:
				// Claude Code now loads the plugin from it.
				w.plugin(t, true, false)
				w.marketplace(t, filepath.Join(w.home, "release-0.2.0"), "0.2.0", true)
			},
			want: [][]string{{"✓ plugin bottle@bottle: installed (user scope) and enabled (user: ", "); Claude Code loads version 0.2.0 from HOME/release-0.2.0/plugin (the folder marketplace bottle points at; installed_plugins.json still records version 0.1.0 at ", "come from it"}},
		},
		{
			name: "UnbuiltClone",
			setup: func(t *testing.T, w *doctorWorld) {
				w.plugin(t, true, false)
				clone := filepath.Join(w.home, "src", "bottle")
				writeJSON(t, filepath.Join(clone, "go.mod"), "module bottle\n\ngo 1.26\n")
				w.marketplace(t, clone, "0.1.0", false)
			},
			want: [][]string{{"✗ plugin bottle@bottle: ", "loads version 0.1.0 from HOME/src/bottle/plugin", "; but HOME/src/bottle/plugin/libexec/" + runtime.GOOS + "-" + runtime.GOARCH +
				" has no hookbin or mcpserver, so its hooks and MCP server cannot start — build them in the clone: cd HOME/src/bottle && go build -trimpath -o plugin/libexec/" +
				runtime.GOOS + "-" + runtime.GOARCH + "/ ./hookbin ./mcpserver ./pretooluse"}},
			wantFail: true,
		},
		{
			name: "CloneServerBesidePlugin",
			setup: func(t *testing.T, w *doctorWorld) {
				w.plugin(t, true, false)
				w.clone(t)
			},
			want: [][]string{{"! this clone's .mcp.json offers a second MCP server \"bottle\" beside the plugin's plugin:bottle:bottle",
				"add \"disabledMcpjsonServers\": [\"bottle\"] to PROJECT/.claude/settings.local.json"}},
		},
		{
			name: "CloneServerTurnedOff",
			setup: func(t *testing.T, w *doctorWorld) {
				w.plugin(t, true, false)
				w.clone(t)
				writeJSON(t, filepath.Join(w.project, ".claude", "settings.local.json"), `{"disabledMcpjsonServers": ["bottle"]}`)
			},
			absent: []string{"second MCP server"},
		},
		{
			name: "BottlesInPluginData",
			setup: func(t *testing.T, w *doctorWorld) {
				w.plugin(t, true, false)
				t.Setenv("BOTTLE_DIR", filepath.Join(w.config, "plugins", "data", "bottle-bottle", "bottles"))
			},
			want: [][]string{{"! bottles dir: ", filepath.Join("plugins", "data", "bottle-bottle", "bottles"), "inside Claude Code's plugin folder", "set BOTTLE_DIR"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newDoctorWorld(t)
			tt.setup(t, w)
			lines, failed := w.doctor(t)
			if failed != tt.wantFail {
				t.Errorf("doctor failed = %v, want %v:\n%s", failed, tt.wantFail, strings.Join(lines, "\n"))
			}
			for _, subs := range tt.want {
				r := strings.NewReplacer("SETTINGS", filepath.Join(w.config, "settings.json"), "HOME", w.home, "PROJECT", w.project)
				for i := range subs {
					subs[i] = r.Replace(subs[i])
				}
				wantLine(t, lines, subs...)
			}
			for _, s := range tt.absent {
				if l := line(lines, s); l != "" {
					t.Errorf("line %q has %q", l, s)
				}
			}
		})
	}
}

// clone makes the world's project a clone of bottle with its committed
// .mcp.json (the development server).
func (w *doctorWorld) clone(t *testing.T) {
	t.Helper()
	writeJSON(t, filepath.Join(w.project, ".mcp.json"), string(readFile(t, filepath.Join("..", ".mcp.json"))))
	writeJSON(t, filepath.Join(w.project, "go.mod"), "module bottle\n\ngo 1.26\n")
	writeJSON(t, filepath.Join(w.project, "scripts", "mcpserver-wrapper.sh"), "#!/bin/sh\n")
}

// TestDoctorAllowReads: doctor says whether the model reads bottle's record
// without a permission prompt, and which setting turned that off; and it
// flags a PreToolUse registration that is missing or misses Read.
func TestDoctorAllowReads(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, w *doctorWorld)
		want   [][]string
		absent []string
	}{
		{
			name:  "Settings",
			setup: func(t *testing.T, w *doctorWorld) { w.install(t) },
			want: [][]string{
				{"✓ hook PreToolUse → hookbin pre-tool-use (user: "},
				{"✓ reads of bottle's record: allowed without a prompt (the PreToolUse hook: a Read of a file in ", "off with BOTTLE_ALLOW_READS=0"},
			},
			absent: []string{"allow_bottle_reads"},
		},
		{
			name:  "SettingsEnvOff",
			setup: func(t *testing.T, w *doctorWorld) { w.install(t); t.Setenv(allowReadsEnv, "0") },
			want: [][]string{{"! reads of bottle's record: not pre-approved: BOTTLE_ALLOW_READS=0; Claude Code asks before each Read of a bottle",
				"unset it"}},
		},
		{
			name: "SettingsWithoutPreToolUse",
			setup: func(t *testing.T, w *doctorWorld) {
				w.install(t)
				settings := filepath.Join(w.config, "settings.json")
				var doc map[string]map[string]any
				if err := json.Unmarshal(readFile(t, settings), &doc); err != nil {
					t.Fatal(err)
				}
				delete(doc["hooks"], "PreToolUse")
				data, _ := json.Marshal(doc)
				writeJSON(t, settings, string(data))
			},
			want: [][]string{{"! hook PreToolUse → hookbin pre-tool-use: not registered (Claude Code asks before every Read of a bottle", "run: hookbin install"}},
		},
		{
			name: "SettingsMatcherMissesRead",
			setup: func(t *testing.T, w *doctorWorld) {
				w.install(t)
				settings := filepath.Join(w.config, "settings.json")
				data := strings.Replace(string(readFile(t, settings)), `"^Read$|^mcp__bottle__"`, `"^mcp__bottle__"`, 1)
				writeJSON(t, settings, data)
			},
			want: [][]string{{"! hook PreToolUse → hookbin pre-tool-use (user: ", ") does not match Read — run hookbin install to set its matcher to ^Read$|^mcp__bottle__"}},
		},
		{
			name:  "Plugin",
			setup: func(t *testing.T, w *doctorWorld) { w.plugin(t, true, false) },
			want: [][]string{
				{"✓ hook PreToolUse → hookbin pre-tool-use: from the plugin bottle@bottle"},
				{"✓ reads of bottle's record: allowed without a prompt", "off with BOTTLE_ALLOW_READS=0 or the plugin option allow_bottle_reads=false"},
			},
		},
		{
			name: "PluginOptionOff",
			setup: func(t *testing.T, w *doctorWorld) {
				w.plugin(t, true, false)
				settings := filepath.Join(w.config, "settings.json")
				var doc map[string]any
				if err := json.Unmarshal(readFile(t, settings), &doc); err != nil {
					t.Fatal(err)
				}
				doc["pluginConfigs"] = map[string]any{"bottle@bottle": map[string]any{"options": map[string]any{"allow_bottle_reads": false}}}
				data, _ := json.Marshal(doc)
				writeJSON(t, settings, string(data))
			},
			want: [][]string{{"! reads of bottle's record: not pre-approved: the plugin option allow_bottle_reads=false (", filepath.Join(".claude", "settings.json") + ")",
				"claude plugin configure bottle@bottle"}},
		},
		{
			name:  "PluginEnvOff",
			setup: func(t *testing.T, w *doctorWorld) { w.plugin(t, true, false); t.Setenv(allowReadsOptionEnv, "false") },
			want:  [][]string{{"! reads of bottle's record: not pre-approved: CLAUDE_PLUGIN_OPTION_ALLOW_BOTTLE_READS=false"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(allowReadsEnv, "")
			t.Setenv(allowReadsOptionEnv, "")
			w := newDoctorWorld(t)
			tt.setup(t, w)
			lines, _ := w.doctor(t)
			for _, subs := range tt.want {
				wantLine(t, lines, subs...)
			}
			for _, s := range tt.absent {
				if l := line(lines, s); l != "" {
					t.Errorf("line %q has %q", l, s)
				}
			}
		})
	}
}
