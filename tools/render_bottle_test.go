package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"bottle/locate"
	"bottle/render"
)

const commandsSID = "22222222-3333-4444-8555-666666666666"

func TestRenderBottleCurrentSession(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow.Add(-2*time.Hour))
	newest := f.addTranscript(t, "commands", commandsSID, fixedNow.Add(-time.Hour))
	c := newClient(t, f.deps)

	got := wantOK(t, call(t, c, "render_bottle", map[string]any{}))
	path := f.bottlePath(commandsSID)
	wantContains(t, got,
		"Rendered the bottle of session "+commandsSID+" (current session: the newest transcript of "+f.cwd+")",
		"path: "+path, "mode: full", "turns: ", "tool digests: ", "folded turns: 0", "size: ", "tokens (bytes ÷ 3)",
		"transcript: "+newest, `read_bottle {"session_id":"`+commandsSID+`"}`)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("bottle not written: %v", err)
	}
	if !bytes.HasPrefix(data, []byte("# Session bottle — "+commandsSID)) {
		t.Errorf("bottle starts %q", firstLine(data))
	}
	if want := fmt.Sprintf("size: %s bytes · ~%s tokens", commas(len(data)), commas((len(data)+2)/3)); !strings.Contains(got, want) {
		t.Errorf("result lacks %q:\n%s", want, got)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("bottle mode %v, want 0600", fi.Mode().Perm())
		}
	}
}

func TestRenderBottleGivenSession(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow.Add(-2*time.Hour))
	f.addTranscript(t, "commands", commandsSID, fixedNow.Add(-time.Hour))
	c := newClient(t, f.deps)

	got := wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": basicSID}))
	wantContains(t, got, "session "+basicSID+" (given)", "path: "+f.bottlePath(basicSID))

	// The same bottle as render.Render makes, byte for byte.
	src, err := locate.Find(f.deps.Env, basicSID, "", "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := render.Render(context.Background(), render.Options{SessionID: basicSID, TranscriptPath: src.Transcript,
		DBPath: src.DB, Now: fixedNow, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(f.bottlePath(basicSID))
	if !bytes.Equal(data, res.Markdown) {
		t.Errorf("bottle differs from render.Render's")
	}
}

