package render

import (
	"strings"
	"testing"
	"time"
)

func TestModeOf(t *testing.T) {
	tests := []struct {
		head string
		want Mode
	}{
		{"", ModeFull},
		{"# Session bottle — s\nproject: p · rendered: x\nmode: full\n\n## Original request\n", ModeFull},
		{"# Session bottle — s\nproject: p\nmode: reconstructed — assistant messages not preserved\n\n## Original request\n", ModeReconstructed},
		{"# Session bottle — s\r\nmode: reconstructed — assistant messages not preserved\r\n", ModeReconstructed},
		// The line inside the conversation, after the header, is a quote.
		{"# Session bottle — s\nmode: full\n\n## Original request\n\nmode: reconstructed — assistant messages not preserved\n", ModeFull},
		{"# Session bottle — s\n" + strings.Repeat("x", 1100) + "\nmode: reconstructed — assistant messages not preserved\n", ModeFull},
	}
	for _, tt := range tests {
		if got := ModeOf([]byte(tt.head)); got != tt.want {
			t.Errorf("ModeOf(%.60q) = %s, want %s", tt.head, got, tt.want)
		}
	}
	// What the renderer writes reads back.
	for _, m := range []Mode{ModeFull, ModeReconstructed} {
		var b strings.Builder
		b.WriteString("# Session bottle — s\n")
		if m == ModeReconstructed {
			b.WriteString(reconstructedLine + "\n")
		} else {
			b.WriteString("mode: full\n")
		}
		if got := ModeOf([]byte(b.String())); got != m {
			t.Errorf("ModeOf of a %s header = %s", m, got)
		}
	}
}

// TestPointerNotRefreshed: a pointer to a bottle that could not be
// refreshed says so and when it was last rendered, and is still the
// pointer (HoldsPointer finds it).
func TestPointerNotRefreshed(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	at := time.Date(2026, 3, 1, 10, 20, 0, 0, time.FixedZone("X", 3600))
	in := PointerInput{BottlePath: "/b/" + id + ".md", SessionID: id, NotRefreshed: at, MCP: PluginNames}
	p := Pointer(in)
	want := "- It could not be refreshed now; it was last rendered at 2026-03-01T09:20:00Z, so what\n" +
		"  happened after that is missing from it. Call mcp__plugin_bottle_bottle__render_bottle to try again.\n"
	if !strings.Contains(p, want) {
		t.Errorf("pointer lacks %q:\n%s", want, p)
	}
	if in.NotRefreshed = (time.Time{}); strings.Contains(Pointer(in), "could not be refreshed") {
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
		if got := HoldsPointer(tt.texts, tt.path, tt.id); got != tt.wantHolds {
			t.Errorf("HoldsPointer(%.40q…, %s, %s) = %v, want %v", tt.texts, tt.path, tt.id, got, tt.wantHolds)
		}
	}
}
