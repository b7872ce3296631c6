package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bottle/internal/claudesettings"
	"bottle/internal/permit"
	"bottle/locate"
	"bottle/pointer"
)

// preToolUseWorld is a home with a bottles folder holding a bottle, an
// archived bottle, a sub-folder and a symlink out of it, and files outside.
type preToolUseWorld struct {
	*hookWorld
	bottle, archived, outside, project string
}

func newPreToolUseWorld(t *testing.T) *preToolUseWorld {
	t.Helper()
	w := &preToolUseWorld{hookWorld: newHookWorld(t)}
	dir := w.bottlesDir()
	w.bottle = filepath.Join(dir, "11111111-2222-4333-8444-555555555555.md")
	w.archived = filepath.Join(dir, "archive", "20260101T000000Z-11111111-2222-4333-8444-555555555555.md")
	w.outside = filepath.Join(w.home, "secrets", "notes.txt")
	w.project = filepath.Join(w.home, "proj")
	for _, f := range []string{w.bottle, w.archived, w.outside, filepath.Join(w.project, "main.go"),
		filepath.Join(dir, "archive", "notes.txt"), filepath.Join(w.home, "notes.txt")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("text\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(dir, "escape.md"):           w.outside,                        // inside, pointing out
		filepath.Join(w.project, "bottle.md"):     w.bottle,                         // outside, pointing in
		filepath.Join(dir, "dangling.md"):         filepath.Join(dir, "missing.md"), // to nothing
		filepath.Join(w.home, "bottles-link"):     dir,                              // the folder under another name
		filepath.Join(dir, "archive", "up-there"): filepath.Join(w.home, "secrets"), // a folder outside
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// TestPreToolUse: the hook allows a Read of a regular file inside the
// bottles folder (resolved) and bottle's own MCP tools under both installs'
// names, and prints nothing for anything else, a malformed payload, or
// when it is switched off.
func TestPreToolUse(t *testing.T) {
	const sid = "11111111-2222-4333-8444-555555555555"
	read := func(path string) map[string]any {
		return map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": path}}
	}
	tool := func(name string) map[string]any {
		return map[string]any{"tool_name": name, "tool_input": map[string]any{"session_id": sid}}
	}
	tests := []struct {
		name string
		// call builds the payload's tool fields; raw, when set, is the whole
		// payload instead.
		call func(w *preToolUseWorld) map[string]any
		raw  string
		cwd  func(w *preToolUseWorld) string
		env  func(w *preToolUseWorld) map[string]string
		// allow is the word the reason must hold; "" means no decision.
		allow string
		// logged: the run logs a failure.
		logged bool
	}{
		{name: "BottleFile", call: func(w *preToolUseWorld) map[string]any { return read(w.bottle) }, allow: "bottles folder"},
		{name: "ArchivedBottle", call: func(w *preToolUseWorld) map[string]any { return read(w.archived) }, allow: "bottles folder"},
		{name: "DotDotStayingInside", call: func(w *preToolUseWorld) map[string]any {
			return read(filepath.Join(w.bottlesDir(), "archive") + "/../" + filepath.Base(w.bottle))
		}, allow: "bottles folder"},
		{name: "RelativeToCwd", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Base(w.bottle)) },
			cwd: func(w *preToolUseWorld) string { return w.bottlesDir() }, allow: "bottles folder"},
		{name: "SymlinkIntoBottles", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Join(w.project, "bottle.md")) }, allow: "bottles folder"},
		{name: "BottlesFolderNamedBySymlink", call: func(w *preToolUseWorld) map[string]any { return read(w.bottle) },
			env: func(w *preToolUseWorld) map[string]string {
				return map[string]string{"BOTTLE_DIR": filepath.Join(w.home, "bottles-link")}
			}, allow: "bottles folder"},
		{name: "SymlinkOutOfBottles", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Join(w.bottlesDir(), "escape.md")) }},
		{name: "DotDotEscaping", call: func(w *preToolUseWorld) map[string]any {
			return read(w.bottlesDir() + "/../../secrets/notes.txt")
		}},
		{name: "SymlinkedFolderOut", call: func(w *preToolUseWorld) map[string]any {
			return read(filepath.Join(w.bottlesDir(), "archive", "up-there", "notes.txt"))
		}},
		{name: "DotDotLexicallyInside", call: func(w *preToolUseWorld) map[string]any {
			// Taken lexically, archive/notes.txt in the bottles folder; the
			// system reads home/notes.txt (up-there is home/secrets).
			return read(filepath.Join(w.bottlesDir(), "archive", "up-there") + "/../notes.txt")
		}},
		{name: "Folder", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Join(w.bottlesDir(), "archive")) }},
		{name: "BottlesFolderItself", call: func(w *preToolUseWorld) map[string]any { return read(w.bottlesDir()) }},
		{name: "MissingFile", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Join(w.bottlesDir(), "missing.md")) }},
		{name: "DanglingSymlink", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Join(w.bottlesDir(), "dangling.md")) }},
		{name: "AnotherFile", call: func(w *preToolUseWorld) map[string]any { return read(w.outside) }},
		{name: "ProjectFile", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Join(w.project, "main.go")) }},
		{name: "RelativeWithoutCwd", call: func(w *preToolUseWorld) map[string]any { return read(filepath.Base(w.bottle)) }},
		{name: "EmptyPath", call: func(w *preToolUseWorld) map[string]any { return read("") }},
		{name: "PathNotAString", raw: `{"session_id":"` + sid + `","tool_name":"Read","tool_input":{"file_path":5}}`},
		{name: "BottlesFolderTooWide", call: func(w *preToolUseWorld) map[string]any { return read(w.outside) },
			env: func(w *preToolUseWorld) map[string]string { return map[string]string{"BOTTLE_DIR": w.home} }},
		{name: "BottlesFolderRoot", call: func(w *preToolUseWorld) map[string]any { return read(w.outside) },
			env: func(w *preToolUseWorld) map[string]string { return map[string]string{"BOTTLE_DIR": "/"} }},
		{name: "WriteToBottle", call: func(w *preToolUseWorld) map[string]any {
			return map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": w.bottle, "content": "x"}}
		}},
		{name: "EditOfBottle", call: func(w *preToolUseWorld) map[string]any {
			return map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": w.bottle}}
		}},
		{name: "Bash", call: func(w *preToolUseWorld) map[string]any {
			return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "cat " + w.bottle}}
		}},
		{name: "SettingsToolName", call: func(*preToolUseWorld) map[string]any { return tool("mcp__bottle__read_bottle") }, allow: "read_bottle"},
		{name: "PluginToolName", call: func(*preToolUseWorld) map[string]any { return tool("mcp__plugin_bottle_bottle__read_bottle") }, allow: "read_bottle"},
		{name: "SettingsExpand", call: func(*preToolUseWorld) map[string]any { return tool("mcp__bottle__expand_observation") }, allow: "expand_observation"},
		{name: "PluginSearch", call: func(*preToolUseWorld) map[string]any { return tool("mcp__plugin_bottle_bottle__search_history") }, allow: "search_history"},
		{name: "PluginListSessions", call: func(*preToolUseWorld) map[string]any { return tool("mcp__plugin_bottle_bottle__list_sessions") }, allow: "list_sessions"},
		{name: "SettingsRender", call: func(*preToolUseWorld) map[string]any { return tool("mcp__bottle__render_bottle") }, allow: "render_bottle"},
		{name: "OtherServersTool", call: func(*preToolUseWorld) map[string]any { return tool("mcp__other__read_bottle") }},
		{name: "OtherPluginsTool", call: func(*preToolUseWorld) map[string]any { return tool("mcp__plugin_bottle_other__read_bottle") }},
		{name: "UnknownBottleTool", call: func(*preToolUseWorld) map[string]any { return tool("mcp__bottle__delete_everything") }},
		{name: "BarePrefix", call: func(*preToolUseWorld) map[string]any { return tool("mcp__bottle__") }},
		{name: "BareToolName", call: func(*preToolUseWorld) map[string]any { return tool("read_bottle") }},
		{name: "EnvOff", call: func(w *preToolUseWorld) map[string]any { return read(w.bottle) },
			env: func(*preToolUseWorld) map[string]string { return map[string]string{allowReadsEnv: "0"} }},
		{name: "EnvOffTool", call: func(*preToolUseWorld) map[string]any { return tool("mcp__bottle__read_bottle") },
			env: func(*preToolUseWorld) map[string]string { return map[string]string{allowReadsEnv: "false"} }},
		{name: "PluginOptionOff", call: func(w *preToolUseWorld) map[string]any { return read(w.bottle) },
			env: func(*preToolUseWorld) map[string]string { return map[string]string{allowReadsOptionEnv: "false"} }},
		{name: "PluginOptionOffTool", call: func(*preToolUseWorld) map[string]any { return tool("mcp__plugin_bottle_bottle__read_bottle") },
			env: func(*preToolUseWorld) map[string]string { return map[string]string{allowReadsOptionEnv: "false"} }},
		{name: "SwitchesOn", call: func(w *preToolUseWorld) map[string]any { return read(w.bottle) },
			env: func(*preToolUseWorld) map[string]string {
				return map[string]string{allowReadsEnv: "1", allowReadsOptionEnv: "true"}
			}, allow: "bottles folder"},
		{name: "PluginOptionUnset", call: func(w *preToolUseWorld) map[string]any { return read(w.bottle) },
			env: func(*preToolUseWorld) map[string]string { return map[string]string{allowReadsOptionEnv: ""} }, allow: "bottles folder"},
		{name: "EmptyPayload", raw: "", logged: true},
		{name: "BlankPayload", raw: " \n", logged: true},
		{name: "NotJSON", raw: `Read ` + "/x", logged: true},
		{name: "NotAnObject", raw: `["Read"]`, logged: true},
		{name: "ToolNameNotAString", raw: `{"tool_name":["Read"],"tool_input":{}}`, logged: true},
		{name: "NoToolName", raw: `{"session_id":"` + sid + `","tool_input":{"file_path":"/x"}}`, logged: true},
		{name: "Truncated", raw: `{"session_id":"` + sid + `","tool_name":"mcp__bottle__read_bottle"`, logged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newPreToolUseWorld(t)
			t.Setenv(allowReadsEnv, "")
			t.Setenv(allowReadsOptionEnv, "")
			if tt.env != nil {
				for k, v := range tt.env(w) {
					t.Setenv(k, v)
				}
			}
			payload := tt.raw
			if tt.call != nil {
				p := map[string]any{"session_id": sid, "transcript_path": "/t.jsonl", "hook_event_name": "PreToolUse",
					"permission_mode": "default", "tool_use_id": "toolu_1"}
				if tt.cwd != nil {
					p["cwd"] = tt.cwd(w)
				}
				for k, v := range tt.call(w) {
					p[k] = v
				}
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				payload = string(b)
			}
			out, _ := w.hook(t, "pre-tool-use", payload)
			if tt.allow == "" {
				if out != "" {
					t.Errorf("printed %q for %s, want nothing (no decision)", out, payload)
				}
			} else {
				checkAllowAnswer(t, out, tt.allow)
			}
			_, err := os.Stat(w.logPath())
			switch {
			case tt.logged && err != nil:
				t.Errorf("nothing logged for a malformed payload: %v", err)
			case tt.logged:
				if got := w.lastOutcome(t); !strings.HasPrefix(got, "error: ") {
					t.Errorf("logged %q, want an error", got)
				}
			case !errors.Is(err, fs.ErrNotExist):
				t.Errorf("logged a run that did not fail (%v): %q", err, w.logLines(t))
			}
		})
	}
}

