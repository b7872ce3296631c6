package tools

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
)

func TestReadBottleRendersWhenMissing(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow.Add(-time.Hour))
	c := newClient(t, f.deps)

	got := wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))
	data, err := os.ReadFile(f.bottlePath(basicSID))
	if err != nil {
		t.Fatalf("bottle not written: %v", err)
	}
	body, footer := splitPage(t, got)
	if body != string(data) {
		t.Errorf("page body differs from the bottle file:\n%s", body)
	}
	wantContains(t, footer, "[bottle "+f.bottlePath(basicSID), "session "+basicSID+" (given)", "rendered now",
		"lines 1–", "end of bottle]")
}

func TestReadBottleFreshness(t *testing.T) {
	f := newFixture(t)
	tr := f.addTranscript(t, "basic", basicSID, fixedNow.Add(-time.Hour))
	c := newClient(t, f.deps)
	path := f.bottlePath(basicSID)
	wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))

	// A bottle newer than its sources is served as it is.
	stamp := "# Session bottle — " + basicSID + "\nhand-made\nthird line\n"
	os.WriteFile(path, []byte(stamp), 0o600)
	got := wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))
	if body, footer := splitPage(t, got); body != stamp || strings.Contains(footer, "rendered") {
		t.Errorf("fresh bottle was re-rendered: %q / %q", body, footer)
	}

	// Transcript newer than the bottle: a later page is served from the
	// same file (offsets stay valid) and says so; the first page re-renders.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	now := time.Now()
	os.Chtimes(tr, now, now)
	got = wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID, "offset": 1}))
	if body, footer := splitPage(t, got); body != "hand-made\nthird line\n" || !strings.Contains(footer, "read from offset 0 to re-render") {
		t.Errorf("later page of a stale bottle: %q / %q", body, footer)
	}
	got = wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))
	if body, footer := splitPage(t, got); !strings.Contains(footer, "re-rendered now") || strings.Contains(body, "hand-made") {
		t.Errorf("stale first page not re-rendered: %q / %q", body, footer)
	}
	// The file stays for the hooks to rewrite (TestReadBottleLeavesTheFile).
	if data, _ := os.ReadFile(path); string(data) != stamp {
		t.Errorf("the first page replaced the bottle file: %q", data)
	}

	// claude-mem's database (or its WAL) newer than the bottle re-renders too.
	for _, db := range []string{f.deps.Env.DBPath(), f.deps.Env.DBPath() + "-wal"} {
		os.WriteFile(path, []byte(stamp), 0o600)
		os.Chtimes(path, old, old)
		os.Chtimes(tr, old, old)
		os.MkdirAll(f.deps.Env.DataDir(), 0o700)
		os.WriteFile(db, nil, 0o600)
		got = wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))
		if _, footer := splitPage(t, got); !strings.Contains(footer, "re-rendered now") {
			t.Errorf("%s newer than the bottle: not re-rendered: %q", db, footer)
		}
		os.Remove(db)
	}
}

