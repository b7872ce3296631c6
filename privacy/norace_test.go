//go:build !race

package privacy

const raceEnabled = false
