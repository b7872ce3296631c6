//go:build !amd64 || purego

package transcript

// indexBlocks is index past its set-up (b is not empty).
func (s *jsonScanner) indexBlocks(b []byte) bool { return s.indexGeneric(b) }

var useAVX2 = false

func hasAVX2Support() bool { return false }
