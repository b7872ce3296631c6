package claudesettings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOwnSub(t *testing.T) {
	tests := []struct {
		handler string
		wantSub string
		wantOK  bool
	}{
		{`{"type":"command","command":"/usr/local/bin/hookbin session-start","timeout":10}`, "session-start", true},
		{`{"type":"command","command":"/x/hookbin stop"}`, "stop", true},
		{`{"command":"hookbin session-end"}`, "session-end", true},
		{`{"type":"command","command":"'/my dir/hookbin' stop"}`, "stop", true},
		{`{"type":"command","command":"\"/my dir/hookbin\" stop"}`, "stop", true},
		{`{"type":"command","command":"C:/Users/me/bin/hookbin.exe session-start"}`, "session-start", true},
		{`{"type":"command","command":"C:\\Users\\me\\bin\\HOOKBIN.EXE stop"}`, "", false},
		{`{"type":"command","command":"C:\\Users\\me\\bin\\hookbin.EXE stop"}`, "stop", true},
		{`{"type":"command","command":"/x/hookbin","args":["stop"]}`, "stop", true},
		{`{"type":"command","command":"/x/hookbin","args":["stop","--v"]}`, "", false},
		{`{"type":"command","command":"/x/hookbin render"}`, "", false},
		{`{"type":"command","command":"/x/hookbin-dev stop"}`, "", false},
		{`{"type":"command","command":"/x/hookbin"}`, "", false},
		{`{"type":"mcp_tool","command":"/x/hookbin stop"}`, "", false},
		{`{"type":"command","command":"node \"${CLAUDE_PLUGIN_ROOT}/scripts/worker-service.cjs\" hook claude-code session-end"}`, "", false},
		{`"not an object"`, "", false},
		{`{"type":"command","command":"/x/pretooluse"}`, "pre-tool-use", true},
		{`{"type":"command","command":"'/my dir/pretooluse'"}`, "pre-tool-use", true},
		{`{"type":"command","command":"C:/bin/pretooluse.exe"}`, "pre-tool-use", true},
		{`{"type":"command","command":"/x/pretooluse stop"}`, "", false},
		{`{"type":"command","command":"/x/pretooluse","args":["stop"]}`, "", false},
		{`{"type":"command","command":"/x/pretooluse-old"}`, "", false},
	}
	for _, tt := range tests {
		sub, ok := ownSub(json.RawMessage(tt.handler))
		if sub != tt.wantSub || ok != tt.wantOK {
			t.Errorf("ownSub(%s) = %q, %v, want %q, %v", tt.handler, sub, ok, tt.wantSub, tt.wantOK)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/local/bin/hookbin", "/usr/local/bin/hookbin"},
		{"C:/Users/me/bin/hookbin.exe", "C:/Users/me/bin/hookbin.exe"},
		{"/my dir/hookbin", "'/my dir/hookbin'"},
		{"/it's/hookbin", `'/it'\''s/hookbin'`},
	}
	for _, tt := range tests {
		got := shellQuote(tt.in)
		if got != tt.want {
			t.Errorf("shellQuote(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if back := unquote(got); back != tt.in {
			t.Errorf("unquote(%q) = %q, want %q", got, back, tt.in)
		}
		if runtime.GOOS != "windows" {
			if got := HookCommand(tt.in); got != tt.want {
				t.Errorf("HookCommand(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
}

func TestHandlerProg(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("absolute paths differ on Windows")
	}
	tests := []struct{ handler, want string }{
		{`{"command":"/x/hookbin stop"}`, "/x/hookbin"},
		{`{"command":"'/my dir/hookbin' stop"}`, "/my dir/hookbin"},
		{`{"command":"/x/hookbin","args":["stop"]}`, "/x/hookbin"},
		{`{"command":"${HOME}/bin/hookbin session-end"}`, ""},
		{`{"command":"hookbin stop"}`, ""},
		{`{"command":"'/my dir/pretooluse'"}`, "/my dir/pretooluse"},
		{`{"command":"` + "`which hookbin`" + ` stop"}`, ""},
		{`[]`, ""},
	}
	for _, tt := range tests {
		if got := handlerProg(json.RawMessage(tt.handler)); got != tt.want {
			t.Errorf("handlerProg(%s) = %q, want %q", tt.handler, got, tt.want)
		}
	}
}

func TestMatcherMatches(t *testing.T) {
	tests := []struct {
		matcher string
		want    bool
	}{
		{"", true},
		{"*", true},
		{"compact", true},
		{"compact|resume|fork", true},
		{"startup, compact", true},
		{"startup|resume", false},
		{"compacted", false},
		{"comp.*", true},
		{"^start", false},
		{"(", false},
	}
	for _, tt := range tests {
		if got := MatcherMatches(tt.matcher, "compact"); got != tt.want {
			t.Errorf("MatcherMatches(%q, compact) = %v, want %v", tt.matcher, got, tt.want)
		}
	}
}

// TestInstallCleansStaleEntries starts from hand-edited and outdated bottle
// entries: exec form, an old matcher, async, duplicates, a foreign neighbour.
func TestInstallCleansStaleEntries(t *testing.T) {
	m := newMachine(t)
	tg := m.target(t, User)
	writeFile(t, tg.Settings, []byte(`{"hooks":{
	  "SessionStart":[
	    {"matcher":"startup","hooks":[{"type":"command","command":"echo hi"}]},
	    {"matcher":"compact","hooks":[{"type":"command","command":"/old/hookbin","args":["session-start"]}]},
	    {"matcher":"compact|resume|fork","hooks":[
	      {"command":"'/old dir/hookbin' session-start","timeout":10,"async":true,"statusMessage":"bottle"},
	      {"type":"command","command":"echo neighbour"}]}],
	  "Stop":[{"hooks":[{"type":"command","command":"C:/old/hookbin.exe stop"},{"type":"command","command":"/old/hookbin stop"},{"type":"command","command":"/old/hookbin session-start"}]}],
	  "PreCompact":[{"hooks":[{"type":"command","command":"/old/hookbin-helper stop"}]}]}}`))
	hb := "/new/bin/hookbin"
	m.install(t, User, hb)
	want := parse(t, []byte(`{"hooks":{
	  "SessionStart":[
	    {"matcher":"startup","hooks":[{"type":"command","command":"echo hi"}]},
	    {"matcher":"compact|resume|fork","hooks":[
	      {"command":`+js(hb+" session-start")+`,"timeout":10,"statusMessage":"bottle","type":"command"},
	      {"type":"command","command":"echo neighbour"}]}],
	  "Stop":[{"hooks":[{"type":"command","command":`+js(hb+" stop")+`,"timeout":5}]}],
	  "PreCompact":[{"hooks":[{"type":"command","command":"/old/hookbin-helper stop"}]},
	    {"hooks":[{"type":"command","command":`+js(hb+" pre-compact")+`,"timeout":5}]}],
	  "SessionEnd":[{"hooks":[{"type":"command","command":`+js(hb+" session-end")+`,"timeout":2}]}],
	  "PreToolUse":[{"matcher":"^Read$|^mcp__bottle__","hooks":[{"type":"command","command":`+js(hb+" pre-tool-use")+`,"timeout":5}]}]}}`))
	if diff := cmp.Diff(want, parse(t, readFile(t, tg.Settings))); diff != "" {
		t.Errorf("%s (-want +got):\n%s", tg.Settings, diff)
	}
}

// TestInstallNotes: each change to a hook is one note saying what changed.
func TestInstallNotes(t *testing.T) {
	m := newMachine(t)
	tg := m.target(t, User)
	writeFile(t, tg.Settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/hookbin stop","timeout":5},{"type":"command","command":"/old/hookbin stop"}]}],
	  "SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"/old/hookbin session-start"}]}]}}`))
	edits, err := tg.PlanInstall("/bin/hookbin", "/bin/mcpserver")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"- hooks.SessionStart [compact]: /old/hookbin session-start (stale or duplicate)",
		"+ hooks.SessionStart [compact|resume|fork]: /bin/hookbin session-start (timeout 10 s)",
		"~ hooks.Stop: was /old/hookbin stop; now /bin/hookbin stop (timeout 5 s)",
		"- hooks.Stop: /old/hookbin stop (stale or duplicate)",
		"+ hooks.SessionEnd: /bin/hookbin session-end (timeout 2 s)",
		"+ hooks.PreCompact: /bin/hookbin pre-compact (timeout 5 s)",
		"+ hooks.PreToolUse [^Read$|^mcp__bottle__]: /bin/hookbin pre-tool-use (timeout 5 s)",
	}
	if diff := cmp.Diff(want, edits[0].Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestInstallPreToolUseBinary: with bottle's pretooluse beside hookbin,
// install registers it for PreToolUse (it starts in a fraction of hookbin's
// time, before every Read); without it, hookbin pre-tool-use, in place of
// the other, never both.
func TestInstallPreToolUseBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the binaries are Unix paths")
	}
	m := newMachine(t)
	dir := filepath.Join(m.root, "my bin")
	hookbin, fast := filepath.Join(dir, "hookbin"), filepath.Join(dir, "pretooluse")
	writeFile(t, hookbin, []byte("binary"))
	writeFile(t, fast, []byte("binary"))
	for _, p := range []string{hookbin, fast} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	preToolUse := func() []Registration {
		t.Helper()
		regs, _ := Registrations(m.loc.Targets())
		var out []Registration
		for _, r := range regs {
			if r.Event == "PreToolUse" {
				out = append(out, r)
			}
		}
		return out
	}
	m.install(t, User, hookbin)
	got := preToolUse()
	if len(got) != 1 || got[0].Sub != "pre-tool-use" || got[0].Prog != fast || got[0].Command != HookCommand(fast) {
		t.Errorf("with pretooluse beside hookbin: %+v, want one handler running %s", got, fast)
	}
	if err := os.Remove(fast); err != nil {
		t.Fatal(err)
	}
	m.install(t, User, hookbin)
	got = preToolUse()
	if len(got) != 1 || got[0].Prog != hookbin || got[0].Command != HookCommand(hookbin)+" pre-tool-use" {
		t.Errorf("without pretooluse: %+v, want one handler running hookbin pre-tool-use", got)
	}
}
