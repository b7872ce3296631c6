package claudesettings

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// machine is a scratch machine: a Claude Code config folder, its
// ~/.claude.json and a project folder, under one temp folder.
type machine struct {
	root string
	loc  Locations
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	root := t.TempDir()
	m := &machine{root: root, loc: Locations{
		ConfigDir:  filepath.Join(root, "home", ".claude"),
		ClaudeJSON: filepath.Join(root, "home", ".claude.json"),
		Project:    filepath.Join(root, "project"),
	}}
	if err := os.MkdirAll(m.loc.Project, 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *machine) target(t *testing.T, s Scope) Target {
	t.Helper()
	tg, err := m.loc.Target(s)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// install plans and commits an install of the binaries /bin/hookbin and
// /bin/mcpserver (or hookbin) in scope.
func (m *machine) install(t *testing.T, s Scope, hookbin string) {
	t.Helper()
	edits, err := m.target(t, s).PlanInstall(hookbin, "/bin/mcpserver")
	if err != nil {
		t.Fatal(err)
	}
	commit(t, edits)
}

func commit(t *testing.T, edits []*Edit) {
	t.Helper()
	for _, e := range edits {
		if !e.Changed() {
			continue
		}
		if err := e.Commit(time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parse decodes JSON keeping numbers as written.
func parse(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("parse %s: %v", data, err)
	}
	return v
}

// js is s as a JSON string literal.
func js(s string) string { return string(jsonValue(s)) }

// backups returns the backup files of path.
func backups(t *testing.T, path string) []string {
	t.Helper()
	matches, err := filepath.Glob(path + ".bak-*")
	if err != nil {
		t.Fatal(err)
	}
	return matches
}
