package render

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"bottle/claudemem"
	"bottle/internal/measure/corpustest"
	"bottle/privacy"
	"bottle/render/structural"
)

// copyDB copies a corpus database (with its -wal and -shm files) into a
// temp dir: it must not be opened in place.
func copyDB(tb testing.TB, name string) string { return corpustest.CopyDB(tb, name) }

type manifestEntry struct {
	DB               string  `json:"db"`
	ContentSessionID string  `json:"content_session_id"`
	Transcript       *string `json:"transcript"`
	Emitted          *string `json:"emitted_transcript"`
	Observations     int     `json:"observations"`
	Prompts          int     `json:"user_prompts"`
}

func readManifest(tb testing.TB) []manifestEntry {
	tb.Helper()
	f, err := os.Open(filepath.Join(corpustest.Dir(tb), "claude-mem", "manifest.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []manifestEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e manifestEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			tb.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// transcriptOf returns the corpus path of an entry's transcript, or "".
// The private-and-truncated sample was written for the transcript as the
// generator emitted it (with the private and long prompts added).
func (e manifestEntry) transcriptOf(tb testing.TB) string {
	emitted := filepath.Join(corpustest.Dir(tb), "claude-mem", "private-and-truncated", e.ContentSessionID+".jsonl")
	if filepath.Base(e.DB) != "corpus.db" {
		if _, err := os.Stat(emitted); err == nil {
			return emitted
		}
	}
	rel := e.Transcript
	if e.Emitted != nil {
		rel = e.Emitted
	}
	if rel == nil {
		return ""
	}
	p := *rel
	if i := strings.Index(p, "shared/corpus/"); i >= 0 {
		return filepath.Join(corpustest.Dir(tb), p[i+len("shared/corpus/"):])
	}
	if _, err := os.Stat(filepath.Join(corpustest.Dir(tb), "transcripts", p)); err == nil {
		return filepath.Join(corpustest.Dir(tb), "transcripts", p)
	}
	return filepath.Join(corpustest.Dir(tb), "claude-mem", p)
}

var obsLine = regexp.MustCompile(`(?m)^- \[#([0-9]+)\] `)

// sections splits a bottle at its **User** headings: section 0 is the
// header and the preamble, section i is turn i.
func sections(md string) []string {
	parts := strings.Split(md, "\n**User** (")
	return parts
}

// TestCorpusDatabases renders every session of every corpus database and
// checks that each observation of a session appears exactly once, in the
// span of turns its prompt number names.
func TestCorpusDatabases(t *testing.T) {
	dbs := map[string]string{}
	for _, e := range readManifest(t) {
		name := filepath.Base(e.DB)
		if dbs[name] == "" {
			dbs[name] = copyDB(t, name)
		}
		t.Run(name+"/"+e.ContentSessionID, func(t *testing.T) {
			o := Options{SessionID: e.ContentSessionID, DBPath: dbs[name], TranscriptPath: e.transcriptOf(t), Now: fixedNow, Location: time.UTC, NoBudget: true}
			res, err := Render(context.Background(), o)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			md := string(res.Markdown)
			wantMode := ModeFull
			if o.TranscriptPath == "" {
				wantMode = ModeReconstructed
			}
			if res.Mode != wantMode {
				t.Errorf("mode = %s, want %s", res.Mode, wantMode)
			}
			if strings.Contains(md, "SECRET-") || strings.Contains(strings.ToLower(md), "<private") {
				t.Error("bottle leaks private text")
			}
			db, err := claudemem.Open(context.Background(), dbs[name])
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			s, err := db.Session(context.Background(), e.ContentSessionID)
			if err != nil {
				t.Fatal(err)
			}
			if res.Observations != len(s.Observations) {
				t.Errorf("Observations = %d, want %d", res.Observations, len(s.Observations))
			}
			// Every id of the default bottle expands.
			def, err := Render(context.Background(), Options{SessionID: o.SessionID, DBPath: o.DBPath, TranscriptPath: o.TranscriptPath, Now: fixedNow, Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			exps, err := Expand(context.Background(), ExpandOptions{SessionID: o.SessionID, DBPath: o.DBPath, TranscriptPath: o.TranscriptPath, Location: time.UTC}, idsIn(string(def.Markdown)))
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range exps {
				if !x.Found && !(wantMode == ModeReconstructed && strings.HasPrefix(x.ID, "a")) {
					t.Errorf("id %s does not expand: %s", x.ID, x.Missing)
				}
				if strings.Contains(x.Text, "SECRET-") {
					t.Errorf("expansion of %s leaks private text", x.ID)
				}
			}
			secs := sections(md)
			where := map[string][]int{}
			for i, sec := range secs {
				for _, m := range obsLine.FindAllStringSubmatch(sec, -1) {
					where[m[1]] = append(where[m[1]], i)
				}
			}
			// turnOf[k] = turn (1-based) of stored prompt k: claude-mem
			// numbers the prompts it stored, which skip fully private ones.
			turnOf := map[int]int{0: 0}
			if wantMode == ModeReconstructed {
				for k := range s.Prompts {
					turnOf[s.Prompts[k].Number] = k + 1
				}
			} else {
				k := 0
				for i, p := range readExpected(t, o.TranscriptPath).prompts {
					// Fully private prompts are not stored; empty ones
					// are, as "[media prompt]".
					if strings.TrimSpace(privacy.Strip(p)) != "" || strings.TrimSpace(p) == "" {
						k++
						turnOf[k] = i + 1
					}
				}
			}
			for _, ob := range s.Observations {
				id := fmt.Sprint(ob.ID)
				got := where[id]
				if len(got) != 1 {
					t.Errorf("observation %s appears %d times, want once", id, len(got))
					continue
				}
				lo := turnOf[ob.PromptNumber]
				hi, ok := turnOf[ob.PromptNumber+1]
				if !ok {
					hi = len(secs)
				}
				if got[0] < lo || got[0] >= max(hi, lo+1) {
					t.Errorf("observation %s (prompt %d) in section %d, want in [%d,%d)", id, ob.PromptNumber, got[0], lo, max(hi, lo+1))
				}
			}
		})
	}
}

// skeleton is how a corpus golden bottle is kept: its structural lines and
// [#id] tags, plus a hash of the whole — never the corpus text itself.
func skeleton(md []byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "sha256 %x\n", sha256.Sum256(md))
	for _, l := range strings.Split(string(md), "\n") {
		switch {
		case strings.HasPrefix(l, "- [#") || strings.HasPrefix(l, "- ⏳ [#"):
			if i := strings.Index(l, "] "); i >= 0 {
				l = l[:i+1]
			}
			b.WriteString(l + "\n")
		case strings.HasPrefix(l, "project:"), strings.HasPrefix(l, "> Session summary"):
			b.WriteString(strings.SplitN(l, " ", 2)[0] + " …\n")
		case l == "---" || strings.HasPrefix(l, "**User** (") || strings.HasPrefix(l, "**Assistant** (") ||
			strings.HasPrefix(l, "# Session bottle") || strings.HasPrefix(l, "## ") && structural.At(l) != 0 ||
			strings.HasPrefix(l, "mode:") || l == "*What happened:*":
			b.WriteString(l + "\n")
		}
	}
	return []byte(b.String())
}

func TestCorpusDatabaseGoldens(t *testing.T) {
	tests := []struct{ db, session string }{
		{"corpus.db", "55604662-cf2a-4331-851a-ec234028f8ca"},
		{"corpus.db", "491e126e-1e71-469c-ade2-fcc8af567c74"},
		{"corpus.db", "3a34149b-d216-4449-a973-b84d342d989b"},
		{"private-and-truncated.db", "d6e0bada-1959-4eec-a9d2-0bfade768d8f"},
		{"older-10.6.3.db", "36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2"},
		{"older-13.4.0.db", "3161ac7e-b448-4686-b722-94b3f605d13e"},
	}
	entries := readManifest(t)
	for _, tt := range tests {
		t.Run(tt.db+"/"+tt.session, func(t *testing.T) {
			var e manifestEntry
			for _, m := range entries {
				if m.ContentSessionID == tt.session && filepath.Base(m.DB) == tt.db {
					e = m
				}
			}
			res, err := Render(context.Background(), Options{SessionID: tt.session, DBPath: copyDB(t, tt.db),
				TranscriptPath: e.transcriptOf(t), Now: fixedNow, Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "corpus-"+strings.TrimSuffix(tt.db, ".db")+"-"+tt.session[:8]+".skeleton", skeleton(res.Markdown))
		})
	}
}
