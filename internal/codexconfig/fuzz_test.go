package codexconfig

import (
	"bytes"
	"testing"
)

// FuzzInstallServer: on any config.toml, an install either refuses or
// writes a file that parses, registers bottle's server, keeps every byte
// before bottle's table, and is left unchanged by a second install; an
// uninstall of it then removes the server.
func FuzzInstallServer(f *testing.F) {
	for _, s := range []string{
		"", "model = \"o3\"\n", "# c\r\n[tui]\r\nx = 1\r\n",
		"[mcp_servers.bottle]\ncommand = \"/old\"\n[mcp_servers.bottle.env]\nX = \"1\"\n# next\n[a]\nb = 1\n",
		"s = \"\"\"\n[mcp_servers.bottle]\n\"\"\"\n", "[[arr]]\nx = 1\n[[arr]]\nx = 2\n",
		"[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:x\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, err := InstallServer(data, srv)
		if err != nil {
			return
		}
		if cmd, err := ServerCommand(out); err != nil || cmd != srv {
			t.Fatalf("installed file does not register the server: %q, %v\n%q", cmd, err, out)
		}
		if i := bytes.Index(data, []byte("[mcp_servers.bottle")); i < 0 && !bytes.HasPrefix(out, data) {
			t.Fatalf("a file without bottle's table lost bytes:\n%q\n%q", data, out)
		}
		again, notes, err := InstallServer(out, srv)
		if err != nil || !bytes.Equal(again, out) || len(notes) != 0 {
			t.Fatalf("second install changed the file (%v, %v):\n%q\n%q", notes, err, out, again)
		}
		back, _, err := UninstallServer(out)
		if err != nil {
			t.Fatalf("uninstall of an installed file: %v\n%q", err, out)
		}
		if cmd, _ := ServerCommand(back); cmd != "" {
			t.Fatalf("uninstall left %q", cmd)
		}
	})
}
