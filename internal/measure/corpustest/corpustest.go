// Package corpustest is the one locator of the shared corpus of real
// transcripts and claude-mem databases for tests: $BOTTLE_CORPUS, else
// ../shared/corpus beside the repository.
//
// A corpus test that finds no corpus skips with a message saying how to run
// it, except when $CI is set: then it fails, so that a CI run proves the
// corpus tests ran. Go's test cache does not notice files outside the
// module, so run the corpus tests with -count=1.
//
// The corpus is other people's data and read-only: tests read it in place,
// never copy it into the repository, and copy a database before opening it
// (SQLite would create -shm files beside it). It imports nothing of bottle's.
package corpustest

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Path is where the corpus would be, whether or not it exists.
func Path() string {
	if d := os.Getenv("BOTTLE_CORPUS"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("..", "shared", "corpus")
	}
	// file is <repo>/internal/measure/corpustest/corpustest.go.
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "corpus")
}

// Dir returns the corpus folder. When the corpus is absent it skips the
// test with a message saying how to run it, or fails it when $CI is set.
func Dir(tb testing.TB) string {
	tb.Helper()
	d, ok := Find(tb)
	if !ok {
		tb.Skipf("corpus not found at %s (set BOTTLE_CORPUS to run the corpus tests)", d)
	}
	return d
}

// Find returns the corpus folder and whether it exists, for tests that also
// run without it (on their own inputs). With $CI set an absent corpus fails
// the test.
func Find(tb testing.TB) (string, bool) {
	tb.Helper()
	d := Path()
	if _, err := os.Stat(d); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("corpus not found at %s and CI is set: the corpus tests must run in CI (set BOTTLE_CORPUS)", d)
		}
		NoteSkip("corpus", "put the corpus of real transcripts at "+filepath.Clean(d)+" or set BOTTLE_CORPUS")
		return d, false
	}
	return d, true
}

// SkipsEnv names the file in which tests note the groups they skipped:
// go test shows a package's skips only with -v, so scripts/test.sh sets it
// and prints the groups after the run.
const SkipsEnv = "BOTTLE_TEST_SKIPS"

// NoteSkip appends "group<TAB>how to enable it" to the file $BOTTLE_TEST_SKIPS
// names; without it, it does nothing. Test processes run at once: each
// line is one append.
func NoteSkip(group, how string) {
	path := os.Getenv(SkipsEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write([]byte(group + "\t" + how + "\n"))
}

// CopyDB copies the corpus database claude-mem/<name> with its -wal and -shm
// files into a temp dir as claude-mem.db and returns the copy's path.
func CopyDB(tb testing.TB, name string) string {
	tb.Helper()
	src := filepath.Join(Dir(tb), "claude-mem", name)
	dst := filepath.Join(tb.TempDir(), "claude-mem.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := CopyFile(src+suffix, dst+suffix); err != nil {
			if suffix != "" && os.IsNotExist(err) {
				continue
			}
			tb.Fatalf("copy corpus database: %v", err)
		}
	}
	return dst
}

// CopyFile copies src to dst (mode 0600).
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// LargestTranscript is the path of the corpus's largest transcript (4 MB,
// session 70d782f7, the hook-latency benchmark's input); it skips or fails
// as [Dir] does when the corpus or the file is absent.
func LargestTranscript(tb testing.TB) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), "transcripts", "entireio-cli", "70d782f7-b303-4e48-9512-6bec16c37abd.jsonl")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("corpus transcript absent and CI is set: %v", err)
		}
		tb.Skipf("corpus transcript absent: %v", err)
	}
	return p
}

// EachLine hands f every line of every transcript (*.jsonl) under the
// corpus folder dir, with the file's path relative to dir.
func EachLine(dir string, f func(rel string, line []byte)) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		file, err := os.Open(path)
		if err != nil {
			return err
		}
		defer file.Close()
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 256<<20)
		for sc.Scan() {
			f(rel, sc.Bytes())
		}
		return sc.Err()
	})
}
