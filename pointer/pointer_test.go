package pointer

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"bottle/ident"
	"bottle/internal/goldentest"
)

const pointerID = "e179046d-7049-4ccf-9e8a-2fb2bb450298"

func TestPointerGolden(t *testing.T) {
	tests := []struct {
		golden string
		in     Input
	}{
		{"pointer-full.golden", Input{
			BottlePath:  "/home/dev/.claude-mem/bottles/" + pointerID + ".md",
			SessionID:   pointerID,
			Mode:        ident.ModeFull,
			CurrentTask: "Wire the  SessionStart hook\nand test it <private>sk-secret</private>on both CLI versions.",
		}},
		{"pointer-host.golden", Input{
			BottlePath:  "/home/dev/.claude-mem/bottles/" + pointerID + ".md",
			SessionID:   pointerID,
			Mode:        ident.ModeFull,
			Standalone:  true,
			NeedsPaging: true,
			CurrentTask: "Fix the cart total",
			Host:        testHost,
		}},
		{"pointer-reconstructed.golden", Input{
			BottlePath:  "/home/dev/.claude-mem/bottles/" + pointerID + ".md",
			SessionID:   pointerID,
			Mode:        ident.ModeReconstructed,
			CurrentTask: SummaryTask("Port the parser to Go", "add fuzz tests\n- run them in CI"),
		}},
		{"pointer-stale.golden", Input{
			BottlePath:    "/home/dev/.claude-mem/bottles/" + pointerID + ".md",
			SessionID:     pointerID,
			Mode:          ident.ModeFull,
			CurrentTask:   SummaryTask("Fix the flaky test", "Follow up on the 2 failing tool calls"),
			TaskGenerated: true,
			LastActive:    time.Date(2026, 1, 5, 10, 5, 0, 0, time.UTC),
			Now:           time.Date(2026, 1, 20, 9, 0, 0, 0, time.UTC),
		}},
		{"pointer-paging.golden", Input{
			BottlePath:  "/home/dev/.claude-mem/bottles/" + pointerID + ".md",
			SessionID:   pointerID,
			Mode:        ident.ModeFull,
			CurrentTask: "Keep going.",
			NeedsPaging: true,
		}},
		{"pointer-plugin.golden", Input{
			BottlePath:  "/home/dev/.claude-mem/bottles/" + pointerID + ".md",
			SessionID:   pointerID,
			Mode:        ident.ModeFull,
			CurrentTask: "Keep going.",
			NeedsPaging: true,
			MCP:         PluginNames,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got := Text(tt.in)
			golden(t, tt.golden, []byte(got))
			if again := Text(tt.in); again != got {
				t.Error("Pointer is not deterministic")
			}
			checkPointerCaps(t, got)
			if strings.Contains(got, "sk-secret") {
				t.Error("pointer leaks private text")
			}
			for _, s := range []string{tt.in.BottlePath + "   (session " + pointerID + ")", "session_id " + pointerID + "."} {
				if !strings.Contains(got, s) {
					t.Errorf("pointer lacks %q", s)
				}
			}
		})
	}
}

// TestPointerToolNames: the pointer names every tool as the model sees it
// in the install it runs under, and no other install's names.
func TestPointerToolNames(t *testing.T) {
	for _, tt := range []struct {
		pluginRoot string
		want, not  string
	}{
		{"", "mcp__bottle__", "mcp__plugin_"},
		{"/home/dev/.claude/plugins/cache/bottle/bottle/0.1.0", "mcp__plugin_bottle_bottle__", "mcp__bottle__"},
	} {
		got := Text(Input{BottlePath: "/b/x.md", SessionID: "x", NeedsPaging: true, MCP: NamesFor(tt.pluginRoot)})
		for _, tool := range []string{"read_bottle", "expand_observation", "render_bottle"} {
			if n, full := strings.Count(got, tool), strings.Count(got, tt.want+tool); full == 0 || n != full {
				t.Errorf("root %q: %s named %d times, %d of them as %s%s:\n%s", tt.pluginRoot, tool, n, full, tt.want, tool, got)
			}
		}
		if strings.Contains(got, tt.not) {
			t.Errorf("root %q: pointer names %s:\n%s", tt.pluginRoot, tt.not, got)
		}
	}
}

