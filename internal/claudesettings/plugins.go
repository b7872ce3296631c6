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
	// Unreadable are the settings files whose enabledPlugins could not be
	// read (not JSON, not an object, unreadable), each with why: while one
	// is, whether the plugin is enabled is unknown.
	Unreadable []FileProblem
	// Markets are the marketplaces of <config>/plugins/known_marketplaces.json
	// by name.
	Markets map[string]Marketplace
	// DisabledMcpjson are the names of disabledMcpjsonServers in every
	// settings file: project .mcp.json servers the user turned off.
	DisabledMcpjson []string
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

// FileProblem is a file and what is wrong with it.
type FileProblem struct {
	Path string
	Err  error
}

// Marketplace is a marketplace Claude Code knows: where its source is and
// where Claude Code reads it from.
type Marketplace struct {
	// Source is the kind of source: "directory", "git", "github", ...
	Source string
	// InstallLocation is the folder Claude Code reads the marketplace from:
	// the source folder itself for a directory marketplace, a clone under
	// <config>/plugins/marketplaces/ otherwise.
	InstallLocation string
}

// Loaded is where Claude Code loads the plugin install in from and its
// version. A plugin of a directory marketplace runs from the marketplace's
// folder (known_marketplaces.json's installLocation plus the plugin's
// source in its marketplace.json), whatever installed_plugins.json
// recorded when it was installed: adding another marketplace of the same
// name repoints it. Any other plugin runs from its cached copy.
func (p Plugins) Loaded(in PluginInstall) (root, version string) {
	_, market, _ := strings.Cut(in.ID, "@")
	m, ok := p.Markets[market]
	if !ok || m.Source != "directory" || m.InstallLocation == "" {
		return in.InstallPath, in.Version
	}
	data, err := os.ReadFile(filepath.Join(m.InstallLocation, ".claude-plugin", "marketplace.json"))
	if err != nil {
		return in.InstallPath, in.Version
	}
	var mk struct {
		Plugins []struct {
			Name    string          `json:"name"`
			Source  json.RawMessage `json:"source"`
			Version string          `json:"version"`
		} `json:"plugins"`
	}
	if json.Unmarshal(data, &mk) != nil {
		return in.InstallPath, in.Version
	}
	for _, e := range mk.Plugins {
		var src string
		if e.Name != PluginName || json.Unmarshal(e.Source, &src) != nil {
			continue
		}
		root = filepath.Join(m.InstallLocation, filepath.FromSlash(src))
		var manifest struct {
			Version string `json:"version"`
		}
		if data, err := os.ReadFile(filepath.Join(root, ".claude-plugin", "plugin.json")); err == nil &&
			json.Unmarshal(data, &manifest) == nil && manifest.Version != "" {
			return root, manifest.Version
		}
		return root, e.Version
	}
	return in.InstallPath, in.Version
}

// Plugins reads the enabledPlugins and disabledMcpjsonServers of every
// target's settings file, <config>/plugins/installed_plugins.json and
// known_marketplaces.json. A file that is missing or does not parse holds
// nothing; settings files that cannot be read are listed in Unreadable. The plugin's
// userConfig values (pluginConfigs) come too.
func (l Locations) Plugins() Plugins {
	var p Plugins
	for _, t := range l.Targets() {
		doc, _, err := readDoc(t.Settings)
		if err != nil {
			p.Unreadable = append(p.Unreadable, FileProblem{t.Settings, err})
			continue
		}
		if doc == nil {
			continue
		}
		if raw, ok := doc.get("disabledMcpjsonServers"); ok {
			var names []string
			if json.Unmarshal(raw, &names) == nil {
				p.DisabledMcpjson = append(p.DisabledMcpjson, names...)
			}
		}
		p.Options = append(p.Options, readOptions(doc, t)...)
		enabled, err := optionalObject(doc, "enabledPlugins", "enabledPlugins")
		if err != nil {
			p.Unreadable = append(p.Unreadable, FileProblem{t.Settings, err})
			continue
		}
		if enabled == nil {
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
	p.Markets = readMarkets(filepath.Join(l.ConfigDir, "plugins", "known_marketplaces.json"))
	return p
}

// readMarkets reads known_marketplaces.json: {"<name>": {"source":
// {"source": "directory", ...}, "installLocation": "..."}}. A file that is
// missing or does not parse holds none.
func readMarkets(path string) map[string]Marketplace {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var raw map[string]struct {
		Source struct {
			Source string `json:"source"`
		} `json:"source"`
		InstallLocation string `json:"installLocation"`
	}
	if json.Unmarshal(data, &raw) != nil {
		return nil
	}
	out := make(map[string]Marketplace, len(raw))
	for name, m := range raw {
		out[name] = Marketplace{Source: m.Source.Source, InstallLocation: m.InstallLocation}
	}
	return out
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
