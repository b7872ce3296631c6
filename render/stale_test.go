package render

import (
	"strings"
	"testing"
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