func TestPointerModes(t *testing.T) {
	in := Input{BottlePath: "/b/x.md", SessionID: "x", CurrentTask: "t"}
	full := Text(in)
	in.Mode = ident.ModeReconstructed
	recon := Text(in)
	for _, s := range []string{"authoritative session record", "already delivered to the user"} {
		if !strings.Contains(full, s) || strings.Contains(recon, s) {
			t.Errorf("%q: want it in full mode only", s)
		}
	}
	for _, s := range []string{"partial reconstruction", "The last session summary describes where you left off"} {
		if strings.Contains(full, s) || !strings.Contains(recon, s) {
			t.Errorf("%q: want it in reconstructed mode only", s)
		}
	}
	if strings.Contains(full, "longer than one Read allows") {
		t.Error("pointer asks to page a bottle that fits one Read")
	}
	if got := Text(Input{BottlePath: "/b/x.md", SessionID: "x"}); !strings.Contains(got, "\nCurrent task: not recorded") {
		t.Errorf("no current task:\n%s", got)
	}
}

// TestPointerStandalone: with no claude-mem record of the session the
// pointer speaks of digests, never of observations (the expand tool's name
// aside), fresh or not.
func TestPointerStandalone(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		got := Text(Input{BottlePath: "/b/x.md", SessionID: "x", CurrentTask: "t", Standalone: true, Fresh: fresh})
		if n := strings.Count(got, "observation"); n != strings.Count(got, "expand_observation") {
			t.Errorf("fresh=%v: standalone pointer mentions observations:\n%s", fresh, got)
		}
		if !strings.Contains(got, "one-line digest") || !strings.Contains(got, "authoritative session record") {
			t.Errorf("fresh=%v: standalone pointer does not say tool calls are digests:\n%s", fresh, got)
		}
	}
	if got := Text(Input{BottlePath: "/b/x.md", SessionID: "x"}); !strings.Contains(got, "settling into observations") {
		t.Errorf("pointer with claude-mem lost its observations line:\n%s", got)
	}
}

// TestPointerCaps feeds hostile input: the pointer stays within Claude Code's
// caps and on its lines.
func TestPointerCaps(t *testing.T) {
	huge := strings.Repeat("line\n", 10000) + strings.Repeat("𝄞", 20000)
	tests := []struct {
		name string
		in   Input
	}{
		{"HugeTask", Input{BottlePath: "/b/x.md", SessionID: "x", CurrentTask: huge, NeedsPaging: true}},
		{"HugePath", Input{BottlePath: "/" + strings.Repeat("é/", 50000) + "x.md", SessionID: "x", CurrentTask: huge}},
		{"NewlinesInPath", Input{BottlePath: "/tmp/a\nb\r\nc\u2028d\x00e.md", SessionID: "x"}},
		{"BadID", Input{BottlePath: "/b/x.md", SessionID: strings.Repeat("../\n", 5000), Mode: ident.ModeReconstructed}},
		{"InvalidUTF8", Input{BottlePath: "/b/\xff\xfe.md", SessionID: "x", CurrentTask: "\xff\xfe task \x1b[31m red"}},
		{"Everything", Input{BottlePath: strings.Repeat("\n", 100000), SessionID: strings.Repeat("\n", 100000), CurrentTask: huge, NeedsPaging: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in)
			checkPointerCaps(t, got)
			if n := strings.Count(got, "\n"); n > 14 {
				t.Errorf("pointer has %d lines, want ≤ 14: input broke its line structure", n)
			}
			if !strings.HasPrefix(got, "# [bottle] Endless Mode — session continuation\n") {
				t.Errorf("pointer lost its heading: %.200q", got)
			}
			if !strings.Contains(got, "\nCurrent task: ") {
				t.Errorf("pointer lost its task line")
			}
			if !utf8.ValidString(got) {
				t.Error("pointer is not valid UTF-8")
			}
		})
	}
}

func checkPointerCaps(t *testing.T, got string) {
	t.Helper()
	if n := len(utf16.Encode([]rune(got))); n > MaxUnits {
		t.Errorf("pointer is %d UTF-16 units, want ≤ %d", n, MaxUnits)
	}
	if n := strings.Count(got, "\n") + 1; n > MaxLines {
		t.Errorf("pointer has %d lines, want ≤ %d", n, MaxLines)
	}
}

