package claudesettings

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRegistrationsAfterInstall: what install writes in each scope is what
// Registrations finds, and uninstall leaves nothing to find.
func TestRegistrationsAfterInstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the binaries are Unix paths")
	}
	for _, scope := range []Scope{User, Project, Local} {
		t.Run(string(scope), func(t *testing.T) {
			m := newMachine(t)
			m.install(t, scope, "/bin/hookbin")
			tg := m.target(t, scope)
			regs, problems := Registrations(m.loc.Targets())
			if len(problems) != 0 {
				t.Errorf("problems %+v", problems)
			}
			var want []Registration
			for _, h := range Hooks() {
				want = append(want, Registration{Scope: scope, File: tg.Settings, Event: h.Event, Matcher: h.Matcher, Sub: h.Sub,
					Command: "/bin/hookbin " + h.Sub, Prog: "/bin/hookbin"})
			}
			server := Registration{Scope: scope, File: tg.MCP, Command: "/bin/mcpserver", Prog: "/bin/mcpserver"}
			if scope == Local {
				server.ProjectKey = tg.ProjectKeys[0]
			}
			want = append(want, server)
			if diff := cmp.Diff(want, regs); diff != "" {
				t.Errorf("Registrations (-want +got):\n%s", diff)
			}

			edits, err := tg.PlanUninstall()
			if err != nil {
				t.Fatal(err)
			}
			commit(t, edits)
			if regs, problems := Registrations(m.loc.Targets()); len(regs) != 0 || len(problems) != 0 {
				t.Errorf("after uninstall: %+v, %+v", regs, problems)
			}
		})
	}
}

// TestRegistrations finds bottle's entries by subcommand and server name in
// hand-written files, and reports the files it cannot read entries from.
func TestRegistrations(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the files name Unix paths")
	}
	m := newMachine(t)
	user, project, local := m.target(t, User), m.target(t, Project), m.target(t, Local)
	key := local.ProjectKeys[0]
	writeFile(t, user.Settings, []byte(`{"disableAllHooks":true,"hooks":{
	  "Stop":[{"hooks":[{"type":"command","command":"echo hi"},{"type":"command","command":"'/my dir/hookbin' stop"}]}],
	  "SessionStart":[{"matcher":"startup","hooks":[{"command":"/x/hookbin","args":["session-start"]}]},
	    {"matcher":7,"hooks":[{"command":"${HOME}/hookbin session-start"}]}, "not a group"],
	  "PreCompact":{"not":"an array"},
	  "SessionEnd":[{"hooks":[{"command":"/x/hookbin render"},{"command":"/x/hookbin-dev session-end"}]}]}}`))
	writeFile(t, project.Settings, []byte(`{"hooks": `))
	writeFile(t, project.MCP, []byte(`{"mcpServers":{"bottle":{"command":"${CLAUDE_PROJECT_DIR:-.}/scripts/mcp.sh"},"other":{"command":"/x/mcpserver"}}}`))
	writeFile(t, user.MCP, []byte(`{"mcpServers":{"bottle":{"type":"stdio","command":"/x/mcpserver","args":[]}},
	  "projects":{"/elsewhere":{"mcpServers":{"bottle":{"command":"/y/mcpserver"}}},`+js(key)+`:{"mcpServers":{"bottle":null}},"/broken":7}}`))
	if err := os.MkdirAll(local.Settings, 0o755); err != nil { // a folder: unreadable
		t.Fatal(err)
	}

	regs, problems := Registrations(m.loc.Targets())
	want := []Registration{
		{Scope: User, File: user.Settings, Event: "Stop", Sub: "stop", Command: "'/my dir/hookbin' stop", Prog: "/my dir/hookbin"},
		{Scope: User, File: user.Settings, Event: "SessionStart", Matcher: "startup", Sub: "session-start", Command: "/x/hookbin session-start", Prog: "/x/hookbin"},
		{Scope: User, File: user.Settings, Event: "SessionStart", Sub: "session-start", Command: "${HOME}/hookbin session-start"},
		{Scope: User, File: user.MCP, Command: "/x/mcpserver", Prog: "/x/mcpserver"},
		{Scope: Project, File: project.MCP, Command: "${CLAUDE_PROJECT_DIR:-.}/scripts/mcp.sh"},
		{Scope: Local, File: local.MCP, ProjectKey: key},
	}
	if diff := cmp.Diff(want, regs); diff != "" {
		t.Errorf("Registrations (-want +got):\n%s", diff)
	}
	wantProblems := []Problem{
		{Scope: User, Path: user.Settings, Settings: true, Kind: HooksDisabled},
		{Scope: Project, Path: project.Settings, Settings: true, Kind: Malformed},
		{Scope: Local, Path: local.Settings, Settings: true, Kind: Unreadable},
	}
	if diff := cmp.Diff(wantProblems, problems, cmpopts.IgnoreFields(Problem{}, "Err")); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	for _, p := range problems {
		if (p.Err == nil) != (p.Kind == HooksDisabled) {
			t.Errorf("problem %+v: Err set for the wrong kind", p)
		}
	}
}

