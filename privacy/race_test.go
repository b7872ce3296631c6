//go:build race

package privacy

// raceEnabled: the race detector slows the corpus walk tenfold; the
// walk is a listing CI makes without it.
const raceEnabled = true
