package transcript

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// A transcript big enough to be memory-mapped reads exactly as the same
// bytes read from a stream, and nothing the reader keeps points into the
// map once it is gone.
func TestMappedReadMatchesStream(t *testing.T) {
	skipUnlessMapped(t)
	data := genTranscript(t, 3*mapMin)
	// A line longer than a chunk, a blank line and a torn final line too.
	long := `{"type":"user","uuid":"00000000-0000-4000-8000-00000000beef","message":{"role":"user","content":"` +
		strings.Repeat("x", 3*defaultChunkSize) + `"}}` + "\n\n"
	data = append(append(bytes.Clone(data), long...), `{"type":"assistant","mess`...)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if len(data) < mapMin {
		t.Fatalf("input %d bytes, below the map threshold", len(data))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if mr := openMap(f); mr == nil {
		t.Fatal("the file was not mapped")
	} else {
		mr.close()
	}
	f.Close()

	got, err := Read(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	want, err := ReadFrom(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("mapped read differs from the stream read (diag %+v vs %+v)", got.Diag, want.Diag)
	}
	if last := got.Events[len(got.Events)-1]; last.Kind != EvPrompt || !strings.Contains(last.Text, strings.Repeat("x", 1000)) {
		t.Fatalf("the long line's prompt is not the last event: %+v", last.Kind)
	}
}

// A mapped transcript cut shorter while it is read is an error, not a
// crash: at its start (the first chunk) or half way (in the workers).
func TestMappedFileTruncated(t *testing.T) {
	skipUnlessMapped(t)
	data := genTranscript(t, 2*mapMin)
	for _, size := range []int64{4096, int64(len(data) / 2)} {
		path := filepath.Join(t.TempDir(), "big.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		mr := openMap(f)
		if mr == nil {
			t.Fatal("the file was not mapped")
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		p := newParser(true)
		p.speculate = true
		if err := p.readMapped(mr); !errors.Is(err, errChanged) {
			t.Errorf("read of a mapped file truncated to %d bytes: %v, want %v", size, err, errChanged)
		}
		mr.close()
		f.Close()
	}
}

func skipUnlessMapped(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("transcripts are memory-mapped on Linux only")
	}
}

// Concurrent reads of one mapped transcript (the MCP server's case) each
// map, read and unmap it on their own and agree.
func TestMappedConcurrentReads(t *testing.T) {
	skipUnlessMapped(t)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, genTranscript(t, 2*mapMin), 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := Read(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 3 {
				got, err := Read(context.Background(), path, nil)
				if err != nil {
					errs <- err
					return
				}
				if !reflect.DeepEqual(got, want) {
					errs <- errors.New("a concurrent read differs")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestDigestsOutliveTheMap pins the one unsafe aliasing of the reader:
// digests read mapped result bodies in place (digest.Call.ResultRaw), and
// only copies of what they read may reach a digest. After a mapped read the
// map is gone, so touching a digest that still pointed into it faults; the
// fault is turned into a panic and reported.
func TestDigestsOutliveTheMap(t *testing.T) {
	skipUnlessMapped(t)
	// Every tool the golden transcripts hold, many times over, past the
	// map threshold.
	var data []byte
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "render", "testdata", "*.jsonl"))
	for len(data) < 2*mapMin {
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b...)
			if len(b) > 0 && b[len(b)-1] != '\n' {
				data = append(data, '\n')
			}
		}
		data = append(data, genTranscript(t, 1<<20)...)
	}
	path := filepath.Join(t.TempDir(), "tools.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Tools) == 0 {
		t.Fatal("no tool calls read")
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("a digest points into the unmapped transcript: %v", r)
		}
	}()
	n := 0
	for _, tc := range tr.Tools {
		l := tc.Line
		n += len(bytes.Clone([]byte(l.Full()))) + len(bytes.Clone([]byte(l.Pending()))) + len(bytes.Clone([]byte(l.Subject()+l.Outcome()+l.Detail()+strings.Join(l.Paths(), ""))))
	}
	if n == 0 {
		t.Fatal("no digest text")
	}
}
