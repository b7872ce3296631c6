package codexconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const srv = "/opt/bottle/bin/mcpserver"

func TestInstallServer(t *testing.T) {
	block := "[mcp_servers.bottle]\ncommand = \"" + srv + "\"\nargs = [\"--host\", \"codex\"]\ntool_timeout_sec = 120\n"
	tests := []struct {
		name string
		in   string
		want string // "" = unchanged
		err  string // a substring of the one-line refusal
	}{
		{name: "new file", in: "", want: block},
		{name: "foreign tables and comments kept byte for byte",
			in:   "# my config\nmodel = \"o3\"   # trailing\n\n[mcp_servers.other]\ncommand = 'x'\n\n# about profiles\n[profiles.fast]\nmodel = \"o4\"\n",
			want: "# my config\nmodel = \"o3\"   # trailing\n\n[mcp_servers.other]\ncommand = 'x'\n\n# about profiles\n[profiles.fast]\nmodel = \"o4\"\n\n" + block},
		{name: "no final newline", in: "model = \"o3\"", want: "model = \"o3\"\n\n" + block},
		{name: "CRLF kept",
			in:   "model = \"o3\"\r\n[tui]\r\nx = 1\r\n",
			want: "model = \"o3\"\r\n[tui]\r\nx = 1\r\n\r\n" + strings.ReplaceAll(block, "\n", "\r\n")},
		{name: "existing bottle table replaced in place, comment before the next table kept",
			in:   "a = 1\n\n[mcp_servers.bottle]\ncommand = \"/old/mcpserver\"\nenv = { X = \"1\" }\n\n# next\n[tui]\nx = 1\n",
			want: "a = 1\n\n" + block + "\n# next\n[tui]\nx = 1\n"},
		{name: "sub-table of bottle's server goes with it",
			in:   "[mcp_servers.bottle]\ncommand = \"/old\"\n[mcp_servers.bottle.env]\nX = \"1\"\n[tui]\nx = 1\n",
			want: block + "[tui]\nx = 1\n"},
		{name: "already installed", in: "a = 1\n\n" + block},
		{name: "a header inside a multi-line string is no table",
			in:   "notes = \"\"\"\n[mcp_servers.bottle]\ncommand = \"fake\"\n\"\"\"\n",
			want: "notes = \"\"\"\n[mcp_servers.bottle]\ncommand = \"fake\"\n\"\"\"\n\n" + block},
		{name: "malformed refused", in: "model = \n[x", err: "invalid TOML at line 1"},
		{name: "server defined inline refused", in: "[mcp_servers]\nbottle = { command = \"x\" }\n", err: "outside a [mcp_servers.bottle] table"},
		{name: "server as dotted keys refused", in: "mcp_servers.bottle.command = \"x\"\n", err: "outside a [mcp_servers.bottle] table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes, err := InstallServer([]byte(tt.in), srv)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("got error %v, want one line with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.in
				if len(notes) != 0 {
					t.Errorf("unchanged file, but notes %q", notes)
				}
			}
			if string(got) != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
			again, notes2, err := InstallServer(got, srv)
			if err != nil || string(again) != string(got) || len(notes2) != 0 {
				t.Errorf("second install changed the file: %q, %v, %v", again, notes2, err)
			}
			back, _, err := UninstallServer(got)
			if err != nil {
				t.Fatal(err)
			}
			if c, _ := ServerCommand(back); c != "" {
				t.Errorf("uninstall left %q", c)
			}
			if tt.name == "foreign tables and comments kept byte for byte" && string(back) != tt.in {
				t.Errorf("uninstall did not restore the file:\n%q\nwant\n%q", back, tt.in)
			}
		})
	}
}