// TestRegistrationsMalformed: a file that is not a settings object holds no
// registrations and is reported as malformed, whatever else it holds.
func TestRegistrationsMalformed(t *testing.T) {
	hook := `[{"hooks":[{"command":"/x/hookbin stop"}]}]`
	tests := []struct{ name, settings, wantErr string }{
		{"Empty", "", "empty file"},
		{"Syntax", `{"hooks":`, "invalid JSON at line 1, column 9"},
		{"SyntaxLine3", "{\n  \"hooks\": {\n    \"Stop\": ]\n}}", "invalid JSON at line 3, column 13: invalid character ']'"},
		{"Array", `[]`, "not a JSON object"},
		{"Null", `null`, "not a JSON object"},
		{"Trailing", `{} {}`, "invalid JSON at line 1, column 4"},
		{"HooksArray", `{"hooks":[]}`, `"hooks" is not a JSON object`},
		{"DisableNotBool", `{"disableAllHooks":"yes","hooks":{"Stop":` + hook + `}}`, "disableAllHooks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(t)
			user := m.target(t, User)
			writeFile(t, user.Settings, []byte(tt.settings))
			regs, problems := Registrations([]Target{user})
			if len(regs) != 0 {
				t.Errorf("registrations %+v", regs)
			}
			if len(problems) != 1 || problems[0].Kind != Malformed || problems[0].Path != user.Settings || problems[0].Err == nil {
				t.Fatalf("problems %+v, want one Malformed", problems)
			}
			if got := problems[0].Err.Error(); !strings.Contains(got, tt.wantErr) {
				t.Errorf("problem = %q, want it to say %q", got, tt.wantErr)
			}
		})
	}
}

func TestTargets(t *testing.T) {
	m := newMachine(t)
	// The project is reached through a symlink: its physical path is the
	// key Claude Code files it under, the path as given the second.
	link := filepath.Join(m.root, "link")
	if err := os.Symlink(m.loc.Project, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	loc := m.loc
	loc.Project = link
	config, cj := loc.ConfigDir, loc.ClaudeJSON
	phys, err := filepath.EvalSymlinks(m.loc.Project)
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{
		{Scope: User, Settings: filepath.Join(config, "settings.json"), MCP: cj, SettingsDirPerm: 0o700, MCPDirPerm: 0o700},
		{Scope: Project, Settings: filepath.Join(link, ".claude", "settings.json"), MCP: filepath.Join(link, ".mcp.json"), SettingsDirPerm: 0o755, MCPDirPerm: 0o755},
		{Scope: Local, Settings: filepath.Join(link, ".claude", "settings.local.json"), MCP: cj,
			ProjectKeys: []string{filepath.ToSlash(phys), filepath.ToSlash(link)}, SettingsDirPerm: 0o755, MCPDirPerm: 0o700},
	}
	if diff := cmp.Diff(want, loc.Targets()); diff != "" {
		t.Errorf("Targets (-want +got):\n%s", diff)
	}
	for _, w := range want {
		if got, err := loc.Target(w.Scope); err != nil || !cmp.Equal(got, w) {
			t.Errorf("Target(%s) = %+v, %v", w.Scope, got, err)
		}
	}

	// Without a project only the user scope has files; without
	// ~/.claude.json its MCP file is unknown.
	bare := Locations{ConfigDir: config}
	if got := bare.Targets(); len(got) != 1 || got[0].Scope != User || got[0].MCP != "" {
		t.Errorf("Targets without project and ~/.claude.json = %+v", got)
	}
	for _, s := range []Scope{User, Project, Local, "global"} {
		if _, err := bare.Target(s); err == nil {
			t.Errorf("Target(%s) succeeded with unknown locations", s)
		}
	}
}
