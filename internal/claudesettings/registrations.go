package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Registration is one of bottle's entries in a Claude Code file: a hook
// handler that runs a hookbin subcommand, or the MCP server named
// [ServerName], whatever it runs.
type Registration struct {
	Scope Scope
	// File is the file that holds the entry, as its target names it.
	File string
	// ProjectKey is, for a server of the local scope, the key of
	// ~/.claude.json's projects that it is filed under; "" otherwise.
	ProjectKey string
	// Event is the hook's event; "" for the MCP server.
	Event string
	// Matcher is the matcher of the hook's group ("" when it has none).
	Matcher string
	// Sub is the hookbin subcommand the hook runs; "" for the MCP server.
	Sub string
	// Command is the hook's command line (with its args), or the server's
	// command.
	Command string
	// Prog is the program Command runs when it is an absolute path that can
	// be checked; "" otherwise (a command with variables, say).
	Prog string
}

// IsServer reports whether r is the MCP server rather than a hook.
func (r Registration) IsServer() bool { return r.Sub == "" }

// ProblemKind says what is wrong with a file [Registrations] read.
type ProblemKind int

const (
	// Unreadable is a file that exists but cannot be read.
	Unreadable ProblemKind = iota + 1
	// Malformed is a file that is not a JSON object, or whose part that
	// holds bottle's entries has the wrong shape.
	Malformed
	// HooksDisabled is a settings file that sets disableAllHooks, which
	// turns every hook off, bottle's included.
	HooksDisabled
)

// Problem is a file that [Registrations] could not read bottle's entries
// from (Unreadable, Malformed), or one whose hooks do not run.
type Problem struct {
	Scope Scope
	Path  string
	// Settings reports whether Path is a settings file rather than an MCP
	// config.
	Settings bool
	Kind     ProblemKind
	// Err says what is wrong for Unreadable and Malformed.
	Err error
}

// Registrations reads the targets' files and returns bottle's entries in
// them: in target order, a target's settings file before its MCP file, and
// in file order within a file. A file that is missing, or "" in its target,
// holds none. A file that cannot be read or parsed holds none either and is
// reported as a [Problem], in the same order; the other files are still read.
// A settings file that turns hooks off is reported too, and its entries are
// returned. Unlike an edit, which starts an empty file afresh, the reader
// counts an empty file as malformed: it is not JSON. A file two targets
// share (~/.claude.json) is read once and its problem reported once.
func Registrations(targets []Target) ([]Registration, []Problem) {
	var regs []Registration
	var problems []Problem
	type read struct {
		doc  *object
		kind ProblemKind
		err  error
	}
	cache := map[string]read{}
	load := func(t Target, path string, settings bool) *object {
		if path == "" {
			return nil
		}
		r, seen := cache[path]
		if !seen {
			r.doc, r.kind, r.err = readDoc(path)
			cache[path] = r
			if r.err != nil {
				problems = append(problems, Problem{Scope: t.Scope, Path: path, Settings: settings, Kind: r.kind, Err: r.err})
			}
		}
		return r.doc
	}
	for _, t := range targets {
		if doc := load(t, t.Settings, true); doc != nil {
			found, disabled, err := hookRegistrations(t, doc)
			switch {
			case err != nil:
				problems = append(problems, Problem{Scope: t.Scope, Path: t.Settings, Settings: true, Kind: Malformed, Err: err})
			case disabled:
				problems = append(problems, Problem{Scope: t.Scope, Path: t.Settings, Settings: true, Kind: HooksDisabled})
			}
			regs = append(regs, found...)
		}
		if doc := load(t, t.MCP, false); doc != nil {
			found, err := serverRegistrations(t, doc)
			if err != nil {
				problems = append(problems, Problem{Scope: t.Scope, Path: t.MCP, Kind: Malformed, Err: err})
			}
			regs = append(regs, found...)
		}
	}
	return regs, problems
}

// readDoc reads a file that must hold one JSON object; all results are
// zero when it does not exist, and kind says what an error is.
func readDoc(path string) (doc *object, kind ProblemKind, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, Unreadable, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, Malformed, errors.New("empty file, not JSON")
	}
	if err := checkJSON(data); err != nil {
		return nil, Malformed, err
	}
	if doc, err = decodeObject(data); err != nil {
		return nil, Malformed, errors.New("not a JSON object")
	}
	return doc, 0, nil
}

// hookRegistrations finds bottle's hooks in a settings document, and whether
// it sets disableAllHooks. It fails, finding none, when "hooks" is not an
// object or disableAllHooks not a boolean; an event that is not an array of
// groups, or a group that is not well formed, holds none.
func hookRegistrations(t Target, doc *object) (regs []Registration, disabled bool, err error) {
	if raw, ok := doc.get("disableAllHooks"); ok && !isNull(raw) {
		if json.Unmarshal(raw, &disabled) != nil {
			return nil, false, errors.New("disableAllHooks is not true or false")
		}
	}
	raw, ok := doc.get("hooks")
	if !ok || isNull(raw) {
		return nil, disabled, nil
	}
	hooks, err := decodeObject(raw)
	if err != nil {
		return nil, false, errors.New(`"hooks" is not a JSON object`)
	}
	for _, event := range hooks.keys {
		var groups []json.RawMessage
		if json.Unmarshal(hooks.vals[event], &groups) != nil {
			continue
		}
		for _, h := range findHandlers(groups) {
			regs = append(regs, Registration{
				Scope:   t.Scope,
				File:    t.Settings,
				Event:   event,
				Matcher: h.matcher,
				Sub:     h.sub,
				Command: handlerText(h.raw),
				Prog:    handlerProg(h.raw),
			})
		}
	}
	return regs, disabled, nil
}

// serverRegistrations finds the server named ServerName in an MCP config:
// in its top-level mcpServers, or for the local scope in the mcpServers of
// every projects entry filed under one of the target's project keys. Any
// entry of that name counts, whatever it runs.
func serverRegistrations(t Target, doc *object) ([]Registration, error) {
	reg := func(servers *object, key string) []Registration {
		raw, ok := servers.get(ServerName)
		if !ok {
			return nil
		}
		var f serverFields
		_ = json.Unmarshal(raw, &f)
		r := Registration{Scope: t.Scope, File: t.MCP, ProjectKey: key, Command: f.Command}
		if filepath.IsAbs(f.Command) {
			r.Prog = f.Command
		}
		return []Registration{r}
	}
	if t.ProjectKeys == nil {
		servers, err := optionalObject(doc, "mcpServers", "mcpServers")
		if servers == nil {
			return nil, err
		}
		return reg(servers, ""), nil
	}
	projects, err := optionalObject(doc, "projects", "projects")
	if projects == nil {
		return nil, err
	}
	var regs []Registration
	for _, k := range projects.keys {
		if !slices.ContainsFunc(t.ProjectKeys, func(want string) bool { return sameProjectKey(k, want) }) {
			continue
		}
		project, err := optionalObject(projects, k, fmt.Sprintf("projects[%q]", k))
		if project == nil {
			if err != nil {
				return regs, err
			}
			continue
		}
		servers, err := optionalObject(project, "mcpServers", serversPath(k))
		if servers == nil {
			if err != nil {
				return regs, err
			}
			continue
		}
		regs = append(regs, reg(servers, k)...)
	}
	return regs, nil
}

// optionalObject returns the object under key k of o: nil when k is missing
// or null, nil and an error naming label when it is not an object.
func optionalObject(o *object, k, label string) (*object, error) {
	raw, ok := o.get(k)
	if !ok || isNull(raw) {
		return nil, nil
	}
	c, err := decodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JSON object", label)
	}
	return c, nil
}
