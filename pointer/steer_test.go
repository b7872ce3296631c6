package pointer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSteerInstruction(t *testing.T) {
	long := "/home/" + strings.Repeat("d", 400) + "/x.md"
	tests := []struct {
		name, path string
		want       []string // fragments; nil = ""
	}{
		{"Plain", "/home/dev/.claude-mem/bottles/" + pointerID + ".md", []string{
			"[bottle] A verbatim record of this session", "is saved at /home/dev/.claude-mem/bottles/" + pointerID + ".md and will be re-attached after this compaction",
			"current task", "decisions made and their reasons", "open problems", "next step", "need not reproduce messages, code or file contents"}},
		{"ControlCharacters", "/home/dev/b\nots/x.md", []string{"/home/dev/b\uFFFDots/x.md"}},
		{"Empty", "", nil},
		{"TooLong", long, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SteerInstruction(tt.path)
			if tt.want == nil {
				if got != "" {
					t.Errorf("got %q, want nothing", got)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("instruction lacks %q:\n%s", w, got)
				}
			}
			if n := utf8.RuneCountInString(got); n > SteerMaxChars {
				t.Errorf("instruction is %d characters, want ≤ %d", n, SteerMaxChars)
			}
			if strings.ContainsAny(got, "\n\r") {
				t.Errorf("instruction is not one line: %q", got)
			}
			if SteerInstruction(tt.path) != got {
				t.Error("not deterministic")
			}
		})
	}
}
