package privacy

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"bottle/internal/measure/corpustest"
	"bottle/internal/racemode"
)

// TestCorpusRedactions runs the redactor over every text of the corpus:
// each JSON string (keys included) of every transcript line, as bottle sees
// it decoded, and the raw pages of the claude-mem databases. It lists each
// redaction with its kind, the file and an excerpt in which the redacted
// span is masked (its value is never printed), so that a reviewer can tell
// a real credential from a false positive; run it with -v. The assignment
// rules (RedactAssignments) apply to digests and names only; their
// redactions are listed apart.
func TestCorpusRedactions(t *testing.T) {
	if racemode.Enabled {
		t.Skip("a listing for a reviewer, and no goroutine: CI makes it without the race detector (.ci/run, credentials)")
	}
	dir := corpustest.Dir(t)
	counts := map[string]int{}
	var list []string
	texts, size := 0, 0
	report := func(file, s string, assignments bool) {
		if !assignments {
			texts, size = texts+1, size+len(s)
		}
		for _, m := range Find(s, assignments) {
			mode := "redact"
			if assignments {
				if len(Find(s[m.Start:m.End], false)) > 0 || m.Kind != KindSecret {
					continue // listed by the plain pass
				}
				mode = "assignment"
			}
			counts[mode+" "+m.Kind]++
			before := s[max(0, m.Start-40):m.Start]
			after := s[m.End:min(len(s), m.End+30)]
			excerpt := strings.Join(strings.Fields(before+fmt.Sprintf("‹%s, %d bytes›", m.Kind, m.End-m.Start)+after), " ")
			list = append(list, fmt.Sprintf("%-10s %-15s %s: %s", mode, m.Kind, file, excerpt))
		}
	}
	seen := map[string]bool{}
	err := corpustest.EachLine(dir, func(rel string, line []byte) {
		seen[rel] = true
		// JSON is the walk: it hands f every string, decoded.
		JSON(line, "", func(s string) string {
			report(rel, s, false)
			report(rel, s, true)
			return s
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(path, ".db") && !strings.HasSuffix(path, ".db-wal") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		seen[rel] = true
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		report(rel, string(data), false)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files := len(seen)
	sort.Strings(list)
	for _, l := range list {
		t.Log(l)
	}
	kinds := make([]string, 0, len(counts))
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("%d files, %d texts (%d MB), %d redactions: %s", files, texts, size>>20, len(list), strings.Join(kinds, ", "))
	if texts < 1000 {
		t.Errorf("only %d texts read: the corpus walk is broken", texts)
	}
}
