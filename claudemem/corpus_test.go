package claudemem

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"bottle/internal/measure/corpustest"
)

// copyCorpusDB copies name and its -wal/-shm files, where present, from the
// corpus into a fresh temp dir and returns the copy's path.
func copyCorpusDB(tb testing.TB, dir, name string) string {
	tb.Helper()
	dst := tb.TempDir()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := copyFile(filepath.Join(dir, name+suffix), filepath.Join(dst, name+suffix)); err != nil {
			if suffix != "" && os.IsNotExist(err) {
				continue
			}
			tb.Fatalf("copy corpus db: %v", err)
		}
	}
	return filepath.Join(dst, name)
}

func copyFile(src, dst string) error { return corpustest.CopyFile(src, dst) }

// manifestEntry is one line of manifest.jsonl: the expected join counts.
type manifestEntry struct {
	DB               string   `json:"db"`
	ContentSessionID string   `json:"content_session_id"`
	Project          string   `json:"project"`
	MemorySessionID  *string  `json:"memory_session_id"`
	Status           string   `json:"status"`
	UserPrompts      int      `json:"user_prompts"`
	Observations     int      `json:"observations"`
	Summaries        int      `json:"session_summaries"`
	Special          []string `json:"special"`
}

func readManifest(tb testing.TB, dir string) []manifestEntry {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []manifestEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e manifestEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			tb.Fatalf("manifest: %v", err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("manifest.jsonl is empty")
	}
	return out
}

var (
	readmeSectionRE = regexp.MustCompile("^## `([^`]+\\.db)`")
	readmeRowRE     = regexp.MustCompile("^\\| `([0-9a-f-]{36})` \\|")
	nullPromptRE    = regexp.MustCompile(`(\d+) observation\(s\) with prompt_number NULL`)
)

// readmeNullPrompts reads, from the corpus README's per-database tables, how
// many observations of each session have prompt_number NULL (the manifest
// does not carry it; the README names it as a special case where non-zero).
func readmeNullPrompts(tb testing.TB, dir string) map[string]map[string]int {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]map[string]int{}
	var db string
	for line := range strings.SplitSeq(string(raw), "\n") {
		if m := readmeSectionRE.FindStringSubmatch(line); m != nil {
			db = m[1]
			out[db] = map[string]int{}
			continue
		}
		row := readmeRowRE.FindStringSubmatch(line)
		if db == "" || row == nil {
			continue
		}
		if m := nullPromptRE.FindStringSubmatch(line); m != nil {
			out[db][row[1]], _ = strconv.Atoi(m[1])
		}
	}
	if len(out["corpus.db"]) == 0 {
		tb.Fatal("README.md: no prompt_number NULL counts found for corpus.db; has its format changed?")
	}
	return out
}

