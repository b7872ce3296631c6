//go:build race

package render

// raceEnabled: the race detector slows a render of a 100 MB transcript
// tenfold (TestRunFitsBudget runs without it).
const raceEnabled = true
