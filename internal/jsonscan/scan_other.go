//go:build !amd64 || purego

package jsonscan

// indexBlocks is index past its set-up (b is not empty).
func (s *Scanner) indexBlocks(b []byte) bool { return s.indexGeneric(b) }

var useAVX2 = false

// HasAVX2 reports whether Index runs the AVX2 kernel on this CPU: never
// on this platform.
func HasAVX2() bool { return false }

// SetAVX2 does nothing on this platform: Index is portable Go.
func SetAVX2(on bool) (was bool) { return false }
