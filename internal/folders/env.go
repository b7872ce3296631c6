package folders

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Env is the part of the process environment bottle resolves its paths from.
// Tests build one by hand; binaries call [OSEnv].
type Env struct {
	// Home is the user's home directory ("" when unknown).
	Home string
	// Getenv looks up an environment variable; nil means none are set.
	Getenv func(string) string

	// data is DataDir resolved once (OSEnv does it), so a hook does not read
	// claude-mem's settings file for every path it needs.
	data    string
	dataSet bool
}

// OSEnv returns the environment of the running process, with claude-mem's
// data folder resolved once.
func OSEnv() Env {
	home, _ := os.UserHomeDir()
	e := Env{Home: home, Getenv: os.Getenv}
	e.data, e.dataSet = e.DataDir(), true
	return e
}

// Get looks up an environment variable of e ("" when unset).
func (e Env) Get(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// ConfigDir is Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func (e Env) ConfigDir() string {
	if d := e.Get("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(e.Home, ".claude")
}

// ProjectsDir is where Claude Code keeps transcripts, one folder per project.
func (e Env) ProjectsDir() string { return filepath.Join(e.ConfigDir(), "projects") }

// DataDir is claude-mem's data folder (docs/format.md, "Where things live"): $CLAUDE_MEM_DATA_DIR, else the
// CLAUDE_MEM_DATA_DIR key of ~/.claude-mem/settings.json, else ~/.claude-mem.
func (e Env) DataDir() string {
	if e.dataSet {
		return e.data
	}
	if d := e.Get("CLAUDE_MEM_DATA_DIR"); d != "" {
		return d
	}
	if e.Home == "" {
		return ""
	}
	def := filepath.Join(e.Home, ".claude-mem")
	raw, err := readSettings(filepath.Join(def, "settings.json"))
	if err == nil {
		var s map[string]any
		if json.Unmarshal(raw, &s) == nil {
			if d, ok := s["CLAUDE_MEM_DATA_DIR"].(string); ok && strings.TrimSpace(d) != "" {
				return expandHome(strings.TrimSpace(d), e.Home)
			}
		}
	}
	return def
}

// DBPath is the claude-mem database path inside [Env.DataDir] ("" when
// neither a home nor $CLAUDE_MEM_DATA_DIR is known).
func (e Env) DBPath() string {
	d := e.DataDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "claude-mem.db")
}

// BottlesDir is where bottles are written: $BOTTLE_DIR, else <data>/bottles;
// "" when neither a home nor a data folder is known (never a relative
// default, which would write into whatever folder the process runs in).
func (e Env) BottlesDir() string {
	if d := e.Get("BOTTLE_DIR"); d != "" {
		return d
	}
	d := e.DataDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "bottles")
}

// SearchIndexPath is the search index, <data>/search/index.db, or
// $BOTTLE_SEARCH_INDEX; "" when that is "off" or no data folder is known
// (searches then scan the sources).
func (e Env) SearchIndexPath() string {
	switch p := e.Get("BOTTLE_SEARCH_INDEX"); p {
	case "off":
		return ""
	case "":
	default:
		return p
	}
	d := e.DataDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "search", "index.db")
}

// LogPath is the hook log file, <data>/logs/bottle.log ("" when no data
// folder is known).
func (e Env) LogPath() string {
	d := e.DataDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "logs", "bottle.log")
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// readSettings reads a small regular file; anything else (a FIFO, which
// would block, a directory, a huge file) is refused.
func readSettings(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil, fmt.Errorf("%s: not a settings file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}
