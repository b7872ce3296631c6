package record

import (
	"strings"
	"testing"
)

func TestCap(t *testing.T) {
	s := strings.Repeat("é", 30)
	got := Cap(s, 10)
	if !strings.HasPrefix(got, strings.Repeat("é", 10)+"\n[cut: 10 of 30 characters shown]") {
		t.Errorf("Cap = %q", got)
	}
}
