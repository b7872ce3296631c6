//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenamedBinaries: hooks and server installed from renamed copies
// (install --hookbin/--mcpserver take any path) are bottle's: doctor
// recognises them and uninstall removes them, keeping foreign entries.
func TestRenamedBinaries(t *testing.T) {
	w := newSandbox(t)
	dir := filepath.Join(w.root, "opt")
	hb, ms := filepath.Join(dir, "bh"), filepath.Join(dir, "bottle-server")
	for src, dst := range map[string]string{w.hookbin: hb, w.mcpserver: ms} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, dst, data)
		if err := os.Chmod(dst, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A foreign hook that runs a program with a hook's subcommand name.
	settings := filepath.Join(w.config, "settings.json")
	foreign := filepath.Join(dir, "other-tool")
	mustWrite(t, foreign, []byte("#!/bin/sh\n"))
	mustWrite(t, settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"`+foreign+` stop"}]}]}}`))

	if r := w.cli(t, "install", "--hookbin", hb, "--mcpserver", ms); r.code != 0 {
		t.Fatalf("install: exit %d, stderr %q", r.code, r.stderr)
	}
	r := w.run(t, nil, hb, "doctor")
	for _, want := range []string{"✓ mcpserver: " + ms + " (registered as the MCP server)", "✓ hook Stop → hookbin stop (user: ", "✓ hook SessionStart → hookbin session-start (user: ", "✓ MCP server \"bottle\": registered (user: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor from the renamed copy lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "not registered") || strings.Contains(r.stdout, "✗") {
		t.Errorf("doctor says a hook of the renamed copy is not registered:\n%s", r.stdout)
	}
	if r := w.cli(t, "uninstall"); r.code != 0 {
		t.Fatalf("uninstall: exit %d, stderr %q", r.code, r.stderr)
	}
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), hb) {
		t.Errorf("uninstall left the renamed copy's hooks:\n%s", data)
	}
	if !strings.Contains(string(data), foreign+" stop") {
		t.Errorf("uninstall removed a foreign hook:\n%s", data)
	}
	cj, err := os.ReadFile(filepath.Join(w.home, ".claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cj), ms) {
		t.Errorf("uninstall left the renamed server:\n%s", cj)
	}
}
