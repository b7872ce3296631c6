package corpustest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// recorder stands in for a test: it records how Find and Dir end it and,
// like a test, stops the goroutine there.
type recorder struct {
	testing.TB
	ended string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.ended = "fail: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.ended = "skip: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls f with r as its test, in a goroutine of its own as the testing
// package would.
func (r *recorder) run(f func(testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

func TestAbsentCorpus(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-corpus")
	tests := []struct {
		name, ci string
		want     string // how the test ends: "skip" or "fail"
	}{
		{"without CI a corpus test skips", "", "skip"},
		{"with CI a corpus test fails", "1", "fail"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("BOTTLE_CORPUS", missing)
			t.Setenv("CI", tc.ci)
			// Its own notes file: this skip is no skip of the run's.
			notes := filepath.Join(t.TempDir(), "skips")
			t.Setenv(SkipsEnv, notes)
			r := &recorder{TB: t}
			r.run(func(tb testing.TB) { Dir(tb) })
			if got := r.ended; len(got) < 4 || got[:4] != tc.want {
				t.Errorf("Dir ended the test with %q, want %s", got, tc.want)
			}
			got, _ := os.ReadFile(notes)
			want := ""
			if tc.want == "skip" {
				want = "corpus\tput the corpus of real transcripts at " + missing + " or set BOTTLE_CORPUS\n"
			}
			if string(got) != want {
				t.Errorf("skip noted %q, want %q", got, want)
			}
		})
	}
}

func TestPresentCorpus(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BOTTLE_CORPUS", dir)
	t.Setenv("CI", "1")
	r := &recorder{TB: t}
	var got string
	var ok bool
	r.run(func(tb testing.TB) { got, ok = Find(tb) })
	if !ok || got != dir || r.ended != "" {
		t.Errorf("Find = %q, %v (ended %q), want %q, true", got, ok, r.ended, dir)
	}
}
