//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoBuildLocations runs the real hookbin from where the go command puts
// the binaries it runs: the work folder of a first "go run"
// (<tmp>/go-build…/b001/exe/, deleted on exit) and the build cache entry
// that a repeated "go run" runs ($GOCACHE/ab/<hex>-d/, deleted by "go clean
// -cache"). install refuses both, run from there or pointed there with
// --hookbin, and doctor flags hooks registered there.
func TestGoBuildLocations(t *testing.T) {
	hb, ms := binaries(t)
	for _, place := range []struct{ name, dir, says string }{
		{"GoRun", "tmp/go-build123/b001/exe", `temporary "go run" build`},
		{"Cache", "gocache/" + cacheEntry, `"go run" binary in Go's build cache`},
	} {
		t.Run(place.name, func(t *testing.T) {
			w := newSandbox(t)
			w.env["GOCACHE"] = filepath.Join(w.root, "gocache")
			dir := filepath.Join(w.root, filepath.FromSlash(place.dir))
			built := filepath.Join(dir, "hookbin")
			for _, b := range []string{hb, ms} {
				data, err := os.ReadFile(b)
				if err != nil {
					t.Fatal(err)
				}
				mustMkdir(t, dir)
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(b)), data, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			settings := filepath.Join(w.config, "settings.json")

			for _, argv := range [][]string{{built, "install"}, {hb, "install", "--hookbin", built}} {
				r := w.run(t, nil, argv...)
				if r.code != 1 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, place.says) ||
					!strings.Contains(r.stderr, "go build -o bin/ ./hookbin ./mcpserver") || r.stdout != "" {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and one line saying %q", argv, r.code, r.stdout, r.stderr, place.says)
				}
				if _, err := os.Stat(settings); err == nil {
					t.Fatalf("%q wrote %s", argv, settings)
				}
			}

			// The test's binaries live in the temporary folder too: that
			// is allowed, with a warning.
			r := w.cli(t, "install")
			if r.code != 0 || !strings.Contains(r.stderr, "warning: hookbin "+hb+" is in the temporary folder") {
				t.Fatalf("install: exit %d, stderr %q; want 0 and a warning", r.code, r.stderr)
			}
			data, err := os.ReadFile(settings)
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, settings, []byte(strings.ReplaceAll(string(data), hb, built)))
			for _, doctor := range []string{hb, built} {
				r := w.run(t, nil, doctor, "doctor")
				for _, ev := range []string{"SessionStart", "Stop", "SessionEnd"} {
					if l := line(strings.Split(r.stdout, "\n"), "hook "+ev+" "); !strings.HasPrefix(l, "! ") || !strings.Contains(l, built+", a") || !strings.Contains(l, place.says) {
						t.Errorf("%s doctor: hook %s line %q, want a warning that it runs %s", doctor, ev, l, built)
					}
				}
				if doctor == built && !strings.HasPrefix(r.stdout, "! hookbin: "+built+" is a") {
					t.Errorf("doctor run from %s does not flag itself:\n%s", built, r.stdout)
				}
			}
		})
	}
}
