package main

import (
	"os"
	"runtime/debug"
)

// Memory policy of the server, unless GOMEMLIMIT and GOGC say otherwise.
// The server's live heap is mostly its search index (at most indexBytes of
// record text); a search reads transcripts first, allocating most of what
// it keeps, so collections at every doubling of a small heap cost the
// first search time and free little. A soft limit bounds the peak instead;
// a larger live heap still works.
const (
	memoryLimit = 40 << 20
	gcPercent   = 400
	// indexBytes bounds the search index's record text.
	indexBytes = 24 << 20
)

func setMemoryPolicy() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
