//go:build race

package racemode

// Enabled reports that the race detector is built in.
const Enabled = true
