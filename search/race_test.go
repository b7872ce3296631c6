//go:build race

package search

// raceEnabled: the race detector slows the store's tests about tenfold, so
// they run fewer queries under it.
const raceEnabled = true