// TestReadBottleLeavesTheFile: the first page of a bottle older than its
// sources pages a fresh render and leaves the file alone, as the host may be
// reading it for a call made beside read_bottle (Claude Code refuses a file
// that was renamed over between its open and its check of what it opened);
// the pages after it continue that render, even when a hook rewrites the
// file in between.
func TestReadBottleLeavesTheFile(t *testing.T) {
	f := newFixture(t)
	const sid = "leaves-the-file-1"
	f.writeTranscript(t, sid, longSession(t, sid, 20), fixedNow)
	c := newClient(t, f.deps)
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": sid}))
	path := f.bottlePath(sid)
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The session goes on: the transcript is newer than the bottle.
	f.writeTranscript(t, sid, longSession(t, sid, 24), time.Now().Add(time.Minute))
	held, err := os.Open(path) // as the host's Read holds it
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	opened, err := held.Stat()
	if err != nil {
		t.Fatal(err)
	}

	var pages strings.Builder
	args := map[string]any{"session_id": sid, "max_chars": 3000}
	for n := 0; ; n++ {
		body, footer := splitPage(t, wantOK(t, call(t, c, "read_bottle", args)))
		if n == 0 {
			wantContains(t, footer, "re-rendered now")
			if now, err := os.Stat(path); err != nil || !os.SameFile(opened, now) {
				t.Fatalf("read_bottle replaced the bottle file a reader holds open (%v)", err)
			}
			if data, _ := os.ReadFile(path); string(data) != string(old) {
				t.Fatal("read_bottle rewrote the bottle file")
			}
			// The Stop hook writes another render while the model pages.
			if err := os.WriteFile(path, []byte("# Session bottle — "+sid+"\nthe hook's render\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		} else if strings.Contains(footer, "rendered") || strings.Contains(body, "re-rendered since") {
			t.Fatalf("page %d does not continue the first page's render: %.80q / %q", n, body, footer)
		}
		pages.WriteString(strings.TrimPrefix(body, continued))
		if strings.HasSuffix(footer, "end of bottle]") {
			break
		}
		if n > 1000 {
			t.Fatal("paging does not end")
		}
		args = nextArgs(t, footer, 3000)
	}

	// The pages are the render of the grown session, the one render_bottle
	// writes now (the clock is fixed).
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": sid}))
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := pages.String(); got != string(want) {
		t.Errorf("pages (%d bytes) differ from the render of the grown session (%d bytes)", len(got), len(want))
	}
	if !strings.Contains(string(want), "PROMPT-23") || strings.Contains(string(old), "PROMPT-23") {
		t.Fatalf("precondition: the grown session's last prompt is in the new render only")
	}
}

func TestReadBottleKeepsOldBottleWhenRenderFails(t *testing.T) {
	f := newFixture(t)
	tr := f.addTranscript(t, "basic", basicSID, fixedNow.Add(-time.Hour))
	c := newClient(t, f.deps)
	wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))
	old := time.Now().Add(-time.Hour)
	os.Chtimes(f.bottlePath(basicSID), old, old)
	// A database that cannot be read, newer than the bottle.
	os.MkdirAll(f.deps.Env.DataDir(), 0o700)
	os.WriteFile(f.deps.Env.DBPath(), []byte("not a database at all, but long enough to be read as one"), 0o600)
	os.Remove(tr) // and no transcript: nothing to render
	got := wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": basicSID}))
	body, footer := splitPage(t, got)
	wantContains(t, footer, "could not re-render", "showing the previous bottle")
	if !strings.HasPrefix(body, "# Session bottle — "+basicSID) {
		t.Errorf("previous bottle not shown: %q", body)
	}
}

// splitPage splits a read_bottle result into the file's text and the
// footer line.
func splitPage(t testing.TB, s string) (body, footer string) {
	t.Helper()
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		t.Fatalf("page without a footer line: %q", s)
	}
	body, footer = s[:i], s[i+1:]
	if !strings.HasPrefix(footer, "[bottle ") || !strings.HasSuffix(footer, "]") {
		t.Fatalf("footer %q", footer)
	}
	return body, footer
}

// readAll pages through a bottle with read_bottle and returns the pages'
// bodies.
func readAll(t testing.TB, c *client.Client, id string, maxChars int) []string {
	t.Helper()
	var pages []string
	args := map[string]any{"session_id": id, "max_chars": maxChars}
	for range 100000 {
		got := wantOK(t, call(t, c, "read_bottle", args))
		body, footer := splitPage(t, got)
		// A page that starts inside a line says so; without that
		// marker, the pages join to the file.
		rest, marked := strings.CutPrefix(body, continued)
		if inside := args["char_offset"] != nil; marked != inside {
			t.Fatalf("page at %v starts %.40q: marked %v, want %v", args, body, marked, inside)
		}
		pages = append(pages, rest)
		if strings.HasSuffix(footer, "end of bottle]") {
			return pages
		}
		next := nextArgs(t, footer, maxChars)
		if next["session_id"] != id {
			t.Fatalf("footer names session %v, want %s", next["session_id"], id)
		}
		args = next
	}
	t.Fatal("paging does not end")
	return nil
}

// nextArgs are the read_bottle arguments footer names for the next page,
// with max_chars.
func nextArgs(t testing.TB, footer string, maxChars int) map[string]any {
	t.Helper()
	i := strings.Index(footer, "next read_bottle ")
	if i < 0 {
		t.Fatalf("footer names no next page: %q", footer)
	}
	args := map[string]any{}
	if err := jsonUnmarshal(strings.TrimSuffix(footer[i+len("next read_bottle "):], "]"), &args); err != nil {
		t.Fatalf("footer args: %v (%q)", err, footer)
	}
	args["max_chars"] = maxChars
	return args
}

