//go:build race

package e2e

// raceEnabled says the test runs with the race detector: the product
// binaries it builds get it too.
const raceEnabled = true
