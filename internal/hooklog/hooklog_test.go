package hooklog

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func readLines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestLineFormat(t *testing.T) {
	at := time.Date(2026, 7, 20, 12, 32, 0, 123e6, time.FixedZone("CEST", 2*3600))
	tests := []struct {
		name string
		e    Entry
		want string
	}{
		{"SessionStart", Entry{Time: at, Hook: "session-start", Session: "e179046d-7049", Key: "source", Value: "compact", Mode: "full", Duration: 12 * time.Millisecond, Outcome: "ok"},
			"2026-07-20T10:32:00.123Z session-start session=e179046d-7049 source=compact mode=full 12ms ok"},
		{"Stop", Entry{Time: at, Hook: "stop", Session: "abc", Mode: "full", Duration: 3 * time.Millisecond, Outcome: "ok"},
			"2026-07-20T10:32:00.123Z stop session=abc mode=full 3ms ok"},
		{"Unknowns", Entry{Time: at, Hook: "session-end", Key: "reason", Outcome: "error: parse payload: unexpected EOF"},
			"2026-07-20T10:32:00.123Z session-end session=- reason=- mode=- 0ms error: parse payload: unexpected EOF"},
		{"Hostile", Entry{Time: at, Hook: "session-start", Session: "a b\n2026 forged=1", Key: "source", Value: "x y", Outcome: "error: line one\nline two\r\n\tend"},
			"2026-07-20T10:32:00.123Z session-start session=a%20b%0A2026%20forged%3D1 source=x%20y mode=- 0ms error: line one line two end"},
		{"MCPServer", Entry{Time: at, Hook: "mcpserver", Outcome: "error: Error reading input: boom", OutcomeLimit: 1007},
			"2026-07-20T10:32:00.123Z mcpserver session=- mode=- 0ms error: Error reading input: boom"},
		{"EmptyOutcome", Entry{Time: at, Hook: "stop", Outcome: " \n"},
			"2026-07-20T10:32:00.123Z stop session=- mode=- 0ms ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.e.String()
			if got != tt.want {
				t.Errorf("String() =\n%q, want\n%q", got, tt.want)
			}
			e, ok := Parse(got)
			if !ok || !e.Time.Equal(at) || e.Hook != tt.e.Hook || e.Outcome != text(tt.e.Outcome, 500) {
				t.Errorf("Parse(%q) = %+v, %v", got, e, ok)
			}
		})
	}
	long := Entry{Time: at, Hook: "stop", Session: strings.Repeat("x", 1000), Outcome: "error: " + strings.Repeat("é", 1000)}.String()
	if len(long) > 800 || strings.Contains(long, "\n") {
		t.Errorf("a log line with long fields is %d bytes", len(long))
	}
	for _, garbage := range []string{"not a log line", "2026-07-20 stop 3ms ok", "yesterday stop session=- mode=- 3ms ok"} {
		if e, ok := Parse(garbage); ok {
			t.Errorf("Parse(%q) accepted garbage: %+v", garbage, e)
		}
	}
}

func TestOutcomeLimit(t *testing.T) {
	tests := []struct {
		name    string
		outcome string
		limit   int
		want    string
	}{
		{"Default", strings.Repeat("a", 600), 0, strings.Repeat("a", 500) + "…"},
		{"AtLimit", strings.Repeat("a", 500), 0, strings.Repeat("a", 500)},
		{"Larger", strings.Repeat("a", 1200), 1007, strings.Repeat("a", 1007) + "…"},
		// A cut inside a character backs off to its start.
		{"MidRune", "a" + strings.Repeat("é", 10), 4, "aé…"},
		{"InvalidUTF8", "a\xffb", 0, "a\uFFFDb"},
		{"Controls", "a\x1b[31mb\x7fc\u2028d", 0, "a [31mb c d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := Entry{Hook: "stop", Outcome: tt.outcome, OutcomeLimit: tt.limit}.String()
			e, ok := Parse(line)
			if !ok || e.Outcome != tt.want {
				t.Errorf("outcome %q (ok %v), want %q", e.Outcome, ok, tt.want)
			}
		})
	}
}

// TestParseRoundTrip: every field of a line reads back as written.
func TestParseRoundTrip(t *testing.T) {
	at := time.Date(2026, 7, 20, 10, 32, 0, 123e6, time.UTC)
	tests := []Entry{
		{Time: at, Hook: "session-start", Session: "e179046d-7049", Key: "source", Value: "compact", Mode: "full", Duration: 12 * time.Millisecond, Outcome: "ok: note"},
		{Time: at, Hook: "stop", Session: "abc", Mode: "full", Duration: 1500 * time.Millisecond, Outcome: "skipped: no transcript"},
		{Time: at, Hook: "session-end", Session: "a b%c=d\n", Key: "reason", Value: "x y", Outcome: "error: boom"},
		{Time: at, Hook: "mcpserver", Outcome: "error: stopped: EOF"},
	}
	for _, want := range tests {
		got, ok := Parse(want.String() + "\n")
		if !ok {
			t.Errorf("Parse(%q) failed", want.String())
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", want.String(), diff)
		}
	}
}

