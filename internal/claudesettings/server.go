package claudesettings

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// serverFields are the fields of an MCP server entry bottle looks at.
type serverFields struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// serversPath is the printable path of the mcpServers object.
func serversPath(projectKey string) string {
	if projectKey == "" {
		return "mcpServers"
	}
	return "projects[" + strconv.Quote(projectKey) + "].mcpServers"
}

// pickProjectKey returns the key of the project's entry in projects: the
// first of keys that exists (on Windows ignoring case and separators, as the
// same folder can be spelled several ways there), else keys[0].
func pickProjectKey(projects *object, keys []string) string {
	for _, k := range keys {
		if _, ok := projects.get(k); ok {
			return k
		}
	}
	if runtime.GOOS == "windows" {
		for _, k := range keys {
			for _, have := range projects.keys {
				if strings.EqualFold(filepath.ToSlash(have), k) {
					return have
				}
			}
		}
	}
	return keys[0]
}

// installServer sets the "bottle" entry in the MCP config: top-level
// mcpServers, or projects[<project>].mcpServers when projectKeys is not nil.
// Fields of an existing stdio entry other than type, command and args (env,
// timeout, …) are kept.
func installServer(doc *object, projectKeys []string, mcpserver string) ([]string, error) {
	var projects, project *object
	var key string
	parent := doc
	if projectKeys != nil {
		var err error
		if projects, err = childObject(doc, "projects", "projects"); err != nil {
			return nil, err
		}
		key = pickProjectKey(projects, projectKeys)
		if project, err = childObject(projects, key, "projects["+strconv.Quote(key)+"]"); err != nil {
			return nil, err
		}
		parent = project
	}
	label := serversPath(key)
	servers, err := childObject(parent, "mcpServers", label)
	if err != nil {
		return nil, err
	}
	entry := newObject()
	old, had := servers.get(ServerName)
	var oldFields serverFields
	if had && !isNull(old) {
		if o, err := decodeObject(old); err == nil && json.Unmarshal(old, &oldFields) == nil &&
			(oldFields.Type == "" || oldFields.Type == "stdio") {
			entry = o
		}
	}
	entry.set("type", jsonValue("stdio"))
	entry.set("command", jsonValue(mcpserver))
	entry.set("args", json.RawMessage("[]"))
	if had && sameJSON(entry.raw(), old) {
		return nil, nil
	}
	note := fmt.Sprintf("+ %s.%s: %s", label, ServerName, mcpserver)
	if had {
		was := oldFields.Command
		if was == "" {
			was = string(compactJSON(old))
		}
		note = fmt.Sprintf("~ %s.%s: was %s; now %s", label, ServerName, was, mcpserver)
	}
	servers.set(ServerName, entry.raw())
	parent.set("mcpServers", servers.raw())
	if projects != nil {
		projects.set(key, project.raw())
		doc.set("projects", projects.raw())
	}
	return []string{note}, nil
}

// removeServer deletes the "bottle" MCP server when its command is an
// mcpserver binary. An mcpServers object emptied by that goes too when it is
// the last key of its parent (Claude Code's own project entries keep an empty
// one); so do a project entry and a projects object emptied by that.
func removeServer(doc *object, projectKeys []string) ([]string, error) {
	var projects, project *object
	var key string
	parent := doc
	if projectKeys != nil {
		raw, ok := doc.get("projects")
		if !ok || isNull(raw) {
			return nil, nil
		}
		var err error
		if projects, err = decodeObject(raw); err != nil {
			return nil, errors.New(`"projects" is not a JSON object`)
		}
		key = pickProjectKey(projects, projectKeys)
		raw, ok = projects.get(key)
		if !ok || isNull(raw) {
			return nil, nil
		}
		if project, err = decodeObject(raw); err != nil {
			return nil, fmt.Errorf("projects[%q] is not a JSON object", key)
		}
		parent = project
	}
	label := serversPath(key)
	raw, ok := parent.get("mcpServers")
	if !ok || isNull(raw) {
		return nil, nil
	}
	servers, err := decodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON object", label)
	}
	entry, ok := servers.get(ServerName)
	if !ok {
		return nil, nil
	}
	var f serverFields
	_ = json.Unmarshal(entry, &f)
	if !isBottleBinary(strings.TrimSpace(f.Command), "mcpserver") {
		return []string{fmt.Sprintf("! kept %s.%s: its command %q is not an mcpserver binary", label, ServerName, f.Command)}, nil
	}
	notes := []string{fmt.Sprintf("- %s.%s: %s", label, ServerName, f.Command)}
	servers.del(ServerName)
	if len(servers.keys) == 0 && len(parent.keys) == 1 {
		parent.del("mcpServers")
	} else {
		parent.set("mcpServers", servers.raw())
	}
	if projects == nil {
		return notes, nil
	}
	if len(project.keys) == 0 {
		projects.del(key)
	} else {
		projects.set(key, project.raw())
	}
	if len(projects.keys) == 0 {
		doc.del("projects")
	} else {
		doc.set("projects", projects.raw())
	}
	return notes, nil
}

// sameProjectKey compares a projects key of ~/.claude.json with one of ours;
// Windows spells one folder several ways.
func sameProjectKey(have, want string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(filepath.ToSlash(have), want)
	}
	return have == want
}
