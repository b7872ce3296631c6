package claudesettings

import (
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// HookCommand is the command line of a hook handler minus its subcommand:
// the absolute hookbin path, quoted for sh (Claude Code runs a command without
// "args" under sh -c, or Git Bash on Windows, where it gets forward slashes).
func HookCommand(hookbin string) string {
	if runtime.GOOS == "windows" {
		hookbin = filepath.ToSlash(hookbin)
	}
	return shellQuote(hookbin)
}

func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-+=.,:/@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// handlerFields are the fields of a hook handler that identify bottle's own.
type handlerFields struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// ownSub reports whether a hook handler is one of bottle's: a command handler
// running "<any path>/hookbin[.exe] <one of bottle's hook subcommands>", in shell
// form or exec form ("args"), or "<any path>/pretooluse[.exe]" alone (the
// PreToolUse hook's own binary), and returns the subcommand.
func ownSub(raw json.RawMessage) (string, bool) {
	var h handlerFields
	if json.Unmarshal(raw, &h) != nil || (h.Type != "" && h.Type != "command") {
		return "", false
	}
	if len(h.Args) == 0 && isBottleBinary(unquote(strings.TrimSpace(h.Command)), PreToolUseBinary) {
		return preToolUseSub, true
	}
	prog, sub := strings.TrimSpace(h.Command), ""
	switch len(h.Args) {
	case 0:
		i := strings.LastIndexAny(prog, " \t")
		if i < 0 {
			return "", false
		}
		prog, sub = strings.TrimSpace(prog[:i]), prog[i+1:]
		prog = unquote(prog)
	case 1:
		sub = h.Args[0]
	default:
		return "", false
	}
	if !isBottleBinary(prog, "hookbin") {
		return "", false
	}
	for _, s := range bottleHooks {
		if s.Sub == sub {
			return sub, true
		}
	}
	return "", false
}

// unquote strips one pair of sh quotes, undoing shellQuote.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'' || s[0] == '"' && s[len(s)-1] == '"') {
		inner := s[1 : len(s)-1]
		if s[0] == '\'' {
			inner = strings.ReplaceAll(inner, `'\''`, "'")
		}
		return inner
	}
	return s
}

// isBinary reports whether path names the binary name (with or without .exe,
// in any directory and with either separator).
func isBinary(path, name string) bool {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".exe") {
		base = base[:len(base)-4]
	}
	return base == name
}

// isBottleBinary reports whether path runs bottle's binary name: named so
// (see isBinary), or an absolute path to a Go binary built from bottle's
// package of that name under any file name (install --hookbin and
// --mcpserver take a renamed copy). The build information is read from the
// file, never run.
func isBottleBinary(path, name string) bool {
	if isBinary(path, name) {
		return true
	}
	p := filepath.FromSlash(unquote(strings.TrimSpace(path)))
	if !filepath.IsAbs(p) {
		return false
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	bi, err := buildinfo.ReadFile(p)
	return err == nil && bi.Path == modulePath+"/"+name
}

// PreToolUseBinary is the PreToolUse hook's own binary: the same decision as
// "hookbin pre-tool-use" in a program that starts in a fraction of
// hookbin's time, which matters on a hook that runs before every Read.
const PreToolUseBinary = "pretooluse"

// preToolUseSub is hookbin's subcommand of the PreToolUse hook.
const preToolUseSub = "pre-tool-use"

// PreToolUseBeside returns bottle's pretooluse binary beside hookbin (as
// "go build -o DIR/ ./hookbin ./mcpserver ./pretooluse" and a release put
// it), "" when there is none: install then registers it for PreToolUse.
func PreToolUseBeside(hookbin string) string {
	name := PreToolUseBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(hookbin), name)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 && runtime.GOOS != "windows" {
		return ""
	}
	return p
}

// modulePath is bottle's Go module: its binaries' build information names
// their main package under it.
const modulePath = "bottle"

// handlerText is how a handler is shown in notes and registrations.
func handlerText(raw json.RawMessage) string {
	var h handlerFields
	_ = json.Unmarshal(raw, &h)
	return strings.Join(append([]string{h.Command}, h.Args...), " ")
}

