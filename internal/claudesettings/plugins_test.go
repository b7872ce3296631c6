package claudesettings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlugins: the enabledPlugins entries of bottle's plugin in every scope,
// the install records, and the entry that decides per id (the most specific
// scope wins).
func TestPlugins(t *testing.T) {
	root := t.TempDir()
	l := Locations{ConfigDir: filepath.Join(root, "config"), Project: filepath.Join(root, "proj")}
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	user := filepath.Join(l.ConfigDir, "settings.json")
	local := filepath.Join(l.Project, ".claude", "settings.local.json")
	write(user, `{"enabledPlugins": {"bottle@bottle": true, "bottle@fork": true, "bottled@bottle": true, "bottle@": true, "bottle@x": "yes"},
	  "pluginConfigs": {"bottle@bottle": {"options": {"allow_bottle_reads": true, "steer_compact": false}}, "bottle@fork": "no"}}`)
	write(filepath.Join(l.Project, ".claude", "settings.json"), `{"enabledPlugins": null}`)
	write(local, `{"enabledPlugins": {"bottle@fork": false}, "pluginConfigs": {"bottle@bottle": {"options": {"allow_bottle_reads": false}}, "demo@pt": {"options": {"x": 1}}}}`)
	write(filepath.Join(l.ConfigDir, "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {
  "demo@pt": [{"scope": "user", "installPath": "/d"}],
  "bottle@bottle": [{"scope": "user", "installPath": "/c/0.1.0", "version": "0.1.0"},
                    {"scope": "local", "installPath": "/c/0.2.0", "version": "0.2.0", "projectPath": "/p"}]}}`)
	got := l.Plugins()
	want := Plugins{
		Enables: []PluginEnable{
			{Scope: User, File: user, ID: "bottle@bottle", Enabled: true},
			{Scope: User, File: user, ID: "bottle@fork", Enabled: true},
			{Scope: Local, File: local, ID: "bottle@fork", Enabled: false},
		},
		Installs: []PluginInstall{
			{ID: "bottle@bottle", Scope: "user", InstallPath: "/c/0.1.0", Version: "0.1.0"},
			{ID: "bottle@bottle", Scope: "local", InstallPath: "/c/0.2.0", Version: "0.2.0", ProjectPath: "/p"},
		},
		InstalledFile: filepath.Join(l.ConfigDir, "plugins", "installed_plugins.json"),
		Options: []PluginOptions{
			{Scope: User, File: user, ID: "bottle@bottle", Values: map[string]json.RawMessage{"allow_bottle_reads": json.RawMessage("true"), "steer_compact": json.RawMessage("false")}},
			{Scope: Local, File: local, ID: "bottle@bottle", Values: map[string]json.RawMessage{"allow_bottle_reads": json.RawMessage("false")}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Plugins (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]PluginEnable{want.Enables[0]}, got.Active()); diff != "" {
		t.Errorf("Active (-want +got):\n%s", diff)
	}
	// The most specific scope's value wins; an option no file sets is not set.
	if v, file, ok := got.Option("bottle@bottle", "allow_bottle_reads"); !ok || string(v) != "false" || file != local {
		t.Errorf("Option(allow_bottle_reads) = %s, %s, %v; want false from %s", v, file, ok, local)
	}
	if v, file, ok := got.Option("bottle@bottle", "steer_compact"); !ok || string(v) != "false" || file != user {
		t.Errorf("Option(steer_compact) = %s, %s, %v; want false from %s", v, file, ok, user)
	}
	if _, _, ok := got.Option("bottle@fork", "allow_bottle_reads"); ok {
		t.Error("Option of bottle@fork is set, want unset (its pluginConfigs entry is not an object)")
	}
	if e, ok := got.AnyEnabled(); !ok || e.ID != "bottle@bottle" {
		t.Errorf("AnyEnabled = %+v, %v", e, ok)
	}
	if got := (Locations{}).Plugins(); len(got.Enables)+len(got.Installs) != 0 || got.InstalledFile != "" {
		t.Errorf("Plugins of unknown locations = %+v", got)
	}
}

// FuzzPlugins: any installed_plugins.json and settings file read by
// Plugins yields only bottle's entries, and never panics.
func FuzzPlugins(f *testing.F) {
	f.Add([]byte(`{"version":2,"plugins":{"bottle@bottle":[{"scope":"user","installPath":"/c","version":"0.1.0"}]}}`), []byte(`{"enabledPlugins":{"bottle@bottle":true}}`),
		[]byte(`{"bottle":{"source":{"source":"directory","path":"/m"},"installLocation":"/m"}}`))
	f.Add([]byte(`{"plugins":{"bottle@x":{}}}`), []byte(`{"enabledPlugins":[]}`), []byte(`{"bottle":{"source":"directory"}}`))
	f.Add([]byte(`[]`), []byte(``), []byte(`[]`))
	f.Fuzz(func(t *testing.T, installed, settings, markets []byte) {
		config := t.TempDir()
		if err := os.MkdirAll(filepath.Join(config, "plugins"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(config, "plugins", "installed_plugins.json"), installed, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(config, "settings.json"), settings, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(config, "plugins", "known_marketplaces.json"), markets, 0o600); err != nil {
			t.Fatal(err)
		}
		p := Locations{ConfigDir: config}.Plugins()
		for _, in := range p.Installs {
			if root, _ := p.Loaded(in); root != in.InstallPath && p.Markets[strings.SplitN(in.ID, "@", 2)[1]].Source != "directory" {
				t.Errorf("install %+v loaded from %q, not its copy, with a marketplace that is no folder", in, root)
			}
		}
		for _, e := range p.Enables {
			if !IsPluginID(e.ID) {
				t.Errorf("enable of %q", e.ID)
			}
		}
		for _, in := range p.Installs {
			if !IsPluginID(in.ID) {
				t.Errorf("install of %q", in.ID)
			}
		}
		for _, e := range p.Active() {
			if !e.Enabled {
				t.Errorf("active entry %+v is not enabled", e)
			}
		}
	})
}
