// Package racemode reports whether the binary was built with the race
// detector. It owns that one fact and nothing else.
//
// The detector slows a test about tenfold. Tests that check much data
// through code with no concurrency of its own (differentials over the
// corpus, long sequences of searches, memory measurements) check a sample
// of it under the detector, and .ci/run runs them whole without it, so
// that `go test -race ./...` spends its time where races can be.
package racemode