func TestRenderBottleTranscriptPath(t *testing.T) {
	f := newFixture(t)
	p := f.addTranscript(t, "basic", basicSID, fixedNow)
	c := newClient(t, f.deps)
	rel, err := filepath.Rel(f.deps.Env.ProjectsDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{p, rel} {
		got := wantOK(t, call(t, c, "render_bottle", map[string]any{"transcript_path": arg}))
		wantContains(t, got, "Rendered the bottle of session "+basicSID, "path: "+f.bottlePath(basicSID))
	}
}

// manyTurns is a transcript of n turns, each with long messages.
func manyTurns(n, size int) []byte {
	var b bytes.Buffer
	ts := fixedNow.Add(-24 * time.Hour)
	for i := range n {
		for _, role := range []string{"user", "assistant"} {
			ts = ts.Add(time.Minute)
			text := fmt.Sprintf("%s message %d: %s", role, i+1, strings.Repeat("lorem ipsum ", size/12))
			var content any = text
			msg := map[string]any{"role": role, "content": content}
			if role == "assistant" {
				msg = map[string]any{"role": role, "id": fmt.Sprintf("msg_%d", i), "model": "claude-x",
					"content": []any{map[string]any{"type": "text", "text": text}}}
			}
			line, _ := json.Marshal(map[string]any{"type": role, "uuid": fmt.Sprintf("u-%s-%d", role, i),
				"sessionId": "33333333-4444-4555-8666-777777777777", "cwd": "/home/dev/proj",
				"timestamp": ts.Format(time.RFC3339), "isSidechain": false, "message": msg})
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func TestRenderBottleBudget(t *testing.T) {
	const id = "33333333-4444-4555-8666-777777777777"
	f := newFixture(t)
	f.writeTranscript(t, id, manyTurns(40, 3000), fixedNow) // ~240 KB: over the default budget
	c := newClient(t, f.deps)

	render := func(args map[string]any) (string, []byte) {
		args["session_id"] = id
		got := wantOK(t, call(t, c, "render_bottle", args))
		data, err := os.ReadFile(f.bottlePath(id))
		if err != nil {
			t.Fatal(err)
		}
		return got, data
	}
	def, defData := render(map[string]any{})
	if strings.Contains(def, "folded turns: 0") {
		t.Errorf("default budget folded nothing:\n%s", def)
	}
	all, allData := render(map[string]any{"budget_tokens": 0})
	wantContains(t, all, "folded turns: 0", "page it with read_bottle")
	if len(allData) <= len(defData) {
		t.Errorf("budget_tokens 0 gave %d bytes, default %d; want everything", len(allData), len(defData))
	}
	for i := range 40 {
		if want := fmt.Sprintf("user message %d: ", i+1); !bytes.Contains(allData, []byte(want)) {
			t.Fatalf("budget_tokens 0 bottle lacks %q", want)
		}
	}
	small, _ := render(map[string]any{"budget_tokens": 5000})
	if strings.Contains(small, "folded turns: 0") {
		t.Errorf("budget_tokens 5000 folded nothing:\n%s", small)
	}
}

func TestRenderBottleErrors(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	c := newClient(t, f.deps)

	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"UnknownSession", map[string]any{"session_id": "99999999-0000-4000-8000-000000000000"},
			[]string{"Nothing to render", "Known sessions of this project", basicSID + " (transcript"}},
		{"BadIDDotDot", map[string]any{"session_id": "../../etc/passwd"}, []string{"invalid session_id"}},
		{"BadIDSlash", map[string]any{"session_id": "a/b"}, []string{"invalid session_id"}},
		{"BadIDType", map[string]any{"session_id": 42}, []string{"session_id must be a string"}},
		{"NegativeBudget", map[string]any{"budget_tokens": -5}, []string{"budget_tokens must be 0"}},
		{"FractionalBudget", map[string]any{"budget_tokens": 1.5}, []string{"budget_tokens must be an integer"}},
		{"TextBudget", map[string]any{"budget_tokens": "lots"}, []string{"budget_tokens must be an integer"}},
		{"UnknownArgument", map[string]any{"sessionId": basicSID}, []string{`unknown argument(s) "sessionId"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, c, "render_bottle", tt.args), tt.want...)
		})
	}
	t.Run("NotAnObject", func(t *testing.T) {
		wantError(t, call(t, c, "render_bottle", []any{1}), "arguments must be a JSON object")
	})
}

func TestRenderBottleNoCurrentSession(t *testing.T) {
	f := newFixture(t)
	c := newClient(t, f.deps)
	wantError(t, call(t, c, "render_bottle", nil),
		"No session_id given and no current session", "No sessions of this project")
}

func TestRenderBottleUnwritable(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	f.vars["BOTTLE_DIR"] = filepath.Join(blocker, "bottles") // a folder under a file
	c := newClient(t, f.deps)
	wantError(t, call(t, c, "render_bottle", map[string]any{"session_id": basicSID}),
		"could not write its bottle", "BOTTLE_DIR")
}

// TestConfinement: no argument makes a tool read a transcript outside
// <config>/projects/.
func TestConfinement(t *testing.T) {
	f := newFixture(t)
	inside := f.addTranscript(t, "basic", basicSID, fixedNow)
	data, _ := os.ReadFile(inside)
	outsideDir := t.TempDir()
	outside := filepath.Join(outsideDir, "44444444-0000-4000-8000-000000000000.jsonl")
	os.WriteFile(outside, data, 0o600)
	os.MkdirAll(filepath.Join(f.projDir, "dir.jsonl"), 0o700)
	os.WriteFile(filepath.Join(f.projDir, "notes.txt"), data, 0o600)
	c := newClient(t, f.deps)

	tests := []struct {
		name, path string
		want       []string
	}{
		{"DotDot", "../../../" + filepath.Base(outsideDir) + "/x.jsonl", []string{"transcript_path"}},
		{"DotDotToExisting", filepath.Join(f.projDir, "..", "..", "..", "..", mustRel(t, filepath.Dir(f.home), outside)),
			[]string{"refused", "outside Claude Code's projects folder"}},
		{"AbsoluteElsewhere", outside, []string{"refused", "outside"}},
		{"NotJSONL", filepath.Join(f.projDir, "notes.txt"), []string{"refused", ".jsonl"}},
		{"Directory", filepath.Join(f.projDir, "dir.jsonl"), []string{"refused", "not a regular file"}},
		{"Missing", filepath.Join(f.projDir, "nope.jsonl"), []string{"not found"}},
		{"ProjectsDirItself", f.deps.Env.ProjectsDir() + ".jsonl", []string{"transcript_path"}},
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(f.projDir, "55555555-0000-4000-8000-000000000000.jsonl")
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		linkedProject := filepath.Join(f.deps.Env.ProjectsDir(), "-linked")
		if err := os.Symlink(outsideDir, linkedProject); err != nil {
			t.Fatal(err)
		}
		tests = append(tests,
			struct {
				name, path string
				want       []string
			}{"SymlinkOut", link, []string{"refused", "outside"}},
			struct {
				name, path string
				want       []string
			}{"SymlinkedProjectDir", filepath.Join(linkedProject, filepath.Base(outside)), []string{"refused", "outside"}},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, c, "render_bottle", map[string]any{"transcript_path": tt.path}), tt.want...)
		})
	}
	if _, err := os.Stat(f.bottlePath("44444444-0000-4000-8000-000000000000")); err == nil {
		t.Error("a bottle of the outside transcript was written")
	}

	t.Run("SessionIDWithSymlinkedTranscript", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("symlinks need privileges on Windows")
		}
		// locate.Transcript ignores symlinks: the session has no transcript.
		wantError(t, call(t, c, "render_bottle", map[string]any{"session_id": "55555555-0000-4000-8000-000000000000"}),
			"Nothing to render")
		wantError(t, call(t, c, "read_bottle", map[string]any{"session_id": "55555555-0000-4000-8000-000000000000"}),
			"Nothing to render")
	})
	t.Run("ReadBottleSymlink", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("symlinks need privileges on Windows")
		}
		os.MkdirAll(f.deps.Env.BottlesDir(), 0o700)
		if err := os.Symlink(outside, f.bottlePath("66666666-0000-4000-8000-000000000000")); err != nil {
			t.Fatal(err)
		}
		wantError(t, call(t, c, "read_bottle", map[string]any{"session_id": "66666666-0000-4000-8000-000000000000"}),
			"not a regular file")
	})
	t.Run("ReadBottleBadID", func(t *testing.T) {
		for _, id := range []string{"../x", "a/b", `a\b`, "..", ".hidden", strings.Repeat("a", 129)} {
			wantError(t, call(t, c, "read_bottle", map[string]any{"session_id": id}), "invalid session_id")
		}
	})
}

func mustRel(t *testing.T, base, target string) string {
	t.Helper()
	r, err := filepath.Rel(base, target)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}
