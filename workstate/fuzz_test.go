package workstate

import (
	"testing"

	"bottle/privacy"
)

// FuzzExitCode: the code leadingExitCode reads from a result's start is
// the one exitCode finds in the whole result stripped.
func FuzzExitCode(f *testing.F) {
	for _, s := range []string{"Exit code 2\nFAIL", "Exit code 1", "Exit code 12<private>x</private>", "Exit code 3 <x>\nExit code 4",
		"ok\nExit code 5\n", "Exit code \n", "Exit code 7<private>\nExit code 8", "<private>a</private>Exit code 9\n"} {
		f.Add(s, uint8(64))
		f.Add(s, uint8(12))
	}
	f.Fuzz(func(t *testing.T, result string, n uint8) {
		head := result[:min(int(n), len(result))]
		code, ok := leadingExitCode(head)
		if !ok {
			return
		}
		m := exitCode().FindStringSubmatch(privacy.Strip(result))
		if m == nil || m[1] != code {
			t.Fatalf("leadingExitCode(%q) = %q, exitCode in the stripped result %q finds %q", head, code, result, m)
		}
	})
}
