package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreCompact: the hook renders the bottle and prints the one-line
// instruction naming it, the same on every firing; it prints nothing when
// steering is off or the render fails, and always returns nil.
func TestPreCompact(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	tests := []struct {
		name    string
		env     map[string]string
		session string // default id
		want    bool   // the instruction is printed
		outcome string // logged outcome prefix
	}{
		{name: "Manual", want: true, outcome: "ok"},
		{name: "SteerOn", env: map[string]string{steerEnv: "1", steerOptionEnv: "true"}, want: true, outcome: "ok"},
		{name: "OptionUnset", env: map[string]string{steerOptionEnv: ""}, want: true, outcome: "ok"},
		{name: "EnvOff", env: map[string]string{steerEnv: "0"}, outcome: "skipped: steering off (BOTTLE_STEER_COMPACT=0)"},
		{name: "PluginOptionOff", env: map[string]string{steerOptionEnv: "false"}, outcome: "skipped: steering off (CLAUDE_PLUGIN_OPTION_STEER_COMPACT=false)"},
		{name: "RenderFails", session: "22222222-2222-4333-8444-555555555555", outcome: "error: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newHookWorld(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			w.transcript(t, id, "basic")
			sid := id
			if tt.session != "" {
				sid = tt.session
			}
			payload := `{"session_id":"` + sid + `","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"keep the flag plan"}`
			out, _ := w.hook(t, "pre-compact", payload)
			again, _ := w.hook(t, "pre-compact", payload)
			if out != again {
				t.Errorf("second firing printed %q, first %q", again, out)
			}
			if got := w.lastOutcome(t); !strings.HasPrefix(got, tt.outcome) {
				t.Errorf("logged %q, want %q…", got, tt.outcome)
			}
			if last := w.logLines(t)[len(w.logLines(t))-1]; !strings.Contains(last, " trigger=manual ") {
				t.Errorf("log line %q does not name the trigger", last)
			}
			if !tt.want {
				if out != "" {
					t.Errorf("printed %q, want nothing", out)
				}
				return
			}
			bottle := filepath.Join(w.bottlesDir(), id+".md")
			if want := "[bottle] A verbatim record of this session"; !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
				t.Errorf("printed %q, want one line starting %q", out, want)
			}
			if !strings.Contains(out, " is saved at "+bottle+" and will be re-attached") {
				t.Errorf("instruction does not name %s: %q", bottle, out)
			}
			if strings.Contains(out, "keep the flag plan") {
				t.Error("the instruction repeats the user's own /compact text (Claude Code keeps that)")
			}
			if len([]rune(out)) > 601 {
				t.Errorf("instruction is %d characters, want ≤ 600", len([]rune(out))-1)
			}
			if _, err := os.Stat(bottle); err != nil {
				t.Errorf("no bottle written: %v", err)
			}
		})
	}
}

// TestSessionStartPluginNames: under the plugin ($CLAUDE_PLUGIN_ROOT set,
// as Claude Code sets it for a plugin's hooks) the pointer names the tools
// mcp__plugin_bottle_bottle__<tool>; otherwise mcp__bottle__<tool>.
func TestSessionStartPluginNames(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	for _, tt := range []struct{ root, want, not string }{
		{"", "mcp__bottle__expand_observation", "mcp__plugin_"},
		{"/home/dev/.claude/plugins/cache/bottle/bottle/0.1.0", "mcp__plugin_bottle_bottle__expand_observation", "mcp__bottle__"},
	} {
		w := newHookWorld(t)
		t.Setenv(pluginRootEnv, tt.root)
		w.transcript(t, id, "compaction")
		out, _ := w.hook(t, "session-start", `{"session_id":"`+id+`","source":"compact"}`)
		ptr := parseAnswer(t, out)
		if !strings.Contains(ptr, tt.want) || strings.Contains(ptr, tt.not) {
			t.Errorf("root %q: pointer lacks %s or has %s:\n%s", tt.root, tt.want, tt.not, ptr)
		}
	}
}
