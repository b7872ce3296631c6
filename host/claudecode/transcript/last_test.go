package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLastEntryTime(t *testing.T) {
	entry := func(ts string, sidechain bool) string {
		side := ""
		if sidechain {
			side = `"isSidechain":true,`
		}
		return `{"type":"user",` + side + `"timestamp":"` + ts + `","message":{"role":"user","content":"x"}}` + "\n"
	}
	big := `{"type":"user","timestamp":"2026-01-05T09:00:00Z","message":{"content":"` + strings.Repeat("y", tailBytes) + `"}}` + "\n"
	tests := []struct {
		name, data string
		want       string // RFC 3339, "" for none
	}{
		{"last entry", entry("2026-01-05T10:00:00Z", false) + entry("2026-01-05T11:30:00Z", false), "2026-01-05T11:30:00Z"},
		{"a sidechain entry is not the main thread's", entry("2026-01-05T10:00:00Z", false) + entry("2026-01-05T12:00:00Z", true), "2026-01-05T10:00:00Z"},
		{"entries without a time and a torn tail are passed over", entry("2026-01-05T10:00:00Z", false) + `{"type":"summary"}` + "\n" + `{"type":"user","timest`, "2026-01-05T10:00:00Z"},
		{"empty", "", ""},
		{"a line longer than the tail, then one entry", big + entry("2026-01-06T08:00:00Z", false), "2026-01-06T08:00:00Z"},
		{"only a line longer than the tail", big, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LastEntryTime(path)
			if err != nil {
				t.Fatal(err)
			}
			want := time.Time{}
			if tc.want != "" {
				want, _ = time.Parse(time.RFC3339, tc.want)
			}
			if !got.Equal(want) {
				t.Errorf("LastEntryTime = %v, want %v", got, want)
			}
		})
	}
	if _, err := LastEntryTime(t.TempDir()); err == nil {
		t.Error("LastEntryTime of a folder succeeded")
	}
}
