package codexconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"bottle/internal/claudesettings"
)

// HostFlag ends the command of every hook bottle registers in Codex: the
// hook then knows its payload is Codex's, and uninstall knows its own.
const HostFlag = "--host codex"

// Hook is one hook bottle registers in Codex.
type Hook struct {
	Event   string // SessionStart, Stop, SessionEnd
	Matcher string // a regex on the SessionStart source; "" for every occurrence
	Sub     string // hookbin's subcommand
	Timeout int    // seconds
	// ContextLimit sets "additionalContextLimit": 0 lets bottle's pointer
	// through whole instead of a head/tail preview over ~2,500 tokens.
	ContextLimit bool
}

// Hooks are the hooks install registers. Codex ignores PreCompact's output
// (its summary cannot be steered), so there is no pre-compact hook; it
// clamps SessionEnd hooks to 3 s.
var Hooks = []Hook{
	{Event: "SessionStart", Matcher: "compact|resume", Sub: "session-start", Timeout: 10, ContextLimit: true},
	{Event: "Stop", Sub: "stop", Timeout: 5},
	{Event: "SessionEnd", Sub: "session-end", Timeout: 2},
}

// snake is Codex's name of an event in a hook's trust key.
func snake(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ownCommand reports whether a handler's command is one of bottle's Codex
// hooks: "<any program> <bottle hook> --host codex".
func ownCommand(raw json.RawMessage) bool {
	var h struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(raw, &h) != nil || h.Type != "command" {
		return false
	}
	return OwnCommand(h.Command)
}

// OwnCommand reports whether a hook's command line is one of bottle's Codex
// hooks: "<any program> <bottle hook> --host codex", as install writes it
// and bottle's Codex plugin ships it.
func OwnCommand(command string) bool {
	rest, ok := strings.CutSuffix(strings.TrimSpace(command), " "+HostFlag)
	if !ok {
		return false
	}
	for _, hk := range Hooks {
		if strings.HasSuffix(rest, " "+hk.Sub) {
			return true
		}
	}
	return false
}

// get is the raw value of k, nil when missing.
func get(o *claudesettings.Object, k string) json.RawMessage {
	v, _ := o.Get(k)
	return v
}

// groupHandlers splits a matcher group into its fields and handlers.
func groupHandlers(raw json.RawMessage) (*claudesettings.Object, []json.RawMessage, bool) {
	g, err := claudesettings.DecodeObject(raw)
	if err != nil {
		return nil, nil, false
	}
	var hs []json.RawMessage
	if json.Unmarshal(get(g, "hooks"), &hs) != nil {
		return nil, nil, false
	}
	return g, hs, true
}

// HookKey is a registered hook's place, as Codex's trust keys name it:
// "<hooks.json path>:<event_snake>:<group>:<handler>".
type HookKey struct {
	Event          string
	Group, Handler int
}

// Key is Codex's trust key of the hook in the hooks.json at path.
func (k HookKey) Key(path string) string {
	return fmt.Sprintf("%s:%s:%d:%d", path, snake(k.Event), k.Group, k.Handler)
}

// OwnHooks returns where bottle's hooks are in a hooks.json.
func OwnHooks(data []byte) ([]HookKey, error) {
	doc, hooks, err := loadHooks(data)
	if err != nil || doc == nil {
		return nil, err
	}
	var out []HookKey
	for _, event := range hooks.Keys() {
		var groups []json.RawMessage
		if json.Unmarshal(get(hooks, event), &groups) != nil {
			continue
		}
		for i, g := range groups {
			_, hs, ok := groupHandlers(g)
			if !ok {
				continue
			}
			for j, h := range hs {
				if ownCommand(h) {
					out = append(out, HookKey{event, i, j})
				}
			}
		}
	}
	return out, nil
}

// loadHooks parses a hooks.json: its document and "hooks" object (nil, nil
// for an empty file).
func loadHooks(data []byte) (*claudesettings.Object, *claudesettings.Object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, nil, fmt.Errorf("invalid JSON: %v", err)
	}
	doc, err := claudesettings.DecodeObject(data)
	if err != nil {
		return nil, nil, errors.New("not a JSON object")
	}
	hooks := claudesettings.NewObject()
	if raw, ok := doc.Get("hooks"); ok && string(bytes.TrimSpace(raw)) != "null" {
		if hooks, err = claudesettings.DecodeObject(raw); err != nil {
			return nil, nil, errors.New(`"hooks" is not a JSON object`)
		}
	}
	return doc, hooks, nil
}

