package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"bottle/host/claudecode/transcript"
	"bottle/host/codex"
	"bottle/internal/measure/corpustest"
	"bottle/internal/racemode"
	"bottle/session"
)

// recLine is a record as the differential test compares it: everything
// but its session.
func recLine(r Record) string {
	sec, nsec, tz := timeParts(r.Time)
	return fmt.Sprintf("%012d %s %s %q %d.%d %s %q %q", r.seq, r.ID, r.Kind, r.Label, sec, nsec, tz, r.Paths, r.Text)
}

// growth is a transcript read as the store reads one that grows: its
// records by key (recKey), as write keeps them, and where the last read
// stopped.
type growth struct {
	// read is the host's reader (nil: Claude Code's).
	reader session.Reader
	recs   map[string]Record
	from   *resumeState
	// plant, when set, changes the point before each resumed read (a
	// planted bug the comparison must catch).
	plant          func(*resumeState)
	resumed, whole int
	refused        int // reads the reader would not go on (session.ErrResume)
}

// read reads the transcript at path as the store does: from the last
// read's point when there is one and the reader goes on from it (the
// records before it kept, as write keeps them), else whole.
func (g *growth) read(t *testing.T, path string) {
	t.Helper()
	var got []Record
	add := func(r Record) { got = append(got, r) }
	if g.from != nil {
		// As the store keeps it.
		from, err := decodeResume(g.from.encode())
		if err != nil {
			t.Fatalf("the point does not decode: %v", err)
		}
		if g.plant != nil {
			g.plant(from)
		}
		info, err := transcriptRecordsFrom(context.Background(), g.host(), path, "s", nil, 0, from, add, nil, nil)
		switch {
		case err == nil && info.resumed:
			g.resumed++
			seen := map[string]int{}
			now := map[string]Record{}
			for _, r := range got {
				now[recKey(r.ID, seen)] = r
			}
			for k, r := range g.recs {
				if _, ok := now[k]; !ok && keptBefore(r.ID, from) {
					now[k] = r
				}
			}
			g.recs, g.from = now, info.resume
			return
		case err != nil && !errors.Is(err, session.ErrResume):
			t.Fatal(err)
		case err != nil:
			g.refused++
		}
		got = got[:0]
	}
	g.whole++
	info, err := transcriptRecords(context.Background(), g.host(), path, "s", nil, add)
	if err != nil {
		t.Fatal(err)
	}
	g.recs, g.from = map[string]Record{}, info.resume
	seen := map[string]int{}
	for _, r := range got {
		g.recs[recKey(r.ID, seen)] = r
	}
}

// host is g's reader.
func (g *growth) host() session.Reader {
	if g.reader != nil {
		return g.reader
	}
	return transcript.Read
}

// lines are the records held, in order.
func (g *growth) lines() []string {
	var out []string
	for _, r := range g.recs {
		out = append(out, recLine(r))
	}
	slices.Sort(out)
	return out
}

// wholeLines are the records of a whole read of the transcript at path.
func wholeLines(t *testing.T, read session.Reader, path string) []string {
	t.Helper()
	var out []string
	if _, err := transcriptRecords(context.Background(), read, path, "s", nil, func(r Record) { out = append(out, recLine(r)) }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// cutsOf are n places to cut data: at random line ends and inside lines
// (a half-written last line), in order, the end last.
func cutsOf(data []byte, n int, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, 29))
	var cuts []int
	for k := range n {
		at := r.IntN(len(data))
		if k%3 != 2 {
			// A line's end.
			if i := strings.IndexByte(string(data[at:]), '\n'); i >= 0 {
				at += i + 1
			}
		}
		cuts = append(cuts, at)
	}
	cuts = append(cuts, len(data))
	slices.Sort(cuts)
	return slices.Compact(cuts)
}

// growAndCompare writes data to path in the steps cuts makes, reads each
// step as the store does (g) and compares what it holds with a whole read
// of the step's bytes; it returns the first difference ("" when none).
func growAndCompare(t *testing.T, path string, data []byte, cuts []int, g *growth) string {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := 0
	for step, c := range cuts {
		if _, err := f.Write(data[done:c]); err != nil {
			t.Fatal(err)
		}
		done = c
		g.read(t, path)
		got, want := g.lines(), wholeLines(t, g.host(), path)
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					return fmt.Sprintf("step %d (%d of %d bytes): read from the last point it holds\n%.300s\nwhere a whole read holds\n%.300s", step, c, len(data), got[i], want[i])
				}
			}
			return fmt.Sprintf("step %d (%d of %d bytes): %d records, a whole read %d", step, c, len(data), len(got), len(want))
		}
	}
	return ""
}

