package render

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"bottle/render/digest"
)

// TestMeasurer checks that the measurer's size and lines are those of the
// markdown, for random folds and across midnights, as folds change under
// it, and with shortened digests.
func TestMeasurer(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	locs := []*time.Location{time.UTC, time.FixedZone("X", -7*3600-30*60), time.FixedZone("Y", 13*3600)}
	for iter := 0; iter < 500; iter++ {
		mode := ModeFull
		if iter%3 == 1 {
			mode = ModeReconstructed
		}
		b := randBottle(r, 1+r.IntN(40), mode, iter%2 == 1)
		loc := locs[iter%len(locs)]
		m := newMeasurer(b, loc)
		check := func(what string) {
			t.Helper()
			md := markdown(b, loc)
			size, lines := m.total()
			if size != len(md) || lines != bytes.Count(md, []byte("\n")) {
				t.Fatalf("iter %d, %s: measured %d bytes, %d lines; the markdown has %d, %d", iter, what, size, lines, len(md), bytes.Count(md, []byte("\n")))
			}
		}
		check("as built")
		for k := 0; k < 5; k++ {
			tu := &b.Turns[r.IntN(len(b.Turns))]
			tu.fold = fold(r.IntN(int(foldGroup) + 1))
			if r.IntN(4) == 0 {
				b.Preamble.fold = fold(r.IntN(int(foldGroup)))
			}
			check(fmt.Sprintf("refold %d", k))
		}
		for i := range b.Turns {
			for k := range b.Turns[i].Happened {
				b.Turns[i].Happened[k].short = true
			}
		}
		m = newMeasurer(b, loc)
		check("shortened")
	}
}

func TestShortDigest(t *testing.T) {
	tests := []struct{ digest, want string }{
		{"Read: render/bottle.go:1-212 — 212 lines", "Read: bottle.go — 212 lines"},
		{"Read: render/bottle.go:120-180 — 61 lines", "Read: bottle.go:120-180 — 61 lines"},
		{"Read: README.md:1 — 1 line", "Read: README.md — 1 line"},
		{"Read: a.go:14 — 1 line", "Read: a.go:14 — 1 line"},
		{"Bash: go test ./... — exit 1: a_test.go:9: got 2", "Bash: go test ./... — exit 1"},
		{`Grep: "TODO" — 9 files: a.go, b.go, +7 more`, `Grep: "TODO" — 9 files`},
		{"Glob: **/*.go — 3 files, truncated: a.go, b.go, c.go", "Glob: *.go — 3 files, truncated"},
		{"Read: render/x.go — error: File does not exist.", "Read: x.go — error: File does not exist."},
		{"EnterPlanMode", "EnterPlanMode"},
		{"Bash: echo a:1 — ok", "Bash: echo a:1 — ok"},
	}
	for _, tt := range tests {
		if got := shortDigest(tt.digest); got != tt.want {
			t.Errorf("shortDigest(%q) = %q, want %q", tt.digest, got, tt.want)
		}
	}
}

// TestToolLineMax checks that a bottle shows a digest line whole.
func TestToolLineMax(t *testing.T) {
	if toolLineMax < digest.MaxPathListRunes || toolLineMax < digest.MaxRunes {
		t.Errorf("toolLineMax = %d, shorter than digest lines (%d)", toolLineMax, digest.MaxPathListRunes)
	}
}
