//go:build unix

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexPlugin installs bottle as Codex's plugin from a release, as a
// user without Go does: scripts/release.sh's folder on the plugin-release
// branch of a git repository served on 127.0.0.1, "codex plugin
// marketplace add URL --ref plugin-release" and "codex plugin add
// bottle@bottle", then "hookbin trust --host codex"; no hooks.json entry or
// [mcp_servers] table of bottle's. Codex must then run the plugin's hooks (trusted, through the
// plugin's launcher), offer and call its MCP tools as mcp__bottle, and
// doctor must take the plugin for the install.
func TestCodexPlugin(t *testing.T) {
	bin := os.Getenv(codexEnv)
	if bin == "" {
		t.Skipf("set %s to a codex binary (scripts/install-codex.sh 0.171.0 prints one) to run the Codex end-to-end test", codexEnv)
	}
	bins := buildBinaries(t)
	w := newCodexWorld(t, bin, bins, "mock")
	// Plugins need Codex's plugin feature, which also tries to sync
	// OpenAI's curated list: in the loopback-only namespace that fails and
	// nothing leaves the machine.
	config := filepath.Join(w.codexHome, "config.toml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, bytes.Replace(data, []byte("plugins = false"), []byte("plugins = true "), 1), 0o600); err != nil {
		t.Fatal(err)
	}

	// A release as the release workflow publishes it: the plugin-release
	// branch of a git repository, here served on 127.0.0.1.
	url := serveRelease(t, w.root, releaseFolder(t, w.root))
	w.codexCommand("plugin", "marketplace", "add", url, "--ref", releaseBranch)
	if out := w.codexCommand("plugin", "add", "bottle@bottle"); !strings.Contains(out, "Added plugin `bottle`") {
		t.Fatalf("codex plugin add:\n%s", out)
	}
	if out := w.hookbin("trust", "--host", "codex", "--codex", w.codex); !strings.Contains(out, "trusted bottle's 3 hooks") {
		t.Fatalf("trust did not trust the plugin's hooks:\n%s", out)
	}
	if out := w.hookbin("doctor", "--host", "codex", "--codex", w.codex); !strings.Contains(out, "✓ plugin: bottle@bottle") ||
		!strings.Contains(out, "✓ trust: Codex trusts bottle's 3 hooks") || !strings.Contains(out, "✓ MCP server: from the plugin") {
		t.Errorf("doctor does not take the trusted plugin for the install:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(w.codexHome, "hooks.json")); err == nil {
		t.Error("hooks.json exists: the plugin alone must bring the hooks")
	}
	w.runScenario()
}

// codexCommand runs the codex binary with args in the world and returns its
// combined output; it fails the test on a non-zero exit.
func (w *codexWorld) codexCommand(args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.t.Context(), codexStepKill)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.codex, args...)
	cmd.Dir, cmd.Env = w.work, w.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("codex %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