// handlerProg is the program a hook handler runs, when it is a plain path
// that can be checked ("" for commands with variables).
func handlerProg(raw json.RawMessage) string {
	var h handlerFields
	if json.Unmarshal(raw, &h) != nil {
		return ""
	}
	prog := strings.TrimSpace(h.Command)
	if len(h.Args) == 0 && isBottleBinary(unquote(prog), PreToolUseBinary) {
		prog = unquote(prog)
	} else if len(h.Args) == 0 {
		if i := strings.LastIndexAny(prog, " \t"); i >= 0 {
			prog = unquote(strings.TrimSpace(prog[:i]))
		}
	}
	if strings.ContainsAny(prog, "$%`") || !filepath.IsAbs(filepath.FromSlash(prog)) {
		return ""
	}
	return filepath.FromSlash(prog)
}

// MatcherMatches applies a Claude Code hook matcher to a value
// (as Claude Code applies it): empty or "*" matches everything;
// a matcher of letters, digits, '_', '-', ' ', ',' and '|' is an exact list;
// anything else is an unanchored regular expression.
func MatcherMatches(matcher, value string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if strings.Trim(matcher, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_- ,|") == "" {
		for _, m := range strings.FieldsFunc(matcher, func(r rune) bool { return r == '|' || r == ',' }) {
			if strings.TrimSpace(m) == value {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	return err == nil && re.MatchString(value)
}

func hookLabel(event, matcher string) string {
	if matcher == "" {
		return "hooks." + event
	}
	return "hooks." + event + " [" + matcher + "]"
}

// parseGroup splits a matcher group into the group object and its handlers;
// ok is false for anything that is not a well-formed group.
func parseGroup(raw json.RawMessage) (grp *object, handlers []json.RawMessage, ok bool) {
	grp, err := decodeObject(raw)
	if err != nil {
		return nil, nil, false
	}
	hraw, found := grp.get("hooks")
	if !found || json.Unmarshal(hraw, &handlers) != nil {
		return nil, nil, false
	}
	return grp, handlers, true
}

// handler is one of bottle's hook handlers among an event's matcher groups.
type handler struct {
	group, index int // groups[group].hooks[index]
	// matcher is the group's matcher, "" when it has none; matcherOK is
	// false when the matcher is not a string.
	matcher   string
	matcherOK bool
	sub       string
	raw       json.RawMessage
}

// findHandlers returns bottle's handlers among an event's matcher groups, in
// file order. A group that is not well formed holds none. Install, uninstall
// and [Registrations] all find bottle's hooks through it.
func findHandlers(groups []json.RawMessage) []handler {
	var out []handler
	for i, g := range groups {
		grp, hs, ok := parseGroup(g)
		if !ok {
			continue
		}
		var m string
		mok := true
		if raw, found := grp.get("matcher"); found {
			mok = json.Unmarshal(raw, &m) == nil
		}
		for j, h := range hs {
			if sub, own := ownSub(h); own {
				out = append(out, handler{group: i, index: j, matcher: m, matcherOK: mok, sub: sub, raw: h})
			}
		}
	}
	return out
}

// at maps each handler to its position.
func at(hs []handler) map[[2]int]handler {
	m := make(map[[2]int]handler, len(hs))
	for _, h := range hs {
		m[[2]int{h.group, h.index}] = h
	}
	return m
}

// sameMatcher reports whether h's group has the matcher bottle uses for
// matcher ("", "*" and no matcher all mean every occurrence).
func sameMatcher(h handler, matcher string) bool {
	if !h.matcherOK {
		return false
	}
	if matcher == "" {
		return h.matcher == "" || h.matcher == "*"
	}
	return h.matcher == matcher
}

// installHooks puts bottle's handlers, running hookbin, into the "hooks"
// object of a settings file.
func installHooks(doc *object, hookbin string) ([]string, error) {
	hooks, err := childObject(doc, "hooks", "hooks")
	if err != nil {
		return nil, err
	}
	hookCmd := HookCommand(hookbin)
	fast := PreToolUseBeside(hookbin)
	var notes []string
	for _, spec := range bottleHooks {
		var groups []json.RawMessage
		if raw, ok := hooks.get(spec.Event); ok && !isNull(raw) {
			if json.Unmarshal(raw, &groups) != nil {
				return nil, fmt.Errorf("hooks.%s is not a JSON array", spec.Event)
			}
		}
		cmd := hookCmd + " " + spec.Sub
		if spec.Sub == preToolUseSub && fast != "" {
			cmd = HookCommand(fast)
		}
		groups, n := placeHook(groups, spec, cmd)
		notes = append(notes, n...)
		hooks.set(spec.Event, marshalArray(groups))
	}
	doc.set("hooks", hooks.raw())
	return notes, nil
}

// placeHook leaves exactly one bottle handler for spec among an event's
// matcher groups. An existing handler in a group with bottle's matcher is
// updated in place; any other bottle handler in the event (an old matcher, a
// duplicate, a wrong subcommand) is removed, with its group when that group
// holds nothing else; without an existing handler a new group is appended.
// Foreign groups and handlers keep their content and order.
func placeHook(groups []json.RawMessage, spec Hook, cmd string) ([]json.RawMessage, []string) {
	found := findHandlers(groups)
	home := -1
	for _, h := range found {
		if h.sub == spec.Sub && sameMatcher(h, spec.Matcher) {
			home = h.group
			break
		}
	}
	own := at(found)
	label := hookLabel(spec.Event, spec.Matcher)
	var notes []string
	out := make([]json.RawMessage, 0, len(groups)+1)
	placed := false
	for i, g := range groups {
		grp, hs, ok := parseGroup(g)
		if !ok {
			out = append(out, g)
			continue
		}
		kept := make([]json.RawMessage, 0, len(hs))
		touched := false
		for j, h := range hs {
			mine, isOwn := own[[2]int{i, j}]
			switch {
			case !isOwn:
				kept = append(kept, h)
			case i == home && mine.sub == spec.Sub && !placed:
				nh := mergeHandler(h, cmd, spec.Timeout)
				if !sameJSON(nh, h) {
					notes = append(notes, fmt.Sprintf("~ %s: was %s; now %s (timeout %d s)", label, handlerText(h), cmd, spec.Timeout))
					touched = true
				}
				kept = append(kept, nh)
				placed = true
			default:
				notes = append(notes, fmt.Sprintf("- %s: %s (stale or duplicate)", hookLabel(spec.Event, mine.matcher), handlerText(h)))
				touched = true
			}
		}
		switch {
		case !touched:
			out = append(out, g)
		case len(kept) > 0:
			grp.set("hooks", marshalArray(kept))
			out = append(out, grp.raw())
		}
	}
	if !placed {
		grp := newObject()
		if spec.Matcher != "" {
			grp.set("matcher", jsonValue(spec.Matcher))
		}
		grp.set("hooks", marshalArray([]json.RawMessage{mergeHandler(nil, cmd, spec.Timeout)}))
		out = append(out, grp.raw())
		notes = append(notes, fmt.Sprintf("+ %s: %s (timeout %d s)", label, cmd, spec.Timeout))
	}
	return out, notes
}

// mergeHandler returns bottle's handler, keeping any extra fields of an
// existing one (a statusMessage, say) but never "async" or "args".
func mergeHandler(old json.RawMessage, cmd string, timeout int) json.RawMessage {
	h := newObject()
	if old != nil {
		if o, err := decodeObject(old); err == nil {
			h = o
		}
	}
	h.set("type", jsonValue("command"))
	h.set("command", jsonValue(cmd))
	h.set("timeout", jsonValue(timeout))
	h.del("async")
	h.del("args")
	return h.raw()
}

// removeHooks takes bottle's handlers out of every event of a settings file.
// Groups, event lists and the "hooks" object left empty by the removal go too.
func removeHooks(doc *object) ([]string, error) {
	raw, ok := doc.get("hooks")
	if !ok || isNull(raw) {
		return nil, nil
	}
	hooks, err := decodeObject(raw)
	if err != nil {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	var notes []string
	for _, event := range append([]string(nil), hooks.keys...) {
		var groups []json.RawMessage
		if json.Unmarshal(hooks.vals[event], &groups) != nil {
			continue
		}
		found := findHandlers(groups)
		if len(found) == 0 {
			continue
		}
		own := at(found)
		out := make([]json.RawMessage, 0, len(groups))
		for i, g := range groups {
			grp, hs, ok := parseGroup(g)
			if !ok {
				out = append(out, g)
				continue
			}
			kept := make([]json.RawMessage, 0, len(hs))
			for j, h := range hs {
				if mine, isOwn := own[[2]int{i, j}]; isOwn {
					notes = append(notes, fmt.Sprintf("- %s: %s", hookLabel(event, mine.matcher), handlerText(h)))
					continue
				}
				kept = append(kept, h)
			}
			switch {
			case len(kept) == len(hs):
				out = append(out, g)
			case len(kept) > 0:
				grp.set("hooks", marshalArray(kept))
				out = append(out, grp.raw())
			}
		}
		if len(out) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, marshalArray(out))
		}
	}
	if len(notes) == 0 {
		return nil, nil
	}
	if len(hooks.keys) == 0 {
		doc.del("hooks")
	} else {
		doc.set("hooks", hooks.raw())
	}
	return notes, nil
}
