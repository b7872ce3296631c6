package digest

import (
	"strings"
	"testing"
)

// TestShort pins the short forms a bottle's budget picks, from a line's
// parts: a path keeps its end (its file name at the shortest level), a
// command or a text its start, a search leaves its folder out before it
// cuts its pattern; an outcome keeps its count or exit code.
func TestShort(t *testing.T) {
	read := func(path, rng, outcome string) Parts {
		return Parts{Tool: "Read", Kind: KindPath, Subject: path, Range: rng, Outcome: outcome}
	}
	bash := func(cmd, outcome, status string) Parts {
		return Parts{Tool: "Bash", Kind: KindCommand, Subject: cmd, Outcome: outcome, Status: status}
	}
	edit := func(path string) Parts { return Parts{Tool: "Edit", Kind: KindPath, Subject: path} }
	grep := func(pattern, scope, note, outcome string, paths ...string) Parts {
		return Parts{Tool: "Grep", Kind: KindPattern, Subject: pattern, Scope: scope, Note: note, Outcome: outcome, Paths: paths, Max: MaxPathListRunes}
	}
	tests := []struct {
		line  Parts
		level ShortLevel
		want  string
	}{
		{read("render/bottle.go", "1-212", "212 lines"), Short, "Read: render/bottle.go — 212 lines"},
		{read("render/bottle.go", "1-212", "212 lines"), Shortest, "Read: bottle.go — 212 lines"},
		{read("render/bottle.go", "120-180", "61 lines"), Short, "Read: render/bottle.go:120-180"},
		{read("render/bottle.go", "120-180", "20 lines"), Shortest, "Read: bottle.go:120-180 — 20 lines"},
		{read("render/bottle.go", "120-x", "20 lines"), Short, "Read: render/bottle.go:120-x — 20 lines"},
		{read("README.md", "1", "1 line"), Short, "Read: README.md — 1 line"},
		{read("a.go", "14", "1 line"), Shortest, "Read: a.go:14 — 1 line"},
		{bash("go test ./...", "exit 1: a_test.go:9: got 2", "exit 1"), Short, "Bash: go test ./... — exit 1"},
		{grep(`"TODO"`, "", "", "9 files", "a.go", "b.go"), Short, `Grep: "TODO" — 9 files`},
		{Parts{Tool: "Glob", Kind: KindPattern, Subject: "**/*.go", Outcome: "3 files, truncated", Paths: []string{"a.go", "b.go", "c.go"}}, Short, "Glob: **/*.go — 3 files, truncated"},
		{read("render/x.go", "", "error: File does not exist."), Shortest, "Read: x.go — error: File does not exist."},
		{Parts{Tool: "EnterPlanMode"}, Short, "EnterPlanMode"},
		{bash("echo a:1", "ok", ""), Short, "Bash: echo a:1"},
		{bash("echo a:1", "exit 0", ""), Short, "Bash: echo a:1 — exit 0"},
		// A command keeps 40 runes, then 28.
		{bash("go build -o ./entire ./cmd/entire && time ./entire help", "ok", ""), Short, "Bash: go build -o ./entire ./cmd/entire && tim…"},
		{bash("go build -o ./entire ./cmd/entire && time ./entire help", "ok", ""), Shortest, "Bash: go build -o ./entire ./cmd/…"},
		{bash("mise run lint 2>&1 | head -80", "exit 1", ""), Shortest, "Bash: mise run lint 2>&1 | head -… — exit 1"},
		// A path keeps its last 60 runes, then its last element.
		{edit(strings.Repeat("deep/", 20) + "file.go"), Short, "Edit: …/deep/deep/deep/deep/deep/deep/deep/deep/deep/deep/file.go"},
		{edit("cmd/entire/cli/telemetry/telemetry.go"), Short, "Edit: cmd/entire/cli/telemetry/telemetry.go"},
		{edit("cmd/entire/cli/telemetry/telemetry.go"), Shortest, "Edit: telemetry.go"},
		// A path with a space is a path all the same.
		{read("/Users/me/Library/Application Support/Code/User/settings.json", "1-40", "40 lines"), Shortest, "Read: settings.json — 40 lines"},
		{read("/Users/me/Library/Application Support/Code/User/settings.json", "1-40", "40 lines"), Short, "Read: …/me/Library/Application Support/Code/User/settings.json — 40 lines"},
		// A search over its room leaves its folder out rather than cut it.
		{grep(`"func.*findSessionsForWorktree"`, "cmd/entire/cli/strategy", "", "31 lines in 1 file", "cmd/entire/cli/strategy/s.go"), Short, `Grep: "func.*findSessionsForWorktree" — 31 lines in 1 file`},
		{grep(`"LoadSessionState|SaveState"`, "cmd/entire/cli", " (*.go)", "4 files", "a.go"), Short, `Grep: "LoadSessionState|SaveState" (*.go) — 4 files`},
		{grep(`"TODO"`, "cmd/entire/cli", "", "9 files", "a.go"), Short, `Grep: "TODO" in cmd/entire/cli — 9 files`},
		{grep(`"is it in the pattern or not"`, "", "", "2 files", "a.go"), Shortest, `Grep: "is it in the pattern or no… — 2 files`},
		{Parts{Tool: "Glob", Kind: KindPattern, Subject: "**/*_integration_test.go", Scope: "cmd/entire/cli/strategy", Outcome: "3 files", Paths: []string{"a.go"}}, Short, "Glob: **/*_integration_test.go — 3 files"},
	}
	for _, tt := range tests {
		l := tt.line.Line()
		if got := l.Short(tt.level); got != tt.want {
			t.Errorf("%q.Short(%d) = %q, want %q", l.Full(), tt.level, got, tt.want)
		}
	}
}

// TestKey: lines that show one path share a key whatever their tools and
// ranges; other lines share one when their short forms do.
func TestKey(t *testing.T) {
	read := Parts{Tool: "Read", Kind: KindPath, Subject: "a b/c.go", Range: "10-20", Outcome: "11 lines"}.Line()
	edit := Parts{Tool: "Edit", Kind: KindPath, Subject: "a b/c.go", Note: " (replace all)"}.Line()
	other := Parts{Tool: "Edit", Kind: KindPath, Subject: "a b/d.go"}.Line()
	cmd1 := Parts{Tool: "Bash", Kind: KindCommand, Subject: "go test ./... -run TestVeryLongNameThatGoesOnAndOn", Outcome: "ok"}.Line()
	cmd2 := Parts{Tool: "Bash", Kind: KindCommand, Subject: "go test ./... -run TestVeryLongNameThatGoesOnAndOnAndOn", Outcome: "exit 1"}.Line()
	if read.Key() != edit.Key() {
		t.Errorf("keys of one path differ: %q, %q", read.Key(), edit.Key())
	}
	if edit.Key() == other.Key() {
		t.Errorf("keys of two paths are one: %q", edit.Key())
	}
	if cmd1.Key() != cmd2.Key() {
		t.Errorf("keys of commands of one short form differ: %q, %q", cmd1.Key(), cmd2.Key())
	}
}

// TestDescribersOnce: each tool has one describer, in one family's file.
func TestDescribersOnce(t *testing.T) {
	families := []map[string]describer{fileTools, shellTools, searchTools, agentTools, webTools, interactionTools, otherTools}
	seen := map[string]int{}
	for i, f := range families {
		for name := range f {
			if j, ok := seen[name]; ok {
				t.Errorf("%s has a describer in families %d and %d", name, j, i)
			}
			seen[name] = i
		}
	}
	if len(describers) != len(seen) {
		t.Errorf("describers holds %d tools, the families %d", len(describers), len(seen))
	}
}
