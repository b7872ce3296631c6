package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"bottle/host/claudecode/transcript"
	"bottle/internal/racemode"
	"bottle/session"
)

// heldRecords lists every record the store holds, as text: its source
// key, kind, id, label, time, order, paths and text.
func heldRecords(t *testing.T, st *Store) []string {
	t.Helper()
	r, _, err := st.dbs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Query("SELECT s.key, r.id & 7, r.rid, r.label, r.tsec, r.tnsec, r.tz, r.seq, coalesce(r.paths, ''), r.text FROM rec r JOIN src s ON s.id = r.id >> 28")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var key, rid, label, tz, paths string
		var kind, sec, nsec, seq int64
		var packed []byte
		if err := rows.Scan(&key, &kind, &rid, &label, &sec, &nsec, &tz, &seq, &paths, &packed); err != nil {
			t.Fatal(err)
		}
		text, _, err := unpackText(packed)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%q %s %s %q %d.%d %s seq %d %s %q", key, Kinds[kind], rid, label, sec, nsec, tz, seq, paths, text))
	}
	slices.Sort(out)
	return out
}

// watchReads follows the transcripts st reads: reads returns those read
// since it was last called.
func watchReads(st *Store) (reads func() []transcriptInfo) {
	var mu sync.Mutex
	var got []transcriptInfo
	st.onRead = func(_ string, info transcriptInfo) {
		mu.Lock()
		got = append(got, info)
		mu.Unlock()
	}
	return func() []transcriptInfo {
		mu.Lock()
		defer mu.Unlock()
		r := got
		got = nil
		return r
	}
}

// heldCounts lists the store's counts of records by source and kind.
func heldCounts(t *testing.T, st *Store) []string {
	t.Helper()
	r, _, err := st.dbs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.Query("SELECT s.key, a.kind, a.n, a.sum FROM agg a JOIN src s ON s.id = a.src")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var key string
		var kind, n, sum int64
		if err := rows.Scan(&key, &kind, &n, &sum); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%q %d %d %d", key, kind, n, sum))
	}
	slices.Sort(out)
	return out
}

// TestStoreResume: a transcript that grows in steps — cut anywhere, in the
// middle of a line too, between a tool call and its result, across its
// compaction — is read again from where the last read stopped (its resume
// point: only the lines from there are parsed), and the store then holds
// exactly the records (and counts by kind) a whole read of the file
// builds, answering as the scan does; a file replaced by a longer one is
// read whole.
func TestStoreResume(t *testing.T) {
	id := "99990000-0000-4000-8000-000000000001"
	full := genBytes(t, 400<<10, 5, id)
	// Cut points: random ones (mostly inside lines), and the end of a
	// tool call's line before its result's.
	r := rand.New(rand.NewPCG(29, 1))
	var cuts []int
	n := 12
	if racemode.Enabled {
		n = 2 // CI runs it in full without the race detector
	}
	for range n {
		cuts = append(cuts, r.IntN(len(full)))
	}
	if i := bytes.Index(full[len(full)/3:], []byte(`"type":"tool_use"`)); i >= 0 {
		at := len(full)/3 + i
		cuts = append(cuts, at+bytes.IndexByte(full[at:], '\n')+1)
	}
	cuts = append(cuts, len(full))
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	// A reader that offers no points (as Codex's): the store keeps the
	// calls with results the last read handed over.
	withoutPoints := func(ctx context.Context, path string, o *session.ReadOptions) (*session.Transcript, error) {
		c := *o
		c.Resume, c.From = false, nil
		return transcript.Read(ctx, path, &c)
	}
	t.Run("points", func(t *testing.T) { storeResume(t, id, full, cuts, nil) })
	t.Run("no points", func(t *testing.T) { storeResume(t, id, full, cuts, withoutPoints) })
}

// storeResume is TestStoreResume with the reader read (nil: Claude
// Code's, which offers points).
func storeResume(t *testing.T, id string, full []byte, cuts []int, read session.Reader) {
	path := filepath.Join(t.TempDir(), id+".jsonl")
	srcs := []Source{{ID: id, Transcript: path, Read: read}}
	st := NewStore(filepath.Join(t.TempDir(), "index.db"))
	defer st.Close()

	// Each read into the store: a resumed one parses the lines from its
	// point on, and no others.
	reads := watchReads(st)
	resumed := 0
	for step, c := range cuts {
		if err := os.WriteFile(path, full[:c], 0o600); err != nil && step == 0 {
			t.Fatal(err)
		}
		what := fmt.Sprintf("step %d, %d of %d bytes", step, c, len(full))
		if read != nil {
			var fp string
			if r, _, err := st.dbs(context.Background()); err == nil {
				r.QueryRow("SELECT fp FROM src").Scan(&fp)
			}
			if step > 0 && knownResults(fp, ownPart(fp), path) > 0 {
				resumed++
			}
		}
		reads()
		checkSame(t, st, what, srcs, nil, "", "checkpoint", "the -go", `"if err"`)
		for _, info := range reads() {
			if !info.resumed {
				continue
			}
			if read != nil {
				t.Errorf("%s: a reader without points went on from one", what)
			}
			resumed++
			tail := full[info.from:c]
			lines := bytes.Count(tail, []byte("\n"))
			if len(tail) > 0 && tail[len(tail)-1] != '\n' {
				lines++
			}
			if info.from <= 0 || info.lines != lines {
				t.Errorf("%s: a read from byte %d parsed %d lines; the file holds %d after it", what, info.from, info.lines, lines)
			}
		}
		whole := NewStore(filepath.Join(t.TempDir(), "whole.db"))
		checkSame(t, whole, what+", whole", srcs, nil, "", "checkpoint")
		got, want := heldRecords(t, st), heldRecords(t, whole)
		if g, w := heldCounts(t, st), heldCounts(t, whole); !slices.Equal(g, w) {
			t.Errorf("%s: the store counts its records by kind as %q, a whole read as %q", what, g, w)
		}
		whole.Close()
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("%s: the store read from its last read holds\n%.400s\nwhere a whole read holds\n%.400s", what, got[i], want[i])
				}
			}
			t.Fatalf("%s: %d records, a whole read %d", what, len(got), len(want))
		}
	}
	t.Logf("%d of %d steps read from what the store knew", resumed, len(cuts)-1)
	if resumed < len(cuts)/2 {
		t.Errorf("%d of %d steps read from what the store knew; want most", resumed, len(cuts)-1)
	}

	// Replaced by a longer file of another session's bytes: read whole.
	other := genBytes(t, 800<<10, 6, id)
	if len(other) <= len(full) {
		t.Fatalf("the replacement (%d bytes) is not longer than the transcript (%d)", len(other), len(full))
	}
	if err := os.WriteFile(path+".new", other, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	checkSame(t, st, "replaced", srcs, nil, "", "checkpoint", "the -go")
	whole := NewStore(filepath.Join(t.TempDir(), "whole.db"))
	defer whole.Close()
	checkSame(t, whole, "replaced, whole", srcs, nil, "", "checkpoint")
	if got, want := heldRecords(t, st), heldRecords(t, whole); !slices.Equal(got, want) {
		t.Errorf("replaced: %d records, a whole read %d (or they differ)", len(got), len(want))
	}
}