// paged is a bottle with short, empty, multi-byte and over-long lines, and
// no final newline.
func paged() string {
	var b strings.Builder
	b.WriteString("# Session bottle — paged\n\n")
	for i := range 60 {
		b.WriteString(strings.Repeat("word ", i%13))
		b.WriteString("ünïcödé 日本語 😀\n")
	}
	b.WriteString(strings.Repeat("é", 1000) + "\n")                 // one line of 1,000 characters
	b.WriteString(strings.Repeat("x", 450) + "😀" + "\n")            // a cut lands next to a 4-byte rune
	b.WriteString(strings.Repeat("y", 199) + "\n" + "z\n" + "tail") // exactly a page, then no final newline
	return b.String()
}

func TestReadBottlePagingCoversEveryLine(t *testing.T) {
	f := newFixture(t)
	const id = "paged-session"
	want := paged()
	os.MkdirAll(f.deps.Env.BottlesDir(), 0o700)
	os.WriteFile(f.bottlePath(id), []byte(want), 0o600)
	c := newClient(t, f.deps)

	for _, limit := range []int{200, 201, 333, 1000, 25000} {
		pages := readAll(t, c, id, limit)
		if got := strings.Join(pages, ""); got != want {
			t.Fatalf("max_chars %d: pages joined differ from the file (%d vs %d bytes)", limit, len(got), len(want))
		}
		for i, p := range pages {
			if n := utf8.RuneCountInString(p); n > limit {
				t.Errorf("max_chars %d: page %d has %d characters", limit, i, n)
			}
			if !utf8.ValidString(p) {
				t.Errorf("max_chars %d: page %d cut inside a character", limit, i)
			}
			// Only a line longer than a page is cut.
			if i+1 < len(pages) && !strings.HasSuffix(p, "\n") && utf8.RuneCountInString(p) < limit {
				t.Errorf("max_chars %d: page %d ends inside a line that would have fit: %q", limit, i, p[max(0, len(p)-20):])
			}
		}
	}
}

func TestReadBottlePagingRendered(t *testing.T) {
	const id = "33333333-4444-4555-8666-777777777777"
	f := newFixture(t)
	f.writeTranscript(t, id, manyTurns(30, 2000), fixedNow)
	c := newClient(t, f.deps)
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": id, "budget_tokens": 0}))
	want, _ := os.ReadFile(f.bottlePath(id))
	pages := readAll(t, c, id, DefaultPageChars)
	if len(pages) < 3 {
		t.Errorf("%d pages of a %d-byte bottle, want several", len(pages), len(want))
	}
	if got := strings.Join(pages, ""); got != string(want) {
		t.Error("pages joined differ from the bottle")
	}
}

func TestReadBottleLongLineFooter(t *testing.T) {
	f := newFixture(t)
	os.MkdirAll(f.deps.Env.BottlesDir(), 0o700)
	os.WriteFile(f.bottlePath("long"), []byte("a\n"+strings.Repeat("é", 500)+"\nb\n"), 0o600)
	c := newClient(t, f.deps)
	got := wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": "long", "offset": 1, "max_chars": 200}))
	_, footer := splitPage(t, got)
	wantContains(t, footer, "lines 2–2 of 3", "line 2 is longer than a page and continues",
		`{"session_id":"long","offset":1,"char_offset":200,"version":"`)
	got = wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": "long", "offset": 1, "char_offset": 400, "max_chars": 200}))
	body, footer := splitPage(t, got)
	if want := continued + strings.Repeat("é", 100) + "\nb\n"; body != want {
		t.Errorf("last part of the line: %q, want %q", body, want)
	}
	wantContains(t, footer, "lines 2 (from character 400)–3 of 3", "end of bottle]")
}

