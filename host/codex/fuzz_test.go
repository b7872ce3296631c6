package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadFrom: any bytes read without a panic, every line is accounted
// for, and a complete record is never lost to the torn-tail rule.
func FuzzReadFrom(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i := 0; i < len(lines); i += 7 {
			f.Add(bytes.Join(lines[i:min(i+3, len(lines))], nil))
		}
	}
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadFrom(bytes.NewReader(data))
		if err != nil {
			if !bytes.HasPrefix(data, zstdMagic) {
				t.Fatalf("plain input gave an error: %v", err)
			}
			return
		}
		d := r.Diag
		if d.Records != len(r.Records) {
			t.Fatalf("Records %d, but %d records", d.Records, len(r.Records))
		}
		if d.Records+d.Malformed+d.Oversized+d.UnknownTypes > d.Lines {
			t.Fatalf("more lines accounted for than read: %+v", d)
		}
		if bytes.HasPrefix(data, zstdMagic) {
			return
		}
		// Appending a newline completes a torn tail: it then counts as
		// malformed, never as more records.
		r2, _ := ReadFrom(bytes.NewReader(append(bytes.Clone(data), '\n')))
		if !strings.HasSuffix(string(data), "\n") && len(r2.Records) != len(r.Records) {
			t.Fatalf("a newline at the end changed the records: %d, then %d", len(r.Records), len(r2.Records))
		}
	})
}