// TestResumeDifferential: generated transcripts and the corpus's, grown
// in steps cut at random line ends and inside lines, read at each step
// from where the last read stopped (its point, through the store's
// encoding) with the records before the point kept, hold exactly the
// records (ids, kinds, labels, times, texts, paths, order) a whole read
// of the step's bytes builds. Catches: planted bugs in the point (its
// turn count, its record count, its call count) are found.
func TestResumeDifferential(t *testing.T) {
	// Under the race detector (and -short) fewer steps and sources: CI
	// runs the whole test without it.
	steps, few := 12, racemode.Enabled || testing.Short()
	if few {
		steps = 4
	}
	type file struct {
		name string
		data []byte
	}
	var files []file
	for seed := range uint64(4) {
		files = append(files, file{fmt.Sprintf("generated %d", seed), genBytes(t, 700<<10, 40+seed, "99990000-0000-4000-8000-000000000029")})
	}
	check := func(t *testing.T, files []file) {
		resumed, whole, refused := 0, 0, 0
		for i, f := range files {
			g := &growth{}
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if d := growAndCompare(t, path, f.data, cutsOf(f.data, steps, uint64(i)), g); d != "" {
				t.Errorf("%s: %s", f.name, d)
			}
			resumed, whole, refused = resumed+g.resumed, whole+g.whole, refused+g.refused
		}
		t.Logf("%d files: %d reads went on from the last point, %d whole (%d of them refused by the reader)", len(files), resumed, whole, refused)
		if resumed < whole {
			t.Errorf("%d reads went on from the last point, %d whole; want most from it", resumed, whole)
		}
	}
	t.Run("generated", func(t *testing.T) { check(t, files) })
	t.Run("corpus", func(t *testing.T) {
		paths, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "transcripts", "*", "*.jsonl"))
		var corpus []file
		for i, p := range paths {
			if few && i%6 != 0 {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			corpus = append(corpus, file{filepath.Base(p), b})
		}
		if len(corpus) == 0 {
			t.Fatal("no transcripts in the corpus")
		}
		check(t, corpus)
	})
	t.Run("codex", func(t *testing.T) {
		// Codex's rollouts, plain ones (a compressed one offers no
		// point), grown the same way through Codex's reader.
		// Each alone, and all in one (the one of event messages only
		// first: the later ones' items then change how a whole read
		// takes its words, which a point made before must refuse).
		paths, _ := filepath.Glob(filepath.Join("..", "host", "codex", "testdata", "*.jsonl"))
		slices.SortFunc(paths, func(a, b string) int {
			first := func(p string) int {
				if filepath.Base(p) == "events_only.jsonl" {
					return 0
				}
				return 1
			}
			return cmp.Or(cmp.Compare(first(a), first(b)), strings.Compare(a, b))
		})
		var rollouts []file
		var all []byte
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rollouts = append(rollouts, file{filepath.Base(p), data})
			all = append(all, data...)
		}
		rollouts = append(rollouts, file{"all of them in one", all})
		resumed, whole, refused := 0, 0, 0
		for i, f := range rollouts {
			g := &growth{reader: codex.ReadSession}
			if d := growAndCompare(t, filepath.Join(t.TempDir(), "rollout.jsonl"), f.data, cutsOf(f.data, 3*steps, uint64(i)), g); d != "" {
				t.Errorf("%s: %s", f.name, d)
			}
			resumed, whole, refused = resumed+g.resumed, whole+g.whole, refused+g.refused
		}
		t.Logf("%d rollouts: %d reads went on from the last point, %d whole (%d of them refused by the reader)", len(rollouts), resumed, whole, refused)
		if len(paths) == 0 || resumed < whole || refused == 0 {
			t.Errorf("%d rollouts: %d reads went on from the last point, %d whole, %d refused; want most from it, and a refusal", len(rollouts), resumed, whole, refused)
		}
	})
	t.Run("Catches", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			plant func(*resumeState)
		}{
			{"turn count", func(r *resumeState) { r.Turns++ }},
			{"record count", func(r *resumeState) { r.recs++ }},
			{"call count", func(r *resumeState) {
				if r.Tools > 0 {
					r.Tools--
				}
			}},
		} {
			g := &growth{plant: c.plant}
			f := files[0]
			if d := growAndCompare(t, filepath.Join(t.TempDir(), "t.jsonl"), f.data, cutsOf(f.data, 12, 7), g); d == "" {
				t.Errorf("a planted bug (%s) went unnoticed: %d reads from a point, %d whole", c.name, g.resumed, g.whole)
			}
		}
	})
}

// FuzzResumeState: decodeResume takes any bytes without panicking, and a
// state it takes, encoded again, decodes to the same state.
func FuzzResumeState(f *testing.F) {
	f.Add((&resumeState{ResumePoint: session.ResumePoint{Offset: 4096, Turns: 3, Tools: 7, Prompts: 3, Cwd: "/w", State: []byte{1, 2, 3}}, recs: 5}).encode())
	f.Add([]byte{resumeVersion, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeResume(b)
		if err != nil {
			return
		}
		enc := r.encode()
		again, err := decodeResume(enc)
		if err != nil {
			t.Fatalf("%x decodes, and its encoding %x does not: %v", b, enc, err)
		}
		if got := again.encode(); string(got) != string(enc) || again.Offset != r.Offset || again.recs != r.recs || again.Cwd != r.Cwd {
			t.Errorf("%x encodes as %x, then as %x", b, enc, got)
		}
	})
}
