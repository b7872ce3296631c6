//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseBranch: scripts/release-branch.sh commits a release folder as
// the whole tree of the plugin-release branch, binaries executable, on top
// of the previous release, and tags it with the folder's version; a folder
// that is not a release is refused.
func TestReleaseBranch(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "bottle.git")
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "init", "-q", "--bare", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	release := func(ver string) string {
		t.Helper()
		dir := filepath.Join(root, "dist", "bottle-plugin-"+ver)
		files := map[string]string{
			".claude-plugin/marketplace.json":    `{"name": "bottle", "plugins": [{"name": "bottle", "source": "./plugin", "version": "` + ver + `"}]}`,
			"plugin/.claude-plugin/plugin.json":  `{"name": "bottle", "version": "` + ver + `"}`,
			"plugin/.gitignore":                  "/libexec/\n", // the repository's own ignore rule must not drop the binaries
			"plugin/libexec/linux-amd64/hookbin": "binary " + ver,
		}
		for name, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(filepath.Join(dir, "plugin", "libexec", "linux-amd64", "hookbin"), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	publish := func(dir string) (string, error) {
		out, err := exec.Command("sh", filepath.Join("..", "scripts", "release-branch.sh"), dir, repo).Output()
		return strings.TrimSpace(string(out)), err
	}

	first, err := publish(release("1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := publish(release("1.1.0"))
	if err != nil {
		t.Fatal(err)
	}
	if got := git("rev-parse", "plugin-release"); got != second {
		t.Errorf("plugin-release = %s, want the last commit %s", got, second)
	}
	if got := git("rev-parse", second+"^"); got != first {
		t.Errorf("the second release's parent = %s, want the first %s (users update)", got, first)
	}
	for tag, want := range map[string]string{"plugin-1.0.0": first, "plugin-1.1.0": second} {
		if got := git("rev-parse", tag+"^{commit}"); got != want {
			t.Errorf("tag %s = %s, want %s", tag, got, want)
		}
	}
	tree := git("ls-tree", "-r", "plugin-release")
	for _, want := range []string{"100755 blob", "\tplugin/libexec/linux-amd64/hookbin", "\t.claude-plugin/marketplace.json", "\tplugin/.gitignore"} {
		if !strings.Contains(tree, want) {
			t.Errorf("the branch's tree lacks %q:\n%s", want, tree)
		}
	}
	if got := git("show", "plugin-release:plugin/libexec/linux-amd64/hookbin"); got != "binary 1.1.0" {
		t.Errorf("the branch holds %q, want the last release's binary", got)
	}
	if _, err := publish(t.TempDir()); err == nil {
		t.Error("a folder with no marketplace.json was published")
	}
}

// TestReleaseWorkflow: the release workflow publishes with the two scripts
// the e2e test installs from, on a version tag.
func TestReleaseWorkflow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tags: [\"v*\"]", "scripts/release.sh ", "scripts/release-branch.sh ", "git push origin plugin-release",
		"gh release create", ".sha256", ".tar.gz"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("release.yml lacks %q", want)
		}
	}
}