func TestSetTrust(t *testing.T) {
	in := "# keep\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:foreign\"\n"
	entries := []Trust{{Key: "/h/hooks.json:session_start:1:0", Hash: "sha256:aa"}}
	got, notes, err := SetTrust([]byte(in), entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), in) || len(notes) != 1 {
		t.Errorf("foreign trust not kept, or notes %q:\n%s", notes, got)
	}
	hashes, err := TrustedHashes(got)
	if err != nil || hashes["/h/hooks.json:session_start:1:0"] != "sha256:aa" || hashes["/h/hooks.json:stop:0:0"] != "sha256:foreign" {
		t.Errorf("got %v, %v", hashes, err)
	}
	again, notes, err := SetTrust(got, entries, nil)
	if err != nil || string(again) != string(got) || len(notes) != 0 {
		t.Errorf("second SetTrust changed the file: %v %v", notes, err)
	}
	back, _, err := SetTrust(got, nil, []string{"/h/hooks.json:session_start:1:0"})
	if err != nil || string(back) != in {
		t.Errorf("drop did not restore:\n%q\nwant\n%q (%v)", back, in, err)
	}
}

// TestSetTrustPlugin: a plugin hook's two hashes are written as Codex keeps
// them, and read back in hooks/list's form.
func TestSetTrustPlugin(t *testing.T) {
	const key = "bottle@bottle:hooks/codex-hooks.json:stop:0:0"
	got, _, err := SetTrust(nil, []Trust{{Key: key, Hash: "sha256:hook/sha256:bundle"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "[hooks.state.\"" + key + "\"]\ntrusted_hash = \"sha256:hook\"\ntrusted_content_hash = \"sha256:bundle\"\n"
	if string(got) != want {
		t.Errorf("SetTrust wrote\n%s\nwant\n%s", got, want)
	}
	hashes, err := TrustedHashes(got)
	if err != nil || hashes[key] != "sha256:hook/sha256:bundle" {
		t.Errorf("TrustedHashes = %v, %v; want the two hashes joined", hashes, err)
	}
}

func TestInstallHooks(t *testing.T) {
	const hb = "/opt/bottle/bin/hookbin"
	foreign := `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"python3 mine.py"}]}],"PreToolUse":[{"hooks":[{"type":"command","command":"lint"}]}]},"x":1}`
	tests := []struct {
		name, in string
		err      string
	}{
		{name: "new file", in: ""},
		{name: "foreign hooks kept", in: foreign},
		{name: "malformed refused", in: `{"hooks":`, err: "invalid JSON"},
		{name: "not an object refused", in: `[1]`, err: "not a JSON object"},
		{name: "event not an array refused", in: `{"hooks":{"Stop":{}}}`, err: "hooks.Stop is not a JSON array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := InstallHooks([]byte(tt.in), hb)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			own, err := OwnHooks(got)
			if err != nil || len(own) != len(Hooks) {
				t.Fatalf("got %d own hooks (%v), want %d:\n%s", len(own), err, len(Hooks), got)
			}
			s := string(got)
			for _, want := range []string{`"additionalContextLimit": 0`, `"matcher": "compact|resume"`, hb + ` session-start --host codex`} {
				if !strings.Contains(s, want) {
					t.Errorf("missing %s in\n%s", want, s)
				}
			}
			if tt.in == foreign {
				for _, want := range []string{"python3 mine.py", `"lint"`, `"x": 1`, `"matcher": "startup"`} {
					if !strings.Contains(s, want) {
						t.Errorf("foreign %s lost:\n%s", want, s)
					}
				}
			}
			again, notes, err := InstallHooks(got, hb)
			if err != nil || string(again) != s || len(notes) != 0 {
				t.Errorf("second install changed the file (%v, %v)", notes, err)
			}
			back, _, err := UninstallHooks(got)
			if err != nil {
				t.Fatal(err)
			}
			if own, _ := OwnHooks(back); len(own) != 0 {
				t.Errorf("uninstall left %v", own)
			}
			if tt.in == foreign && string(canonical(back)) != string(canonical([]byte(foreign))) {
				t.Errorf("uninstall did not restore the foreign hooks:\n%s", back)
			}
		})
	}
}

func TestHookKey(t *testing.T) {
	if got := (HookKey{"SessionStart", 1, 0}).Key("/h/hooks.json"); got != "/h/hooks.json:session_start:1:0" {
		t.Errorf("got %q", got)
	}
}

// TestInstallServerSpellings: bottle's table is recognised however its
// header is spelled.
func TestInstallServerSpellings(t *testing.T) {
	for _, in := range []string{
		"[mcp_servers.\"bottle\"]\ncommand = \"/old\"\n",
		"[ mcp_servers . bottle ]   # mine\ncommand = \"/old\"",
		"['mcp_servers'.'bottle']\r\ncommand = \"/old\"\r\n",
	} {
		got, _, err := InstallServer([]byte(in), srv)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if cmd, _ := ServerCommand(got); cmd != srv || strings.Count(string(got), "mcp_servers") != 1 {
			t.Errorf("%q became %q", in, got)
		}
	}
}

// TestPluginHooks holds the Codex plugin's hooks file to the hooks install
// registers: the same events, matchers, timeouts and context limit, run
// through the plugin's launcher.
func TestPluginHooks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "plugin", "hooks", "codex-hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Hooks) != len(Hooks) {
		t.Errorf("plugin has %d events, install registers %d", len(file.Hooks), len(Hooks))
	}
	const launcher = `sh "${PLUGIN_ROOT}/bin/bottle-run" hookbin`
	for _, hk := range Hooks {
		groups := file.Hooks[hk.Event]
		if len(groups) != 1 {
			t.Errorf("%s: %d groups in the plugin, want 1", hk.Event, len(groups))
			continue
		}
		if got, want := canonical(groups[0]), canonical(groupFor(hk, launcher)); !bytes.Equal(got, want) {
			t.Errorf("%s: plugin group\n%s\nwant\n%s", hk.Event, got, want)
		}
	}
	own, err := OwnHooks(data)
	if err != nil || len(own) != len(Hooks) {
		t.Errorf("OwnHooks finds %d of the plugin's hooks (%v), want %d", len(own), err, len(Hooks))
	}
}

