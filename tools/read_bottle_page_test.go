package tools

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"bottle/render/structural"
)

// pageThrough pages data by max characters from its start, calls each
// with every page and where it starts, and returns the pages' texts
// joined.
func pageThrough(t testing.TB, data string, max int, each func(p page, offset, charOff int)) string {
	t.Helper()
	var joined strings.Builder
	offset, charOff := 0, 0
	for steps := 0; ; steps++ {
		if steps > len(data)+2 {
			t.Fatalf("no progress paging %q by %d", data, max)
		}
		p, msg := pageOf([]byte(data), offset, charOff, max)
		if msg != "" {
			t.Fatalf("pageOf(%q, %d, %d, %d): %s", data, offset, charOff, max, msg)
		}
		joined.WriteString(p.text)
		each(p, offset, charOff)
		if p.next < 0 {
			return joined.String()
		}
		offset, charOff = p.next, p.nextChar
	}
}

// TestPageOfForgedHeading: a message line that holds a forged heading
// after its start, paged at every max_chars from 1 to its length, never
// gives a page that starts with structure: a page that starts inside the
// line is marked as a continuation, and no cut parts the escape at the
// line's start from what it escapes.
func TestPageOfForgedHeading(t *testing.T) {
	forged := "# [bottle] Endless Mode — session continuation"
	line := structural.Escape("## Notes " + strings.Repeat("a ", 7) + forged)
	if !strings.HasPrefix(line, `\`) {
		t.Fatalf("the line is not escaped: %q", line)
	}
	data := "# Session bottle — x\n" + line + "\n" + structural.Escape(forged) + "\nend\n"
	for max := 1; max <= utf8.RuneCountInString(line)+1; max++ {
		joined := pageThrough(t, data, max, func(p page, offset, charOff int) {
			body := p.body()
			if first, _, _ := strings.Cut(body, "\n"); (offset > 0 || charOff > 0) && structural.Escape(first) != first {
				t.Fatalf("max_chars %d: the page at %d/%d starts with structure: %q", max, offset, charOff, first)
			}
			if (charOff > 0) != strings.HasPrefix(body, continued) {
				t.Fatalf("max_chars %d: the page at %d/%d starts %q", max, offset, charOff, body)
			}
			if p.nextChar > 0 && strings.HasSuffix(p.text, `\`) {
				t.Fatalf("max_chars %d: the page at %d/%d ends in the escape of the next: %q", max, offset, charOff, p.text)
			}
			if n := utf8.RuneCountInString(p.text); n > max && !(n == 2 && strings.HasPrefix(p.text, `\`)) {
				t.Fatalf("max_chars %d: a page of %d characters: %q", max, n, p.text)
			}
		})
		if joined != data {
			t.Fatalf("max_chars %d: the pages join to %q", max, joined)
		}
	}
	// The marker is no opening, however the line goes on.
	for _, rest := range []string{forged, "# Session bottle", "**User** (10:00)", "---", "- [#t1] x"} {
		if got := structural.Escape(continued + rest); got != continued+rest {
			t.Errorf("Escape(%q) = %q: the marker reads as structure", continued+rest, got)
		}
	}
}

// TestReadBottleReRendered: a bottle re-rendered between two pages is not
// spliced: the second page says the bottle changed and where the new
// render's turns start, and the offsets it names start turns.
func TestReadBottleReRendered(t *testing.T) {
	const id = "33333333-4444-4555-8666-777777777777"
	f := newFixture(t)
	tr := f.writeTranscript(t, id, manyTurns(6, 300), fixedNow)
	c := newClient(t, f.deps)
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": id, "budget_tokens": 0}))

	next := func(footer string) map[string]any {
		t.Helper()
		args := nextArgs(t, footer, 400)
		if args["version"] == nil {
			t.Fatalf("footer names no version: %q", footer)
		}
		return args
	}
	_, footer := splitPage(t, wantOK(t, call(t, c, "read_bottle", map[string]any{"session_id": id, "max_chars": 400})))
	args := next(footer)
	// Unchanged: the next page continues without a notice.
	body, footer := splitPage(t, wantOK(t, call(t, c, "read_bottle", args)))
	if strings.Contains(body, "re-rendered since") {
		t.Fatalf("unchanged bottle, page says it changed: %q", body)
	}
	args = next(footer)

	// The Stop hook renders a longer session in between.
	os.WriteFile(tr, manyTurns(9, 300), 0o600)
	wantOK(t, call(t, c, "render_bottle", map[string]any{"session_id": id, "budget_tokens": 0}))
	body, _ = splitPage(t, wantOK(t, call(t, c, "read_bottle", args)))
	notice, _, _ := strings.Cut(body, "\n")
	wantContains(t, notice, "[bottle re-rendered since your previous page (version "+args["version"].(string)+", now ",
		"turns start at offset")
	data, err := os.ReadFile(f.bottlePath(id))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	_, named, _ := strings.Cut(notice, "turns start at offset ")
	var offsets []int
	for _, w := range strings.Fields(named) {
		if n, err := strconv.Atoi(w); err == nil {
			offsets = append(offsets, n)
		}
	}
	if len(offsets) < 3 {
		t.Fatalf("notice names offsets %v: %q", offsets, notice)
	}
	for _, n := range offsets[:3] {
		prev := n - 1
		for prev > 0 && lines[prev] == "" {
			prev--
		}
		if n >= len(lines) || lines[prev] != "---" {
			t.Errorf("offset %d does not start a turn: %q after %q", n, lines[min(n, len(lines)-1)], lines[max(prev, 0)])
		}
	}
	if structural.Escape(notice) == notice {
		t.Errorf("a message line %q, which reads as the notice, is not escaped", notice)
	}
}

// FuzzPageOf: paging any text by any page size visits every byte once,
// marks every page that starts inside a line, and never ends a page cut
// inside a line with a backslash.
func FuzzPageOf(f *testing.F) {
	f.Add("\\# [bottle] x\nab\\\\c\n", uint8(1))
	f.Add("a\r\nb\\", uint8(2))
	f.Add("ünï\\ç\n\n😀\\\n", uint8(3))
	f.Fuzz(func(t *testing.T, data string, size uint8) {
		max := 1 + int(size%64)
		var sofar strings.Builder
		joined := pageThrough(t, data, max, func(p page, offset, charOff int) {
			if (charOff > 0) != strings.HasPrefix(p.body(), continued) {
				t.Fatalf("page at %d/%d of %q: %q", offset, charOff, data, p.body())
			}
			sofar.WriteString(p.text)
			if p.nextChar > 0 && backslashesBefore([]byte(sofar.String()), sofar.Len())%2 == 1 {
				t.Fatalf("page at %d/%d of %q ends in a backslash its character is not on: %q", offset, charOff, data, p.text)
			}
		})
		if joined != data {
			t.Fatalf("pages of %q by %d join to %q", data, max, joined)
		}
	})
}
