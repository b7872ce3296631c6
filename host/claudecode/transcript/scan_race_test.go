//go:build race

package transcript

// raceEnabled: the race detector slows the reference reader tenfold, so the
// differential tests check fewer inputs under it.
const raceEnabled = true
