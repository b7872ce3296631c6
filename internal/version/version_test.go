package version

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestString(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = ""
	if got := String(); got != "dev" {
		t.Errorf("String() = %q without -X or a module version, want dev (a test binary's main module is (devel))", got)
	}
	version = "1.2.3"
	if got := String(); got != "1.2.3" {
		t.Errorf("String() = %q with version set, want 1.2.3", got)
	}
}

// TestReleaseSetsVersion: scripts/release.sh sets this package's variable,
// so a release binary reports the release's version, not "dev".
func TestReleaseSetsVersion(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "release.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-X ([\w./-]+)=\$`).FindAllSubmatch(script, -1)
	if len(m) != 1 || string(m[0][1]) != "bottle/internal/version.version" {
		t.Errorf("scripts/release.sh sets %q with -X, want bottle/internal/version.version once", m)
	}
}