func TestClampText(t *testing.T) {
	s := strings.Repeat("ab\n", 500) + strings.Repeat("😀", 5000)
	got := clampText(s, 8000, 200)
	if n := strings.Count(got, "\n"); n != 200 || !strings.HasSuffix(got, "ab\n") {
		t.Errorf("clampText kept %d lines", n)
	}
	got = clampText(strings.Repeat("😀", 5000), 8001, 200)
	if n := len(utf16.Encode([]rune(got))); n != 8000 || !utf8.ValidString(got) {
		t.Errorf("clampText kept %d units (valid UTF-8: %v), want 8000 whole runes", n, utf8.ValidString(got))
	}
}

func TestTaskLine(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"Empty", "", ""},
		{"Flattened", "  fix the\n\tparser \r\n now ", "fix the parser now"},
		{"Private", "deploy <private>token=abc</private>to prod", "deploy to prod"},
		{"UnclosedPrivate", "deploy <private>token=abc", "deploy"},
		{"Controls", "a\x1b[31mb\x00c", "a [31mb c"},
		{"InvalidUTF8", "a\xffb", "a\uFFFDb"},
		{"LineSeparators", "a\u2028b\u0085c", "a b c"},
		{"Long", strings.Repeat("x", 400), strings.Repeat("x", TaskMaxChars-1) + "…"},
		{"LongWide", strings.Repeat("界", 400), strings.Repeat("界", TaskMaxChars-1) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TaskLine(tt.in); got != tt.want {
				t.Errorf("TaskLine(%.60q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := TaskLine(tt.in); TaskLine(got) != got {
				t.Errorf("TaskLine is not idempotent on %q", got)
			}
		})
	}
}

func TestSummaryTask(t *testing.T) {
	tests := []struct{ req, next, want string }{
		{"", "", ""},
		{"Port the parser", "", "Port the parser"},
		{"", "write tests", "next steps: write tests"},
		{"Port the parser", "write\ntests", "Port the parser — next steps: write tests"},
		{"<private>x</private>", "  ", ""},
	}
	for _, tt := range tests {
		if got := SummaryTask(tt.req, tt.next); got != tt.want {
			t.Errorf("SummaryTask(%q, %q) = %q, want %q", tt.req, tt.next, got, tt.want)
		}
	}
	long := SummaryTask(strings.Repeat("r", 1000), "the next step")
	if !strings.HasSuffix(TaskLine(long), "— next steps: the next step") {
		t.Errorf("a long request crowds out the next steps: %q", TaskLine(long))
	}
}

// TestPointerAge: the pointer says when the session was last active, and
// warns past StaleAfter, by the clock it is given.
func TestPointerAge(t *testing.T) {
	last := time.Date(2026, 1, 5, 10, 5, 0, 0, time.UTC)
	tests := []struct {
		name      string
		last, now time.Time
		line      string // the last-active line, "" for none
		warn      string // the age warning, "" for none
	}{
		{"unknown", time.Time{}, last, "", ""},
		{"fresh", last, last.Add(2 * time.Hour), "Last active: 2026-01-05T10:05:00Z\n", ""},
		{"a week exactly", last, last.Add(StaleAfter), "Last active: 2026-01-05T10:05:00Z\n", ""},
		{"old", last, last.Add(30 * 24 * time.Hour), "Last active: 2026-01-05T10:05:00Z\n", "- This record is 30 days old: verify its state against the working tree"},
		{"no clock", last, time.Time{}, "Last active: 2026-01-05T10:05:00Z\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(Input{BottlePath: "/b/x.md", SessionID: "x", CurrentTask: "t", LastActive: tc.last, Now: tc.now})
			if has := strings.Contains(got, "Last active:"); has != (tc.line != "") || tc.line != "" && !strings.Contains(got, tc.line) {
				t.Errorf("last-active line: want %q in\n%s", tc.line, got)
			}
			if has := strings.Contains(got, "days old"); has != (tc.warn != "") || tc.warn != "" && !strings.Contains(got, tc.warn) {
				t.Errorf("age warning: want %q in\n%s", tc.warn, got)
			}
		})
	}
	gen := Text(Input{BottlePath: "/b/x.md", SessionID: "x", CurrentTask: "t", TaskGenerated: true})
	if !strings.Contains(gen, "\nCurrent task (from claude-mem's generated summary, not the user's words): t\n") {
		t.Errorf("a generated task is not labelled:\n%s", gen)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", name), got, *update)
}