// checkAllowAnswer checks out is exactly one line: the PreToolUse answer
// allowing the call, with a reason that names bottle and holds word.
func checkAllowAnswer(t *testing.T, out, word string) {
	t.Helper()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Errorf("printed %q, want one line", out)
	}
	var ans struct {
		HookSpecificOutput map[string]string `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ans); err != nil {
		t.Fatalf("printed %q: %v", out, err)
	}
	h := ans.HookSpecificOutput
	if len(h) != 3 || h["hookEventName"] != "PreToolUse" || h["permissionDecision"] != "allow" {
		t.Errorf("answer %q, want hookEventName PreToolUse, permissionDecision allow and a reason", out)
	}
	if r := h["permissionDecisionReason"]; !strings.HasPrefix(r, "bottle: ") || !strings.Contains(r, word) {
		t.Errorf("reason %q does not name bottle and %q", r, word)
	}
}

// TestPluginHooksMatchInstall: the plugin's hooks.json registers the hooks
// install registers, each with the same matcher, save that the PreToolUse
// matcher names the plugin's tool prefix; and both matchers match Read and
// every tool of bottle's under their install's name, and nothing else of
// what the hook sees.
func TestPluginHooksMatchInstall(t *testing.T) {
	var file struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, err := os.ReadFile(filepath.Join("..", "plugin", "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, spec := range claudesettings.Hooks() {
		want := spec.Matcher
		if spec.Event == "PreToolUse" {
			want = strings.Replace(want, pointer.SettingsNames.ToolPrefix, pointer.PluginNames.ToolPrefix, 1)
		}
		found := false
		for _, g := range file.Hooks[spec.Event] {
			for _, h := range g.Hooks {
				if strings.HasSuffix(h.Command, "/bin/bottle-run\" hookbin "+spec.Sub) {
					found = true
					if g.Matcher != want || h.Timeout != spec.Timeout || h.Type != "command" {
						t.Errorf("hooks.json %s: matcher %q, timeout %d, type %q; want %q, %d, command", spec.Event, g.Matcher, h.Timeout, h.Type, want, spec.Timeout)
					}
				}
			}
		}
		if !found {
			t.Errorf("hooks.json does not register hookbin %s for %s", spec.Sub, spec.Event)
		}
	}
	for _, names := range []pointer.MCPNames{pointer.SettingsNames, pointer.PluginNames} {
		var matcher string
		for _, spec := range claudesettings.Hooks() {
			if spec.Event == "PreToolUse" {
				matcher = strings.Replace(spec.Matcher, pointer.SettingsNames.ToolPrefix, names.ToolPrefix, 1)
			}
		}
		want := []string{"Read"}
		for _, tool := range pointer.ToolNames {
			want = append(want, names.Tool(tool))
		}
		for _, name := range want {
			if !claudesettings.MatcherMatches(matcher, name) {
				t.Errorf("PreToolUse matcher %q misses %s", matcher, name)
			}
		}
		for _, name := range []string{"ReadMcpResourceTool", "Write", "Bash", "mcp__other__read_bottle", "xRead"} {
			if claudesettings.MatcherMatches(matcher, name) {
				t.Errorf("PreToolUse matcher %q matches %s", matcher, name)
			}
		}
	}
}

// FuzzPreToolUsePayload: any payload is decided without a panic, and an
// allowed call is one of bottle's tools or a Read of a regular file inside
// the bottles folder.
func FuzzPreToolUsePayload(f *testing.F) {
	f.Add(`{"session_id":"s","cwd":"/","tool_name":"Read","tool_input":{"file_path":"BOTTLES/a.md"}}`)
	f.Add(`{"tool_name":"Read","tool_input":{"file_path":"a.md"},"cwd":"BOTTLES"}`)
	f.Add(`{"tool_name":"Read","tool_input":{"file_path":"BOTTLES/../BOTTLES/a.md"}}`)
	f.Add(`{"tool_name":"Read","tool_input":{"file_path":"BOTTLES/sub"}}`)
	f.Add(`{"tool_name":"mcp__plugin_bottle_bottle__read_bottle","tool_input":{}}`)
	f.Add(`{"tool_name":"mcp__bottle__x","tool_input":null}`)
	f.Add(`{"tool_name":"Read","tool_input":"x"}`)
	f.Add(`[]`)
	f.Add(``)
	dir := f.TempDir()
	bottles := filepath.Join(dir, "home", "bottles")
	if err := os.MkdirAll(filepath.Join(bottles, "sub"), 0o700); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bottles, "a.md"), []byte("a\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte("o\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	env := locate.Env{Home: filepath.Join(dir, "home"), Getenv: func(k string) string {
		if k == "BOTTLE_DIR" {
			return bottles
		}
		return ""
	}}
	f.Fuzz(func(t *testing.T, payload string) {
		payload = strings.ReplaceAll(payload, "BOTTLES", bottles)
		c, err := permit.Parse([]byte(payload))
		if err != nil {
			return
		}
		reason := permit.Reason(env, c)
		if reason == "" {
			return
		}
		if pointer.OwnTool(c.ToolName) != "" {
			return
		}
		if c.ToolName != "Read" {
			t.Fatalf("allowed tool %q", c.ToolName)
		}
		p := c.ReadPath()
		if !filepath.IsAbs(p) {
			p = c.Cwd + "/" + p
		}
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatalf("allowed a Read of %q, which does not resolve: %v", p, err)
		}
		fi, err := os.Stat(rp)
		if err != nil || !fi.Mode().IsRegular() || !permit.Inside(rp, bottles) {
			t.Fatalf("allowed a Read of %q (%s), not a regular file inside %s", c.ReadPath(), rp, bottles)
		}
	})
}
