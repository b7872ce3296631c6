//go:build !windows

package render

// Concurrency (docs/reliability.md; docs/format.md, "Writing"): concurrent renders of one session are
// last-writer-wins of equally valid content, and a reader never sees a
// partial bottle or a temp file left behind.
//
// Not on Windows: there a reader holding the bottle open makes a rename over
// it fail (the write errors and the previous bottle stays), which these tests
// would count as a failure.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"bottle/bottles"
)

// noTemps fails when dir holds anything but bottles.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() == "archive" {
			continue
		}
		if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".md") {
			t.Errorf("stray file %s left in the bottles folder", e.Name())
		}
	}
}

// TestConcurrentWriteBottle: 16 writers write bottles of one session, each
// 256 KB with a unique marker at both ends, while 16 readers read it. Every
// read is one whole write: both markers name the same write and the length
// is exact.
func TestConcurrentWriteBottle(t *testing.T) {
	dir := t.TempDir()
	const id, writers, readers, rounds = "concurrent-1", 16, 16, 4
	body := bytes.Repeat([]byte("bottle body line\n"), 256<<10/17)
	content := func(w, r int) []byte {
		m := fmt.Sprintf("MARK-%02d-%02d\n", w, r)
		return append(append([]byte(m), body...), m...)
	}
	size := len(content(0, 0))
	var stop atomic.Bool
	var reads, torn atomic.Int64
	var wg, rg sync.WaitGroup
	for range readers {
		rg.Go(func() {
			path := filepath.Join(dir, id+".md")
			for !stop.Load() {
				data, err := os.ReadFile(path)
				if os.IsNotExist(err) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				reads.Add(1)
				head, _, _ := bytes.Cut(data, []byte("\n"))
				if len(data) != size || !bytes.HasSuffix(data, append(head, '\n')) {
					torn.Add(1)
				}
			}
		})
	}
	for w := range writers {
		wg.Go(func() {
			for r := range rounds {
				if _, err := bottles.Write(dir, id, content(w, r)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	rg.Wait()
	t.Logf("%d writes of %d KB, %d concurrent reads", writers*rounds, size>>10, reads.Load())
	if torn.Load() > 0 {
		t.Errorf("%d of %d reads saw a partial or mixed bottle", torn.Load(), reads.Load())
	}
	noTemps(t, dir)
}

// TestConcurrentRenders: 32 goroutines render one session and write its
// bottle, each with its own clock, while 16 readers read it. Every read is
// byte for byte one of the 32 renders (its header names which).
func TestConcurrentRenders(t *testing.T) {
	dir := t.TempDir()
	const renders, readers = 32, 16
	transcript := filepath.Join("testdata", "commands.jsonl")
	o := Options{SessionID: "commands-1", TranscriptPath: transcript, Location: time.UTC, NoBudget: true}
	want := map[string][]byte{} // "rendered: <stamp>" -> bottle
	clock := func(i int) time.Time { return fixedNow.Add(time.Duration(i) * time.Minute) }
	for i := range renders {
		o.Now = clock(i)
		res, err := Render(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		want["rendered: "+stamp(o.Now, time.UTC)] = res.Markdown
	}
	stampOf := func(md []byte) string {
		_, rest, _ := strings.Cut(string(md), "rendered: ")
		s, _, _ := strings.Cut(rest, "\n")
		return "rendered: " + s
	}
	var stop atomic.Bool
	var reads atomic.Int64
	var wg, rg sync.WaitGroup
	path := filepath.Join(dir, o.SessionID+".md")
	for range readers {
		rg.Go(func() {
			for !stop.Load() {
				data, err := os.ReadFile(path)
				if os.IsNotExist(err) {
					continue
				}
				reads.Add(1)
				if w, ok := want[stampOf(data)]; !ok || !bytes.Equal(data, w) {
					t.Errorf("a reader saw %d bytes that are none of the renders", len(data))
					return
				}
			}
		})
	}
	start := make(chan struct{})
	for i := range renders {
		wg.Go(func() {
			<-start
			o := o
			o.Now = clock(i)
			res, err := Render(context.Background(), o)
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := bottles.Write(dir, o.SessionID, res.Markdown); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	stop.Store(true)
	rg.Wait()
	t.Logf("%d concurrent renders, %d reads", renders, reads.Load())
	if _, ok := want[stampOf(mustRead(t, path))]; !ok {
		t.Error("the last bottle is none of the renders")
	}
	noTemps(t, dir)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestConcurrentArchive: /clear archiving while renders write the same
// session: every file, bottle or archive, is one whole write, and nothing
// is left half-moved.
func TestConcurrentArchive(t *testing.T) {
	dir := t.TempDir()
	const id = "archive-race-1"
	body := bytes.Repeat([]byte("x"), 64<<10)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for r := range 8 {
				m := fmt.Sprintf("MARK-%d-%d\n", w, r)
				if _, err := bottles.Write(dir, id, append(append([]byte(m), body...), m...)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := range 8 {
		wg.Go(func() {
			// Distinct archive times: two archives in one second share a name.
			if _, err := bottles.Archive(dir, id, fixedNow.Add(time.Duration(i)*time.Second), 0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "archive", "*.md"))
	files = append(files, filepath.Join(dir, id+".md"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue
		}
		head, _, _ := bytes.Cut(data, []byte("\n"))
		if len(data) != len(body)+2*len(head)+2 || !bytes.HasSuffix(data, append(head, '\n')) {
			t.Errorf("%s is not one whole write", f)
		}
	}
	noTemps(t, dir)
}
