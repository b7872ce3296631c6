package claudesettings

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PluginName is the name of bottle's Claude Code plugin; Claude Code files an
// install of it as "bottle@<marketplace>".
const PluginName = "bottle"

// PluginEnable is one "bottle@…" entry of a settings file's enabledPlugins.
type PluginEnable struct {
	Scope Scope
	// File is the settings file that holds the entry.
	File string
	// ID is the plugin id, "bottle@<marketplace>".
	ID      string
	Enabled bool
}

// PluginInstall is one record of bottle's plugin in
// <config>/plugins/installed_plugins.json.
type PluginInstall struct {
	ID string
	// Scope is the scope the plugin was installed in (user, project or
	// local), as the file says it.
	Scope string
	// InstallPath is the plugin's copy in Claude Code's plugin cache.
	InstallPath string
	Version     string
	// ProjectPath is the project of a project or local install ("" for user).
	ProjectPath string
}

// Plugins is what Claude Code's files say about bottle's plugin.
type Plugins struct {
	// Enables are the enabledPlugins entries, in target order (user,
	// project, local) and file order within a file.
	Enables []PluginEnable
	// Installs are the install records, in file order.
	Installs []PluginInstall
	// InstalledFile is <config>/plugins/installed_plugins.json ("" when the
	// config folder is unknown).
	InstalledFile string
	// Options are the plugin's userConfig values as settings files hold them
	// (pluginConfigs["bottle@…"].options), in target order.
	Options []PluginOptions
}

// PluginOptions are the userConfig values one settings file holds for one
// plugin id: what "claude plugin install --config" and "claude plugin
// configure" write.
type PluginOptions struct {
	Scope  Scope
	File   string
	ID     string
	Values map[string]json.RawMessage
}

// Plugins reads the enabledPlugins of every target's settings file and
// <config>/plugins/installed_plugins.json. A file that is missing or does
// not parse holds nothing ([Registrations] reports the settings files that
// do not parse). The plugin's userConfig values (pluginConfigs) come too.
func (l Locations) Plugins() Plugins {
	var p Plugins
	for _, t := range l.Targets() {
		doc, _, err := readDoc(t.Settings)
		if doc == nil || err != nil {
			continue
		}
		p.Options = append(p.Options, readOptions(doc, t)...)
		enabled, err := optionalObject(doc, "enabledPlugins", "enabledPlugins")
		if enabled == nil || err != nil {
			continue
		}
		for _, id := range enabled.keys {
			if !IsPluginID(id) {
				continue
			}
			var on bool
			if json.Unmarshal(enabled.vals[id], &on) != nil {
				continue
			}
			p.Enables = append(p.Enables, PluginEnable{Scope: t.Scope, File: t.Settings, ID: id, Enabled: on})
		}
	}

	if l.ConfigDir == "" {
		return p
	}
	p.InstalledFile = filepath.Join(l.ConfigDir, "plugins", "installed_plugins.json")
	p.Installs, _ = readInstalled(p.InstalledFile)
	return p
}

// readOptions reads the pluginConfigs entries of bottle's plugin in doc,
// t's settings file; entries that are not objects are skipped.
func readOptions(doc *object, t Target) []PluginOptions {
	configs, err := optionalObject(doc, "pluginConfigs", "pluginConfigs")
	if configs == nil || err != nil {
		return nil
	}
	var out []PluginOptions
	for _, id := range configs.keys {
		if !IsPluginID(id) {
			continue
		}
		var c struct {
			Options map[string]json.RawMessage `json:"options"`
		}
		if json.Unmarshal(configs.vals[id], &c) != nil || len(c.Options) == 0 {
			continue
		}
		out = append(out, PluginOptions{Scope: t.Scope, File: t.Settings, ID: id, Values: c.Options})
	}
	return out
}

// Option returns the value of the userConfig option key of plugin id as the
// settings files set it (the most specific scope wins), with the file that
// sets it; ok is false when no file does.
func (p Plugins) Option(id, key string) (value json.RawMessage, file string, ok bool) {
	for _, o := range p.Options {
		if v, set := o.Values[key]; set && o.ID == id {
			value, file, ok = v, o.File, true
		}
	}
	return value, file, ok
}

// IsPluginID reports whether id names bottle's plugin in some marketplace.
func IsPluginID(id string) bool {
	name, market, ok := strings.Cut(id, "@")
	return ok && name == PluginName && market != ""
}

// readInstalled reads the records of bottle's plugin in an
// installed_plugins.json (version 2: {"plugins": {"p@m": [{...}]}}).
func readInstalled(path string) ([]PluginInstall, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	plugins, err := optionalObject(doc, "plugins", "plugins")
	if plugins == nil {
		return nil, err
	}
	var out []PluginInstall
	for _, id := range plugins.keys { // file order
		if !IsPluginID(id) {
			continue
		}
		var records []struct {
			Scope       string `json:"scope"`
			InstallPath string `json:"installPath"`
			Version     string `json:"version"`
			ProjectPath string `json:"projectPath"`
		}
		if json.Unmarshal(plugins.vals[id], &records) != nil {
			continue
		}
		for _, r := range records {
			out = append(out, PluginInstall{ID: id, Scope: r.Scope, InstallPath: r.InstallPath, Version: r.Version, ProjectPath: r.ProjectPath})
		}
	}
	return out, nil
}

// AnyEnabled returns the first entry that enables bottle's plugin in any
// scope, and whether there is one.
func (p Plugins) AnyEnabled() (PluginEnable, bool) {
	for _, e := range p.Enables {
		if e.Enabled {
			return e, true
		}
	}
	return PluginEnable{}, false
}

// Active returns the entries that leave bottle's plugin enabled, one per
// plugin id: Claude Code merges settings with the more specific scope
// winning (local over project over user), so an id's last entry in target
// order decides.
func (p Plugins) Active() []PluginEnable {
	last := map[string]int{}
	var ids []string
	for i, e := range p.Enables {
		if _, seen := last[e.ID]; !seen {
			ids = append(ids, e.ID)
		}
		last[e.ID] = i
	}
	var out []PluginEnable
	for _, id := range ids {
		if e := p.Enables[last[id]]; e.Enabled {
			out = append(out, e)
		}
	}
	return out
}
