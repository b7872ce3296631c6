package search

import (
	"os"
	"path/filepath"
	"testing"
)

// stamped is srcs with their transcripts' stamps, as a scope's listing
// hands them over.
func stamped(t *testing.T, srcs []Source) []Source {
	t.Helper()
	out := make([]Source, len(srcs))
	for i, s := range srcs {
		fi, err := os.Stat(s.Transcript)
		if err != nil {
			t.Fatal(err)
		}
		s.Size, s.Modified = fi.Size(), fi.ModTime()
		out[i] = s
	}
	return out
}

// TestStoreOtherWriter: a store kept between searches (a server's) answers
// as the scan does after another process wrote the same file: one that
// read the transcripts with other rules for bottle's own reads (the Bash
// and Read results left out), and one that indexed an appended turn first.
func TestStoreOtherWriter(t *testing.T) {
	dir := t.TempDir()
	srcs := genSources(t, dir, 2, 200<<10)
	path := filepath.Join(t.TempDir(), "index.db")
	server, other := NewStore(path), NewStore(path)
	defer server.Close()
	defer other.Close()
	queries := []string{"checkpoint", "go", "the -test"}
	check := func(what string, st *Store, own Own) {
		t.Helper()
		checkSameWith(t, st, what, Options{Sources: stamped(t, srcs), Own: own}, queries...)
	}
	check("first build", server, Own{})
	check("again", server, Own{})
	check("another process, other rules", other, Own{Tools: []string{"Bash", "Read"}})
	check("after the other rules", server, Own{})

	grow(t, srcs[0], 1, 200<<10, 300<<10)
	check("another process indexed the append", other, Own{})
	check("after the append", server, Own{})
}
