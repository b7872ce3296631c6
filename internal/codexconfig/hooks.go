package codexconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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
	rest, ok := strings.CutSuffix(strings.TrimSpace(h.Command), " "+HostFlag)
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

// object is a JSON object that keeps its keys in file order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func decodeObject(raw []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, have := range o.keys {
		if have == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *object) raw() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// groupHandlers splits a matcher group into its fields and handlers.
func groupHandlers(raw json.RawMessage) (*object, []json.RawMessage, bool) {
	g, err := decodeObject(raw)
	if err != nil {
		return nil, nil, false
	}
	var hs []json.RawMessage
	if json.Unmarshal(g.vals["hooks"], &hs) != nil {
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
	for _, event := range hooks.keys {
		var groups []json.RawMessage
		if json.Unmarshal(hooks.vals[event], &groups) != nil {
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
func loadHooks(data []byte) (*object, *object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, nil, fmt.Errorf("invalid JSON: %v", err)
	}
	doc, err := decodeObject(data)
	if err != nil {
		return nil, nil, errors.New("not a JSON object")
	}
	hooks := &object{vals: map[string]json.RawMessage{}}
	if raw, ok := doc.vals["hooks"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		if hooks, err = decodeObject(raw); err != nil {
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
		doc, hooks = &object{vals: map[string]json.RawMessage{}}, &object{vals: map[string]json.RawMessage{}}
	}
	var notes []string
	removed := map[string]int{}
	var order []string // events bottle's handlers were taken from, in file order
	// Take bottle's handlers out of every event.
	for _, event := range append([]string(nil), hooks.keys...) {
		var groups []json.RawMessage
		if json.Unmarshal(hooks.vals[event], &groups) != nil {
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
				grp.set("hooks", b)
				out = append(out, grp.raw())
			}
		}
		if !changed {
			continue
		}
		if len(out) == 0 {
			hooks.del(event)
		} else {
			b, _ := json.Marshal(out)
			hooks.set(event, b)
		}
	}
	if hookbin != "" {
		for _, hk := range Hooks {
			var groups []json.RawMessage
			if raw, ok := hooks.vals[hk.Event]; ok {
				_ = json.Unmarshal(raw, &groups)
			}
			groups = append(groups, groupFor(hk, hookbin))
			b, _ := json.Marshal(groups)
			hooks.set(hk.Event, b)
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
	if len(hooks.keys) == 0 {
		doc.del("hooks")
	} else {
		doc.set("hooks", hooks.raw())
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc.raw(), "", "  "); err != nil {
		return nil, nil, err
	}
	out.WriteByte('\n')
	if bytes.Equal(canonical(data), canonical(out.Bytes())) {
		return data, nil, nil
	}
	if len(notes) == 0 {
		notes = append(notes, "~ bottle's hooks rewritten")
	}
	if hookbin != "" && len(notes) > 0 && notes[0][0] != '+' {
		notes = []string{"~ bottle's hooks: now " + hookbin}
	}
	return out.Bytes(), notes, nil
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
	h := &object{vals: map[string]json.RawMessage{}}
	h.set("type", json.RawMessage(`"command"`))
	cmd, _ := json.Marshal(hookbin + " " + hk.Sub + " " + HostFlag)
	h.set("command", cmd)
	h.set("timeout", json.RawMessage(fmt.Sprint(hk.Timeout)))
	if hk.ContextLimit {
		h.set("additionalContextLimit", json.RawMessage("0"))
	}
	g := &object{vals: map[string]json.RawMessage{}}
	if hk.Matcher != "" {
		m, _ := json.Marshal(hk.Matcher)
		g.set("matcher", m)
	}
	g.set("hooks", json.RawMessage("["+string(h.raw())+"]"))
	return g.raw()
}
