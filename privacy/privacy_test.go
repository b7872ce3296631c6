package privacy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"NoTags", "plain text", "plain text"},
		{"Simple", "fix the <private>x</private> bug", "fix the  bug"},
		{"KeepsOtherTags", "<command-name>/x</command-name> <b>bold</b>", "<command-name>/x</command-name> <b>bold</b>"},
		{"MixedCase", "a <PRIVATE>secret</Private> b", "a  b"},
		{"Attributes", `a <private reason="pw">secret</private> b`, "a  b"},
		{"NewlineBeforeGT", "a <private\n>secret</private> b", "a  b"},
		{"SpaceInCloseTag", "a <private>secret</private > b", "a  b"},
		{"NestedSameName", "<private>outer <private>inner</private> tail</private> after", " after"},
		{"DeepNesting", "x<private>1<private>2<private>3</private>2</private>1</private>y", "xy"},
		{"UnclosedPrivateFailsClosed", "keep this <private>secret and everything after", "keep this "},
		{"UnclosedNestedFailsClosed", "a <private>s1 <private>s2</private> still secret", "a "},
		{"OpenWithoutGT", "a <private secret", "a "},
		{"UnclosedOtherTagKept", "see <system-reminder> and go on", "see <system-reminder> and go on"},
		{"UnclosedOtherTagInnerPrivate", "<system-reminder> a <private>s</private> b", "<system-reminder> a  b"},
		{"WordBoundary", "<privateer>ship</privateer>", "<privateer>ship</privateer>"},
		{"HyphenAfterName", "<private-x>s</private> ok", " ok"},
		{"AllTags", "<claude-mem-context>c</claude-mem-context><system_instruction>i</system_instruction><system-instruction>j</system-instruction><persisted-output>p</persisted-output><system-reminder>r</system-reminder>end", "end"},
		{"TwoBlocks", "a<private>1</private>b<private>2</private>c", "abc"},
		{"StrayClose", "a </private> b", "a </private> b"},
		{"LoneLT", "1 < 2 and <", "1 < 2 and <"},
		{"JoinedByRemoval", "<pri<private>x</private>vate>SECRET</private> ok", " ok"},
		{"JoinedManyTimes", "<pr<pr<pr<pr<private>x</private>ivate>a</private>ivate>b</private>ivate>c</private>ivate>SECRET", ""},
		{"Multiline", "line1\n<private>\nsecret\n</private>\nline2", "line1\n\nline2"},
		{"InterleavedReminderFirst", "note <system-reminder>x <private>begin</system-reminder> SECRET</private> visible", "note <system-reminder>x  visible"},
		{"InterleavedPrivateFirst", "a <private>p <system-reminder>r</private> SECRET b</system-reminder> c", "a  SECRET b</system-reminder> c"},
		{"InterleavedUnclosedInside", "a <claude-mem-context>x <private>SECRET</claude-mem-context> more", "a <claude-mem-context>x "},
		{"InterleavedEveryTag", "<persisted-output><private>1</persisted-output>SECRET</private><system_instruction>i</system_instruction>ok", "<persisted-output>ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Strip(tt.in); got != tt.want {
				t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestContains(t *testing.T) {
	if !Contains("x <Private>y") {
		t.Error("Contains missed a mixed-case tag")
	}
	if Contains("x <privateer> y <b>") {
		t.Error("Contains matched a longer tag name")
	}
}

func FuzzStrip(f *testing.F) {
	for _, s := range []string{"a <private>b</private> c", "<private>", "<PRIVATE>x<private>y</private>", "<system-reminder>x", "<private\n a=1>s</private\t>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Strip(s)
		// Fail closed: nothing that still opens a private block survives.
		if Contains(got) && strings.Contains(strings.ToLower(got), "<private") {
			// A stripped text may only keep '<private' when it is not an
			// opening tag (e.g. "<privateer").
			low := strings.ToLower(got)
			for i := strings.Index(low, "<private"); i >= 0; {
				if name, _ := openTag(got, i); name == "private" {
					t.Fatalf("Strip(%q) = %q still opens a private block", s, got)
				}
				j := strings.Index(low[i+1:], "<private")
				if j < 0 {
					break
				}
				i += 1 + j
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Strip(%q) = %q is not valid UTF-8", s, got)
		}
		if Strip(got) != got && strings.Contains(strings.ToLower(got), "<private") {
			t.Fatalf("Strip is not idempotent on private blocks: %q -> %q -> %q", s, got, Strip(got))
		}
	})
}

// FuzzStripSecret: a secret inside a private block never survives, whatever
// surrounds the block and whether or not the block is closed.
func FuzzStripSecret(f *testing.F) {
	f.Add("a ", " b", true)
	f.Add("<private>", "</private>", false)
	f.Add("<PRIVATE a='", "", true)
	f.Add("<system-reminder>", "</private></private>", true)
	f.Fuzz(func(t *testing.T, prefix, suffix string, closed bool) {
		const secret = "S3CR3T-T0K3N"
		if strings.Contains(prefix+suffix, "S3CR3T") {
			t.Skip()
		}
		in := prefix + "<private>" + secret
		if closed {
			in += "</private>"
		}
		in += suffix
		if got := Strip(in); strings.Contains(got, "S3CR3T") {
			t.Fatalf("Strip(%q) = %q leaks the secret", in, got)
		}
	})
}
