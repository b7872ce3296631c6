//go:build race

package codex

// raceEnabled: the race detector slows the rollout reads of the resume
// test tenfold, so it cuts after fewer lines under it.
const raceEnabled = true