// TestFindPlugin: bottle's plugin, enabled in config.toml and unpacked in
// Codex's cache, is found with the trust keys Codex gives its hooks.
func TestFindPlugin(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "cache", "mk", "bottle", "1.2.3")
	for _, f := range []string{".codex-plugin/plugin.json", "hooks/codex-hooks.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "plugin", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, config string
		want         bool
	}{
		{"enabled", "[plugins.\"bottle@mk\"]\nenabled = true\n", true},
		{"disabled", "[plugins.\"bottle@mk\"]\nenabled = false\n", false},
		{"other marketplace", "[plugins.\"bottle@other\"]\nenabled = true\n", false},
		{"other plugin", "[plugins.\"bottles@mk\"]\nenabled = true\n", false},
		{"none", "", false},
	}
	for _, tt := range tests {
		p, ok, err := FindPlugin(home, []byte(tt.config))
		if err != nil || ok != tt.want {
			t.Errorf("%s: FindPlugin = %v, %v; want %v", tt.name, ok, err, tt.want)
			continue
		}
		if !ok {
			continue
		}
		want := []string{
			"bottle@mk:hooks/codex-hooks.json:session_start:0:0",
			"bottle@mk:hooks/codex-hooks.json:stop:0:0",
			"bottle@mk:hooks/codex-hooks.json:session_end:0:0",
		}
		if p.ID != "bottle@mk" || p.Version != "1.2.3" || p.Dir != dir || strings.Join(p.HookKeys, " ") != strings.Join(want, " ") {
			t.Errorf("%s: got %+v, want id bottle@mk, version 1.2.3, keys %v", tt.name, p, want)
		}
	}
}

// TestServerHostFlag: the server install writes is started with --host
// codex; one registered before the flag, or by hand without it, is not.
func TestServerHostFlag(t *testing.T) {
	installed, _, err := InstallServer(nil, srv)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"installed", string(installed), true},
		{"before the flag", "[mcp_servers.bottle]\ncommand = \"" + srv + "\"\ntool_timeout_sec = 120\n", false},
		{"other args", "[mcp_servers.bottle]\ncommand = \"x\"\nargs = [\"--host\"]\n", false},
		{"no server", "model = \"o3\"\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ServerHostFlag([]byte(tt.in))
			if err != nil || got != tt.want {
				t.Errorf("ServerHostFlag = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
