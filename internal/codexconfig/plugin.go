package codexconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// PluginName is the name of bottle's Codex plugin; Codex names it
// "bottle@<marketplace>" once added from a marketplace.
const PluginName = "bottle"

// Plugin is bottle's Codex plugin as Codex has it: enabled in config.toml
// and unpacked in its plugin cache.
type Plugin struct {
	// ID is Codex's id of the plugin, "bottle@<marketplace>".
	ID string
	// Dir is the version of it Codex runs: the newest folder of
	// $CODEX_HOME/plugins/cache/<marketplace>/bottle/.
	Dir string
	// Version is Dir's name.
	Version string
	// HookKeys are the trust keys of bottle's hooks in the plugin.
	HookKeys []string
}

// FindPlugin returns bottle's plugin when config.toml (data) enables one
// and Codex's plugin cache under home holds it; ok is false otherwise.
func FindPlugin(home string, data []byte) (p Plugin, ok bool, err error) {
	doc, err := parse(data)
	if err != nil {
		return p, false, err
	}
	plugins, _ := lookup(doc, "plugins")
	m, _ := plugins.(map[string]any)
	var ids []string
	for id, v := range m {
		name, market, found := strings.Cut(id, "@")
		t, _ := v.(map[string]any)
		if found && name == PluginName && market != "" && t["enabled"] == true {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		_, market, _ := strings.Cut(id, "@")
		dir, version := newestVersion(filepath.Join(home, "plugins", "cache", market, PluginName))
		if dir == "" {
			continue
		}
		keys, err := pluginHookKeys(id, dir)
		if err != nil {
			return p, false, err
		}
		return Plugin{ID: id, Dir: dir, Version: version, HookKeys: keys}, true, nil
	}
	return p, false, nil
}

// newestVersion is the most recently written folder under dir that holds a
// Codex plugin manifest.
func newestVersion(dir string) (path, version string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", ""
	}
	var newest int64
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name(), ".codex-plugin", "plugin.json"))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if t := fi.ModTime().UnixNano(); path == "" || t > newest {
			path, version, newest = filepath.Join(dir, e.Name()), e.Name(), t
		}
	}
	return path, version
}

// pluginHookKeys are the trust keys of bottle's hooks in the plugin at dir:
// "<id>:<hooks file, relative>:<event_snake>:<group>:<handler>".
func pluginHookKeys(id, dir string) ([]string, error) {
	manifest, err := os.ReadFile(filepath.Join(dir, ".codex-plugin", "plugin.json"))
	if err != nil {
		return nil, err
	}
	var m struct {
		Hooks string `json:"hooks"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("plugin manifest %s: %w", dir, err)
	}
	rel := filepath.ToSlash(filepath.Clean(m.Hooks))
	if m.Hooks == "" || strings.HasPrefix(rel, "../") || filepath.IsAbs(m.Hooks) {
		return nil, errors.New("plugin manifest names no hooks file inside the plugin")
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	own, err := OwnHooks(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	keys := make([]string, len(own))
	for i, k := range own {
		keys[i] = k.Key(id + ":" + rel)
	}
	return keys, nil
}
