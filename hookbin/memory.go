package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// memoryLimit is the soft heap limit hookbin runs under unless GOMEMLIMIT
// says otherwise: rendering keeps only the bottle's text live (tens of MB
// for the longest sessions), and without a limit the collector's headroom
// doubles the peak. It is soft: a larger live heap still works. Under it,
// unless GOGC says otherwise, the collector runs only as the heap nears
// the limit: a render allocates most of its heap up front and keeps most
// of it, so collections at every doubling of the heap cost CPU and free
// little (docs/performance.md has the figures).
const memoryLimit = 40 << 20

// limitDefault reports that hookbin set the limit (GOMEMLIMIT is unset),
// so fitMemory may raise it.
var limitDefault bool

// setMemoryPolicy applies memoryLimit, and turns off GOGC's collections
// under it, unless the environment sets them; the limit then follows the
// live heap up (watchLive).
func setMemoryPolicy() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(memoryLimit)
	limitDefault = true
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
	watchLive()
}

// watchLive raises the default limit, after every collection, to twice the
// live heap when that is more (raiseLimit): a render that keeps more than
// memoryLimitFor guessed, as one prompt and tens of thousands of small
// tool calls does (each call's digest stays live), would otherwise collect
// again and again at the limit, the runtime giving up to half the CPU to
// it (a 100,000-call run: 5.4 s of CPU instead of 2.5 s).
func watchLive() {
	tick := &gcTick{}
	runtime.SetFinalizer(tick, func(*gcTick) {
		raiseLimit()
		watchLive()
	})
}

// gcTick is collected, and its finalizer run, once per collection; it is
// large enough not to share a tiny allocation block (whose objects the
// collector frees together, if ever).
type gcTick struct {
	_ [32]byte
	_ *int
}

// raiseLimit sets the soft limit to twice the live heap of the last
// collection when that is above it.
func raiseLimit() {
	if limitFixed.Load() {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if want := 2 * int64(s[0].Value.Uint64()); want > debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(want)
	}
}

// memoryLimitFor is the soft heap limit for a render of a transcript of
// size bytes: memoryLimit, or twice the most a render keeps live (its
// verbatim text and tool lines, which stay under 4 % of the transcript in
// the corpus and the synthetic mix). Under a limit below the live heap the
// collector would run again and again.
func memoryLimitFor(size int64) int64 {
	return max(memoryLimit, size/12)
}

// fitMemory raises hookbin's default limit to memoryLimitFor the
// transcript at path; it does nothing when GOMEMLIMIT set the limit or the
// file cannot be read.
func fitMemory(path string) {
	if !limitDefault || path == "" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if l := memoryLimitFor(fi.Size()); l > memoryLimit {
		debug.SetMemoryLimit(l)
	}
}

// searchMemory is the collector's policy for a search: it reads the
// index's records one at a time and keeps none, so collecting at every
// doubling of a small heap holds the peak far under memoryLimit, where
// collections only near the limit would run again and again.
//
// Under it, a build of the search index of a thousand sessions (a reading
// goroutine and the writer's batches, with the readers' resume points)
// takes 51.5 s and peaks at 57 MB; under 38 MiB 52.9 s and 56 MB; under
// 36 MiB, where its live heap comes near the limit, the collector runs
// again and again: 58.5 s (15 % more CPU) for 55 MB.
func searchMemory() {
	if !limitDefault {
		return
	}
	limitFixed.Store(true)
	debug.SetMemoryLimit(searchMemoryLimit)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100)
	}
}

// searchMemoryLimit is the soft heap limit of a search (searchMemory),
// which its live heap does not raise: a search keeps little live, and
// what it allocates (a batch's records and trigrams) is freed batch by
// batch.
const searchMemoryLimit = 40 << 20

// limitFixed stops raiseLimit.
var limitFixed atomic.Bool
