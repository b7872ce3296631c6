package ident

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidSession(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"3f2b9c1e-7a4d-4e8b-9c2f-1a2b3c4d5e6f", true},
		{"a", true},
		{"a.b_c-d", true},
		{"", false},
		{"..", false},
		{"a..b", false},
		{".hidden", false},
		{"-dash", false},
		{"a/b", false},
		{`a\b`, false},
		{"a\x00b", false},
		{"a b", false},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"ü", false},
	}
	for _, tt := range tests {
		if got := ValidSession(tt.id); got != tt.want {
			t.Errorf("ValidSession(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

// FuzzValidID: the hand-written check accepts exactly what SessionPattern
// and the ".." rule accept.
func FuzzValidID(f *testing.F) {
	for _, s := range []string{"11111111-2222-4333-8444-555555555555", "", "a", ".a", "a..b", "a/b", "_x", strings.Repeat("a", 128), strings.Repeat("a", 129), "é", "a\n"} {
		f.Add(s)
	}
	re := regexp.MustCompile(SessionPattern)
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidSession(id), re.MatchString(id) && !strings.Contains(id, ".."); got != want {
			t.Errorf("ValidSession(%q) = %v, want %v", id, got, want)
		}
	})
}

func TestParse(t *testing.T) {
	tests := []struct {
		in        string
		kind      Kind
		canonical string
	}{
		{"102401", Observation, "102401"},
		{"#102401", Observation, "102401"},
		{"t17", Tool, "t17"},
		{"#T017", Tool, "t17"},
		{"u3", User, "u3"},
		{"a0", Assistant, "a0"},
		{"", Invalid, ""},
		{"#", Invalid, ""},
		{"t", Invalid, ""},
		{"x12", Invalid, ""},
		{"12a", Invalid, ""},
		{"t-1", Invalid, ""},
		{"99999999999999999999999", Invalid, ""},
		{"../1", Invalid, ""},
	}
	for _, tt := range tests {
		kind, canonical, _ := Parse(tt.in)
		if kind != tt.kind || canonical != tt.canonical {
			t.Errorf("Parse(%q) = %v, %q; want %v, %q", tt.in, kind, canonical, tt.kind, tt.canonical)
		}
	}
}

// FuzzParseID: Parse never panics, and a canonical id parses to itself.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"102401", "#t17", "u0", "a3", "#", "t", "x1", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, canon, n := Parse(s)
		if kind == Invalid {
			return
		}
		if n < 0 || !utf8.ValidString(canon) {
			t.Fatalf("Parse(%q) = %v, %q, %d", s, kind, canon, n)
		}
		k2, c2, n2 := Parse(canon)
		if k2 != kind || c2 != canon || n2 != n {
			t.Fatalf("Parse(%q) = %q, which parses to %v %q %d", s, canon, k2, c2, n2)
		}
	})
}