func TestAppendAndRotate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	path := filepath.Join(dir, "bottle.log")
	e := Entry{Time: time.Unix(0, 0), Hook: "stop", Session: "abc", Outcome: "ok"}
	for range 2 {
		if err := Append(path, e); err != nil {
			t.Fatal(err)
		}
	}
	if got := readLines(path); len(got) != 2 || got[1] != e.String() {
		t.Fatalf("log = %q", got)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("log dir mode %v, want 0700", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("log file mode %v, want 0600", fi.Mode().Perm())
		}
	}

	big := strings.Repeat("old line\n", MaxSize/9+2)
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, e); err != nil {
		t.Fatal(err)
	}
	if got := readLines(path); len(got) != 1 {
		t.Errorf("after rotation the log has %d lines, want 1", len(got))
	}
	if old, _ := os.ReadFile(path + ".1"); string(old) != big {
		t.Errorf("bottle.log.1 holds %d bytes, want the rotated %d", len(old), len(big))
	}
	// A second rotation replaces bottle.log.1: one old file is kept.
	if err := os.WriteFile(path, []byte(big+"newer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, e); err != nil {
		t.Fatal(err)
	}
	if old, _ := os.ReadFile(path + ".1"); !strings.HasSuffix(string(old), "newer\n") {
		t.Error("second rotation did not replace bottle.log.1")
	}
	if files, _ := filepath.Glob(path + "*"); len(files) != 2 {
		t.Errorf("log files %q, want bottle.log and bottle.log.1", files)
	}
}

// TestAppendFails: a log that cannot be written is an error and writes
// nothing anywhere else.
func TestAppendFails(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path string }{
		{"Relative", filepath.Join("logs", "bottle.log")},
		{"Empty", ""},
		{"FolderIsFile", filepath.Join(file, "bottle.log")},
		{"FolderBelowFile", filepath.Join(file, "logs", "bottle.log")},
		{"PathIsFolder", root},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Append(tt.path, Entry{Hook: "stop"}); err == nil {
				t.Error("Append succeeded")
			}
		})
	}
	if _, err := os.Stat("logs"); err == nil {
		t.Error("a relative path logged into the working directory")
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Errorf("%s holds %d entries, want only the file", root, len(entries))
	}
}

func TestLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bottle.log")
	if _, err := Last(path); !os.IsNotExist(err) {
		t.Errorf("missing log: err %v", err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 20000)+"\nfirst\nlast line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Last(path); got != "last line" || err != nil {
		t.Errorf("Last = %q, %v", got, err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Last(path); got != "" || err != nil {
		t.Errorf("empty log: %q, %v", got, err)
	}
}

// TestAppendRefusesSymlink: a log that is a symlink (to a file, to a big file
// that would rotate, to nothing yet) is neither followed, nor rotated, nor
// replaced: the target outside bottle's folders stays as it was.
func TestAppendRefusesSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	big := strings.Repeat("target line\n", MaxSize/12+2)
	tests := []struct {
		name   string
		target string // content of the symlink's target; "" = no target
	}{
		{"ToFile", "target line\n"},
		{"ToBigFile", big},
		{"Dangling", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := filepath.Join(t.TempDir(), "elsewhere")
			if tt.target != "" {
				if err := os.WriteFile(outside, []byte(tt.target), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "bottle.log")
			if err := os.Symlink(outside, path); err != nil {
				t.Fatal(err)
			}
			err := Append(path, Entry{Hook: "stop", Outcome: "ok"})
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("Append through a symlink: err %v, want ErrNotRegular", err)
			}
			got, rerr := os.ReadFile(outside)
			if tt.target == "" {
				if !errors.Is(rerr, fs.ErrNotExist) {
					t.Errorf("the dangling symlink's target was created")
				}
			} else if string(got) != tt.target {
				t.Errorf("the symlink's target changed: %d bytes, want %d", len(got), len(tt.target))
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the symlink was moved or replaced: %v", err)
			}
			if _, err := os.Lstat(path + ".1"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a symlinked log was rotated")
			}
			if _, err := Last(path); !errors.Is(err, ErrNotRegular) && !errors.Is(err, syscall.ELOOP) {
				t.Errorf("Last through a symlink: err %v", err)
			}
		})
	}
}