func TestReadBottleErrors(t *testing.T) {
	f := newFixture(t)
	f.addTranscript(t, "basic", basicSID, fixedNow)
	os.MkdirAll(f.deps.Env.BottlesDir(), 0o700)
	os.WriteFile(f.bottlePath("three"), []byte("one\ntwo\nthree\n"), 0o600)
	c := newClient(t, f.deps)

	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"PastEnd", map[string]any{"session_id": "three", "offset": 3}, []string{"offset 3 is past the end", "3 lines (offsets 0 to 2)"}},
		{"Negative", map[string]any{"session_id": "three", "offset": -1}, []string{"count from 0"}},
		{"NotInteger", map[string]any{"session_id": "three", "offset": "first"}, []string{"offset must be an integer"}},
		{"CharOffsetPastLine", map[string]any{"session_id": "three", "offset": 1, "char_offset": 4}, []string{"char_offset 4 is past the end of line 2"}},
		{"MaxCharsSmall", map[string]any{"session_id": "three", "max_chars": 10}, []string{"max_chars must be between 200 and 100,000"}},
		{"MaxCharsLarge", map[string]any{"session_id": "three", "max_chars": 1000000}, []string{"max_chars must be between"}},
		{"UnknownSession", map[string]any{"session_id": "nobody"}, []string{"Nothing to render", basicSID}},
		{"BadID", map[string]any{"session_id": "../../x"}, []string{"invalid session_id"}},
		{"UnknownArgument", map[string]any{"session_id": "three", "line": 2}, []string{`unknown argument(s) "line"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, c, "read_bottle", tt.args), tt.want...)
		})
	}
	// A line exactly consumed: char_offset at its end still has the newline.
	got := wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": "three", "offset": 1, "char_offset": 3}))
	if body, _ := splitPage(t, got); body != continued+"\nthree\n" {
		t.Errorf("char_offset at end of line: %q", body)
	}
}

func TestPageOf(t *testing.T) {
	tests := []struct {
		name                  string
		data                  string
		offset, charOff, max  int
		want                  string
		next, nextChar, lines int
		msg                   string
	}{
		{name: "Empty", data: "", max: 5, want: "", next: -1},
		{name: "All", data: "a\nb\n", max: 10, want: "a\nb\n", next: -1, lines: 2},
		{name: "WholeLinesOnly", data: "aaa\nbbb\n", max: 6, want: "aaa\n", next: 1, lines: 2},
		{name: "NewlineCounts", data: "aaa\nbbb\n", max: 8, want: "aaa\nbbb\n", next: -1, lines: 2},
		{name: "CutLongLine", data: "aaaaaa\nb", max: 4, want: "aaaa", next: 0, nextChar: 4, lines: 2},
		{name: "ContinueLine", data: "aaaaaa\nb", charOff: 4, max: 4, want: "aa\nb", next: -1, lines: 2},
		{name: "CutRunes", data: "ééééé\n", max: 2, want: "éé", next: 0, nextChar: 2, lines: 1},
		{name: "NoFinalNewline", data: "a\nb", offset: 1, max: 5, want: "b", next: -1, lines: 2},
		{name: "PastEnd", data: "a\nb", offset: 2, max: 5, msg: "offset 2 is past the end", lines: 2},
		{name: "EmptyFileOffset", data: "", offset: 1, max: 5, msg: "the bottle is empty"},
		{name: "CharOffsetPast", data: "ab", charOff: 2, max: 5, msg: "char_offset 2 is past", lines: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, msg := pageOf([]byte(tt.data), tt.offset, tt.charOff, tt.max)
			if tt.msg != "" {
				if !strings.Contains(msg, tt.msg) {
					t.Errorf("pageOf msg = %q, want %q", msg, tt.msg)
				}
				return
			}
			if msg != "" {
				t.Fatalf("pageOf msg = %q", msg)
			}
			if p.text != tt.want || p.next != tt.next || p.nextChar != tt.nextChar || p.lines != tt.lines {
				t.Errorf("pageOf(%q, %d, %d, %d) = %q next %d/%d lines %d; want %q next %d/%d lines %d",
					tt.data, tt.offset, tt.charOff, tt.max, p.text, p.next, p.nextChar, p.lines,
					tt.want, tt.next, tt.nextChar, tt.lines)
			}
		})
	}
}

// TestPageOfRandom: for random texts and page sizes, following next and
// nextChar visits every byte exactly once.
func TestPageOfRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc", "\n", "é", "日本", "😀", "\n\n", "word ", "\xff"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(80) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		data := b.String()
		max := 1 + r.IntN(12)
		got := pageThrough(t, data, max, func(p page, _, _ int) {
			if n := utf8.RuneCountInString(p.text); n > max {
				t.Fatalf("page of %d characters > %d", n, max)
			}
		})
		if got != data {
			t.Fatalf("pages of %q by %d join to %q", data, max, got)
		}
	}
}