// TestCorpus checks every session of every corpus database against the
// manifest: prompt, observation and summary counts, ids, status, and the
// observations stored before the first prompt.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(corpustest.Dir(t), "claude-mem")
	nulls := readmeNullPrompts(t, dir)
	byDB := map[string][]manifestEntry{}
	for _, e := range readManifest(t, dir) {
		name := filepath.Base(e.DB)
		byDB[name] = append(byDB[name], e)
	}
	for name, entries := range byDB {
		t.Run(name, func(t *testing.T) {
			db := mustOpen(t, copyCorpusDB(t, dir, name))
			if notes := db.Notes(); len(notes) > 0 {
				t.Errorf("Notes() = %q, want none for a copy in a writable folder", notes)
			}
			list, err := db.Sessions(t.Context(), "")
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]SessionInfo{}
			for _, s := range list {
				listed[s.ContentSessionID] = s
			}
			if len(list) != len(entries) {
				t.Errorf("Sessions(\"\") lists %d sessions, manifest has %d", len(list), len(entries))
			}
			for _, e := range entries {
				s, err := db.Session(t.Context(), e.ContentSessionID)
				if err != nil {
					t.Errorf("Session(%s): %v", e.ContentSessionID, err)
					continue
				}
				wantMem := ""
				if e.MemorySessionID != nil {
					wantMem = *e.MemorySessionID
				}
				got := [...]any{len(s.Prompts), len(s.Observations), len(s.Summaries), s.MemorySessionID, s.Status, s.Project}
				want := [...]any{e.UserPrompts, e.Observations, e.Summaries, wantMem, e.Status, e.Project}
				if got != want {
					t.Errorf("Session(%s) prompts/observations/summaries/memory/status/project = %v, want %v",
						e.ContentSessionID, got, want)
				}
				wantNull := nulls[name][e.ContentSessionID]
				gotNull := 0
				for _, o := range s.Observations {
					if o.PromptNumber == 0 {
						gotNull++
					}
				}
				if gotNull != wantNull {
					t.Errorf("Session(%s): %d observations without prompt number, want %d", e.ContentSessionID, gotNull, wantNull)
				}
				checkOrder(t, s)
				info, ok := listed[e.ContentSessionID]
				switch {
				case !ok:
					t.Errorf("Sessions(\"\") lacks %s", e.ContentSessionID)
				case info.Prompts != e.UserPrompts || info.Observations != e.Observations || info.Summaries != e.Summaries:
					t.Errorf("Sessions(\"\") %s counts = %d/%d/%d, want %d/%d/%d", e.ContentSessionID,
						info.Prompts, info.Observations, info.Summaries, e.UserPrompts, e.Observations, e.Summaries)
				case info.LastActivity.Before(info.Started):
					t.Errorf("Sessions(\"\") %s: LastActivity %v before Started %v", e.ContentSessionID, info.LastActivity, info.Started)
				}
				if len(s.Observations) > 0 {
					ids := []int64{s.Observations[len(s.Observations)-1].ID, s.Observations[0].ID}
					obs, err := db.Observations(t.Context(), ids)
					if err != nil || len(obs) != min(len(s.Observations), 2) || obs[0].ID != ids[0] {
						t.Errorf("Observations(%v) = %d observations, %v", ids, len(obs), err)
					}
				}
			}
			for i := 1; i < len(list); i++ {
				if list[i].LastActivity.After(list[i-1].LastActivity) {
					t.Errorf("Sessions(\"\") not newest first at %d: %v after %v", i, list[i].LastActivity, list[i-1].LastActivity)
				}
			}
		})
	}
}

// checkOrder verifies the documented orderings on real data.
func checkOrder(t *testing.T, s *Session) {
	t.Helper()
	for i := 1; i < len(s.Prompts); i++ {
		if s.Prompts[i].Number < s.Prompts[i-1].Number {
			t.Errorf("%s: prompts out of order at %d", s.ContentSessionID, i)
		}
	}
	for i := 1; i < len(s.Observations); i++ {
		a, b := s.Observations[i-1], s.Observations[i]
		if b.Created.Before(a.Created) || (b.Created.Equal(a.Created) && b.ID < a.ID) {
			t.Errorf("%s: observations out of order at %d", s.ContentSessionID, i)
		}
	}
	for i := 1; i < len(s.Summaries); i++ {
		if s.Summaries[i].Created.Before(s.Summaries[i-1].Created) {
			t.Errorf("%s: summaries out of order at %d", s.ContentSessionID, i)
		}
	}
}

// TestCorpusPrivateAndTruncated pins what the renderer must handle itself:
// a raw <private> secret in UserPrompt, a prompt cut at 4,000 UTF-16 units
// ending in "…", and a summary without prompt number for the private turn.
func TestCorpusPrivateAndTruncated(t *testing.T) {
	dir := filepath.Join(corpustest.Dir(t), "claude-mem")
	db := mustOpen(t, copyCorpusDB(t, dir, "private-and-truncated.db"))
	s, err := db.Session(t.Context(), "d6e0bada-1959-4eec-a9d2-0bfade768d8f")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.UserPrompt, "<private>") || !strings.Contains(s.UserPrompt, "SECRET-") {
		t.Errorf("UserPrompt = %q, want the raw <private> prompt (this package does not strip)", s.UserPrompt)
	}
	for _, p := range s.Prompts {
		if strings.Contains(p.Text, "SECRET-") {
			t.Errorf("prompt %d holds a secret: claude-mem strips user_prompts", p.Number)
		}
	}
	last := s.Prompts[len(s.Prompts)-1].Text
	if n := len(utf16.Encode([]rune(last))); n != 4000 || !strings.HasSuffix(last, "…") {
		t.Errorf("last prompt: %d UTF-16 units, suffix %q; want 4000 ending in …", n, last[len(last)-8:])
	}
	nullSummaries := 0
	for _, sm := range s.Summaries {
		if sm.PromptNumber == 0 {
			nullSummaries++
		}
	}
	if nullSummaries != 1 {
		t.Errorf("%d summaries without prompt number, want 1 (the private turn)", nullSummaries)
	}
}
