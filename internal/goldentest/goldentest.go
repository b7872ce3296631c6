// Package goldentest compares test output with golden files under a
// package's testdata/, or rewrites them when a test runs with its -update
// flag (each test package declares that flag: a flag declared here would
// clash with one a test package already has).
//
// It is a test helper: only _test files import it. It imports no package
// of the module.
package goldentest

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Check compares got with the file at path, or writes got there when
// update is set.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file %s (run the test with -update): %v", path, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