// TestPointerNotRefreshed: a pointer to a bottle that could not be
// refreshed says so and when it was last rendered, and is still the
// pointer (Holds finds it).
func TestPointerNotRefreshed(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	at := time.Date(2026, 3, 1, 10, 20, 0, 0, time.FixedZone("X", 3600))
	in := Input{BottlePath: "/b/" + id + ".md", SessionID: id, NotRefreshed: at, MCP: PluginNames}
	p := Text(in)
	want := "- It could not be refreshed now; it was last rendered at 2026-03-01T09:20:00Z, so what\n" +
		"  happened after that is missing from it. Call mcp__plugin_bottle_bottle__render_bottle to try again.\n"
	if !strings.Contains(p, want) {
		t.Errorf("pointer lacks %q:\n%s", want, p)
	}
	if in.NotRefreshed = (time.Time{}); strings.Contains(Text(in), "could not be refreshed") {
		t.Error("a refreshed bottle's pointer says it was not")
	}
	for _, tt := range []struct {
		texts     []string
		path, id  string
		wantHolds bool
	}{
		{[]string{p}, "/b/" + id + ".md", id, true},
		{[]string{"other context\n" + p}, "/b/" + id + ".md", id, true},
		{[]string{p}, "/c/" + id + ".md", id, false},
		{[]string{p}, "/b/" + id + ".md", "22222222-2222-4333-8444-555555555555", false},
		{[]string{strings.Replace(p, "Read this file", "read this file", 1)}, "/b/" + id + ".md", id, false},
		{nil, "/b/" + id + ".md", id, false},
	} {
		if got := Holds(tt.texts, tt.path, tt.id); got != tt.wantHolds {
			t.Errorf("Holds(%.40q…, %s, %s) = %v, want %v", tt.texts, tt.path, tt.id, got, tt.wantHolds)
		}
	}
}

// uncovered lists the lines of a pointer that start with none of
// openings: all but its path line (the third) and the indented
// continuations.
func uncovered(text string, openings []string) []string {
	var out []string
	for i, l := range strings.Split(text, "\n") {
		if i == 2 || l == "" || strings.HasPrefix(l, "  ") {
			continue
		}
		found := false
		for _, o := range openings {
			found = found || strings.HasPrefix(l, o)
		}
		if !found {
			out = append(out, l)
		}
	}
	return out
}

// TestOpenings: every line the pointer writes, under every combination
// of its options, starts with one of Openings, which the bottle escapes.
func TestOpenings(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for mask := range 1 << 8 {
		in := Input{BottlePath: "/b/x.md", SessionID: "x", CurrentTask: "t", MCP: PluginNames}
		on := func(bit int) bool { return mask&(1<<bit) != 0 }
		if on(7) {
			in.Host = testHost
		}
		if on(0) {
			in.Mode = ident.ModeReconstructed
		}
		in.NeedsPaging, in.TaskGenerated, in.Fresh, in.Standalone = on(1), on(2), on(3), on(4)
		if on(5) {
			in.NotRefreshed = now
		}
		if on(6) {
			in.LastActive, in.Now = now.Add(-30*24*time.Hour), now
		}
		if got := uncovered(Text(in), Openings); len(got) != 0 {
			t.Errorf("%+v: lines %q start with none of Openings", in, got)
		}
	}
}

// TestOpeningsCatches: a line the list lacks is found.
func TestOpeningsCatches(t *testing.T) {
	text := Text(Input{BottlePath: "/b/x.md", SessionID: "x", CurrentTask: "t"})
	if got := uncovered(text, Openings[1:]); len(got) != 1 || !strings.HasPrefix(got[0], "# [bottle]") {
		t.Errorf("without the heading's opening, uncovered finds %q", got)
	}
}

// testHost is a host's wording as an adapter provides it.
var testHost = Host{Name: "Other CLI", Namespace: "mcp__bottle", ReadWith: "its shell tool"}

// TestHostHolds: a pointer worded for a host is found by HoldsFor with
// that host, and not taken for Claude Code's.
func TestHostHolds(t *testing.T) {
	in := Input{BottlePath: "/b/x.md", SessionID: pointerID, CurrentTask: "t", Host: testHost}
	text := Text(in)
	if !HoldsFor([]string{text}, in.BottlePath, pointerID, testHost) {
		t.Error("HoldsFor misses the host's pointer")
	}
	if Holds([]string{text}, in.BottlePath, pointerID) {
		t.Error("Holds takes the host's pointer for Claude Code's")
	}
	for _, bad := range []string{"Read this file", "one Read", "mcp__" + "bottle__"} {
		if strings.Contains(text, bad) {
			t.Errorf("host's pointer holds Claude Code's wording %q:\n%s", bad, text)
		}
	}
}
