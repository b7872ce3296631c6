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
// and the second half starts with the date the first half leaves, which it
// learns by writing the turns just before the split itself (see dayBefore).
const (
	parMinTurns = 64
	parMinBytes = 512 << 10
)

// markdownPar writes b in two halves concurrently. ok is false when b is
// small or only one CPU is available; the caller then writes b serially.
func markdownPar(b *Bottle, loc *time.Location) (md []byte, ok bool) {
	n := len(b.Turns)
	if n < parMinTurns || runtime.GOMAXPROCS(0) < 2 {
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
		pc.Try(func() {
			tf := &timeFmt{loc: loc, last: dayBefore(w2, b, loc, s)}
			writeTurns(w2, b.Turns[s:], b.Mode, tf)
		})
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
// writing b.Turns[:s]. After a time that is not zero is printed, the
// formatter holds its day whatever it held before, so it is enough to write
// the turns before the split, the last first, until one prints such a time;
// with none, it is the starting state. The turns are written by writeTurns
// itself, into scratch (which is left empty), so that nothing here has to
// follow the markdown's layout. In practice one turn is written.
func dayBefore(scratch *bytes.Buffer, b *Bottle, loc *time.Location, s int) string {
	for hi := s; hi > 0; {
		// A run of grouped turns is written as one line, so as one unit.
		lo := hi - 1
		for lo > 0 && b.Turns[lo].fold == foldGroup && b.Turns[lo-1].fold == foldGroup {
			lo--
		}
		tf := &timeFmt{loc: loc}
		writeTurns(scratch, b.Turns[lo:hi], b.Mode, tf)
		scratch.Reset()
		if tf.last != "" {
			return tf.last
		}
		hi = lo
	}
	return newTimeFmt(b, loc).last
}

// sameStart reports whether a and b start at the same byte of memory.
func sameStart(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}