// InstallHooks puts bottle's hooks, running hookbin (already quoted for a
// shell), into a hooks.json; every other event, group and handler stays.
func InstallHooks(data []byte, hookbin string) ([]byte, []string, error) {
	return editHooks(data, hookbin)
}

// UninstallHooks removes bottle's hooks from a hooks.json; groups and events
// left empty go too.
func UninstallHooks(data []byte) ([]byte, []string, error) {
	return editHooks(data, "")
}

func editHooks(data []byte, hookbin string) ([]byte, []string, error) {
	doc, hooks, err := loadHooks(data)
	if err != nil {
		return nil, nil, err
	}
	if doc == nil {
		if hookbin == "" {
			return data, nil, nil
		}
		doc, hooks = claudesettings.NewObject(), claudesettings.NewObject()
	}
	var notes []string
	removed := map[string]int{}
	var order []string // events bottle's handlers were taken from, in file order
	// Take bottle's handlers out of every event.
	for _, event := range append([]string(nil), hooks.Keys()...) {
		var groups []json.RawMessage
		if json.Unmarshal(get(hooks, event), &groups) != nil {
			if hookbin != "" && isOurEvent(event) {
				return nil, nil, fmt.Errorf("hooks.%s is not a JSON array", event)
			}
			continue
		}
		var out []json.RawMessage
		changed := false
		for _, g := range groups {
			grp, hs, ok := groupHandlers(g)
			if !ok {
				out = append(out, g)
				continue
			}
			var kept []json.RawMessage
			for _, h := range hs {
				if ownCommand(h) {
					if removed[event] == 0 {
						order = append(order, event)
					}
					removed[event]++
					changed = true
					continue
				}
				kept = append(kept, h)
			}
			switch {
			case len(kept) == len(hs):
				out = append(out, g)
			case len(kept) > 0:
				b, _ := json.Marshal(kept)
				grp.Set("hooks", b)
				out = append(out, grp.Raw())
			}
		}
		if !changed {
			continue
		}
		if len(out) == 0 {
			hooks.Del(event)
		} else {
			b, _ := json.Marshal(out)
			hooks.Set(event, b)
		}
	}
	if hookbin != "" {
		for _, hk := range Hooks {
			var groups []json.RawMessage
			if raw, ok := hooks.Get(hk.Event); ok {
				_ = json.Unmarshal(raw, &groups)
			}
			groups = append(groups, groupFor(hk, hookbin))
			b, _ := json.Marshal(groups)
			hooks.Set(hk.Event, b)
			if removed[hk.Event] == 0 {
				notes = append(notes, fmt.Sprintf("+ hooks.%s: %s %s %s", hk.Event, hookbin, hk.Sub, HostFlag))
			}
			delete(removed, hk.Event)
		}
	}
	for _, event := range order {
		if removed[event] > 0 {
			notes = append(notes, fmt.Sprintf("- hooks.%s: bottle's hook", event))
		}
	}
	if len(hooks.Keys()) == 0 {
		doc.Del("hooks")
	} else {
		doc.Set("hooks", hooks.Raw())
	}
	out := doc.Encode()
	if bytes.Equal(canonical(data), canonical(out)) {
		return data, nil, nil
	}
	if len(notes) == 0 {
		notes = append(notes, "~ bottle's hooks rewritten")
	}
	if hookbin != "" && len(notes) > 0 && notes[0][0] != '+' {
		notes = []string{"~ bottle's hooks: now " + hookbin}
	}
	return out, notes, nil
}

func isOurEvent(event string) bool {
	for _, hk := range Hooks {
		if hk.Event == event {
			return true
		}
	}
	return false
}

// canonical is data with insignificant whitespace removed, for comparing.
func canonical(data []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return data
	}
	return b.Bytes()
}

// groupFor is bottle's matcher group of hk.
func groupFor(hk Hook, hookbin string) json.RawMessage {
	h := claudesettings.NewObject()
	h.Set("type", json.RawMessage(`"command"`))
	cmd, _ := json.Marshal(hookbin + " " + hk.Sub + " " + HostFlag)
	h.Set("command", cmd)
	h.Set("timeout", json.RawMessage(fmt.Sprint(hk.Timeout)))
	if hk.ContextLimit {
		h.Set("additionalContextLimit", json.RawMessage("0"))
	}
	g := claudesettings.NewObject()
	if hk.Matcher != "" {
		m, _ := json.Marshal(hk.Matcher)
		g.Set("matcher", m)
	}
	g.Set("hooks", json.RawMessage("["+string(h.Raw())+"]"))
	return g.Raw()
}
