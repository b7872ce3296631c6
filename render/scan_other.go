//go:build !amd64 || purego

package render

// blockMasks fills out (4 words per block) for the whole 64-byte blocks
// of b.
func blockMasks(b []byte, out []uint64) { blockMasksGeneric(b, out) }

var useAVX2 = false

func hasAVX2Support() bool { return false }
