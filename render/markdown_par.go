package render

import (
	"bytes"
	"runtime"
	"time"

	"github.com/sourcegraph/conc/panics"
)

// Large bottles are written in two halves at once. The halves are joined
// byte for byte as the serial writer would have written them: the only state
// carried from turn to turn is the date the time formatter printed last,
// and the second half starts with the date the first half leaves, worked out
// from the turns before the split.
const (
	parMinTurns = 64
	parMinBytes = 512 << 10
)

// parallelMarkdown turns markdownPar off when false (the benchmarks flip it).
var parallelMarkdown = true

// markdownPar writes b in two halves concurrently. ok is false when b is
// small, only one CPU is available, or the time state at the split cannot
// be worked out; the caller then writes b serially.
func markdownPar(b *Bottle, loc *time.Location) (md []byte, ok bool) {
	n := len(b.Turns)
	if !parallelMarkdown || n < parMinTurns || runtime.GOMAXPROCS(0) < 2 {
		return nil, false
	}
	hints := make([]int, n)
	total := 0
	for i := range b.Turns {
		hints[i] = turnHint(&b.Turns[i])
		total += hints[i]
	}
	if total < parMinBytes {
		return nil, false
	}
	// Split where the first half (with the header) reaches about half.
	s, acc := 1, hints[0]
	for s < n-1 && acc < total/2 {
		acc += hints[s]
		s++
	}
	extra := 4096 + len(b.Notes)*128 + turnHint(&b.Preamble)
	return markdownSplit(b, loc, s, extra+acc, total-acc)
}

// markdownSplit writes b.Turns[:s] (after the header) and b.Turns[s:]
// concurrently and joins them; hint1 and hint2 are about their sizes. ok
// is false when the split is not sound.
func markdownSplit(b *Bottle, loc *time.Location, s, hint1, hint2 int) (md []byte, ok bool) {
	if s <= 0 || s >= len(b.Turns) {
		return nil, false
	}
	// A run of grouped turns is written as one line: never split one.
	if b.Turns[s-1].fold == foldGroup && b.Turns[s].fold == foldGroup {
		return nil, false
	}
	last, ok := dayBefore(b, loc, s)
	if !ok {
		return nil, false
	}
	hint1 += hint1 / 16
	hint2 += hint2 / 16
	// One allocation for both halves: the first writes at the start (it
	// moves elsewhere if it outgrows hint1), the second after hint1; the
	// second then moves down to close the gap.
	buf := make([]byte, 0, hint1+hint2)
	w1 := bytes.NewBuffer(buf[:0:hint1])
	w2 := bytes.NewBuffer(buf[hint1:hint1])
	// A panic in the second half is raised again here, in the caller's
	// goroutine, where the hooks recover it.
	var pc panics.Catcher
	done := make(chan struct{})
	go func() {
		defer close(done)
		pc.Try(func() { writeTurns(w2, b.Turns[s:], b.Mode, &timeFmt{loc: loc, last: last}) })
	}()
	writeHeader(w1, b, loc)
	writeTurns(w1, b.Turns[:s], b.Mode, newTimeFmt(b, loc))
	<-done
	pc.Repanic()
	first, second := w1.Bytes(), w2.Bytes()
	if cap(first) == hint1 && sameStart(first, buf) && cap(second) == hint2 && sameStart(second, buf[hint1:hint1]) {
		// Both halves are where they started.
		n := copy(buf[len(first):len(first)+len(second)], second)
		return buf[:len(first)+n], true
	}
	return append(first, second...), true
}

// dayBefore is the date (timeFmt.last) the time formatter holds after
// writing b.Turns[:s]: the day of the last non-zero time the turns print,
// or the starting state when they print none. ok is false when a turn
// before the split is grouped (its times are not worked out here).
func dayBefore(b *Bottle, loc *time.Location, s int) (day string, ok bool) {
	for i := s - 1; i >= 0; i-- {
		t := &b.Turns[i]
		if t.fold == foldGroup {
			return "", false
		}
		if at, found := lastPrinted(t, b.Mode); found {
			return at.In(loc).Format("2006-01-02"), true
		}
	}
	return newTimeFmt(b, loc).last, true
}

// lastPrinted is the last non-zero time writeTurn passes to timeFmt.format
// for t (not grouped), following writeTurn and writeFolded in reverse.
func lastPrinted(t *Turn, mode Mode) (time.Time, bool) {
	if t.fold == foldNone {
		if mode != ModeReconstructed {
			// The Assistant heading is always written.
			when := t.ReplyTime
			if when.IsZero() {
				when = t.Time
			}
			if !when.IsZero() {
				return when, true
			}
		}
		if at, ok := lastItemTime(t.Happened); ok {
			return at, true
		}
		for i := len(t.MidTurn) - 1; i >= 0; i-- {
			if !t.MidTurn[i].Time.IsZero() {
				return t.MidTurn[i].Time, true
			}
		}
		return t.Time, !t.Time.IsZero()
	}
	// writeFolded.
	if mode != ModeReconstructed && len(t.Reply) > 0 {
		when := t.ReplyTime
		if when.IsZero() {
			when = t.Time
		}
		if !when.IsZero() {
			return when, true
		}
	}
	if t.fold < foldAll {
		if at, ok := lastItemTime(t.Happened); ok {
			return at, true
		}
	}
	if userText(t) != "" || t.N > 0 {
		return t.Time, !t.Time.IsZero()
	}
	return time.Time{}, false
}

// lastItemTime is the last non-zero time itemLine prints for items.
func lastItemTime(items []Item) (time.Time, bool) {
	for i := len(items) - 1; i >= 0; i-- {
		if it := &items[i]; itemPrintsTime(it) && !it.Time.IsZero() {
			return it.Time, true
		}
	}
	return time.Time{}, false
}

// sameStart reports whether a and b start at the same byte of memory.
func sameStart(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}
