package codex

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestHome(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := Home(env(map[string]string{"CODEX_HOME": "/x/codex"}), "/home/u"); got != "/x/codex" {
		t.Errorf("with CODEX_HOME: got %q", got)
	}
	if got := Home(env(nil), "/home/u"); got != filepath.Join("/home/u", ".codex") {
		t.Errorf("default: got %q", got)
	}
	if got := Home(env(nil), ""); got != "" {
		t.Errorf("no home: got %q", got)
	}
}

func TestFind(t *testing.T) {
	const id = "01a23fb3-55a3-7262-b74c-915e409e9fe2"
	const other = "01a23fb3-0000-7262-b74c-915e409e9fe2"
	dated := filepath.Join("sessions", "2026", "12", "04")
	name := "rollout-2026-12-04T06-17-27-" + id + ".jsonl"
	tests := []struct {
		name  string
		files []string // created (a trailing / makes a folder)
		want  string   // relative to home; "" = ErrNoRollout
	}{
		{"plain", []string{filepath.Join(dated, name)}, filepath.Join(dated, name)},
		{"zst only", []string{filepath.Join(dated, name+".zst")}, filepath.Join(dated, name+".zst")},
		{"plain beats zst", []string{filepath.Join(dated, name+".zst"), filepath.Join(dated, name)}, filepath.Join(dated, name)},
		{"archived flat", []string{filepath.Join("archived_sessions", name)}, filepath.Join("archived_sessions", name)},
		{"live beats archived", []string{filepath.Join("archived_sessions", name), filepath.Join(dated, name+".zst")}, filepath.Join(dated, name+".zst")},
		{"another thread", []string{filepath.Join(dated, "rollout-2026-12-04T06-17-27-"+other+".jsonl")}, ""},
		{"id as a prefix of a longer id", []string{filepath.Join(dated, "rollout-2026-12-04T06-17-27-"+id+"0.jsonl")}, ""},
		{"a folder named like a rollout", []string{filepath.Join(dated, name) + "/"}, ""},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(home, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if f[len(f)-1] == '/' {
					if err := os.Mkdir(p, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Find(home, id)
			if tt.want == "" {
				if !errors.Is(err, ErrNoRollout) {
					t.Errorf("got %q, %v; want ErrNoRollout", got, err)
				}
				return
			}
			if err != nil || got != filepath.Join(home, tt.want) {
				t.Errorf("got %q, %v; want %q", got, err, filepath.Join(home, tt.want))
			}
		})
	}
}

func TestFindRefusesBadIDs(t *testing.T) {
	for _, id := range []string{"", "../x", "a/b", "*", "a?b", "a b"} {
		if _, err := Find(t.TempDir(), id); !errors.Is(err, ErrBadThreadID) {
			t.Errorf("Find(%q): got %v, want ErrBadThreadID", id, err)
		}
	}
}

// TestMetaCwd: the working directory of a rollout's session_meta, read
// from its first line, plain or compressed; "" when the first line is no
// session_meta.
func TestMetaCwd(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "tools.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"plain.jsonl":    src,
		"packed.jsonl":   enc.EncodeAll(src, nil),
		"no-meta.jsonl":  []byte(`{"timestamp":"2026-11-20T09:00:00.000Z","type":"turn_context","payload":{"cwd":"/x"}}` + "\n"),
		"empty.jsonl":    nil,
		"one-line.jsonl": bytes.TrimSuffix(src[:bytes.IndexByte(src, '\n')+1], []byte("\n")),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ file, want string }{
		{"plain.jsonl", "/home/dev/shop"},
		{"packed.jsonl", "/home/dev/shop"},
		{"one-line.jsonl", "/home/dev/shop"},
		{"no-meta.jsonl", ""},
		{"empty.jsonl", ""},
	}
	for _, tt := range tests {
		got, err := MetaCwd(filepath.Join(dir, tt.file))
		if err != nil || got != tt.want {
			t.Errorf("MetaCwd(%s) = %q, %v; want %q", tt.file, got, err, tt.want)
		}
	}
	if _, err := MetaCwd(filepath.Join(dir, "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MetaCwd of a missing file: %v, want ErrNotExist", err)
	}
}
