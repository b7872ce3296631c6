//go:build !purego

package jsonscan

// indexAVX2 scans the 64-byte blocks of the n bytes at p from block
// st.blk on, storing each block's unescaped quotes to quotes[blk], its
// escaped characters to esc[blk] and its bytes >= 0x80 to hi[blk], as
// indexBlock does. The three arrays lie at equal distances: hi is as far
// after esc as esc after quotes. It stops after the last block (idxDone),
// at a control byte inside a string (idxInvalid), or after a block with escaped
// characters that are not one-letter escapes (idxEscapes): st then holds
// the state after that block and, in st.odd, those characters for
// checkEscapes. st.blk must be below (n+63)/64, and n above 0.
//
// The line's last, partial block is read with a 64-byte load that stays
// within one memory page (from its start, or back from its end), and the
// bits of the bytes outside the line are cleared.
//
//go:noescape
func indexAVX2(p *byte, n int, quotes, esc *uint64, st *indexState) int

// Results of indexAVX2.
const (
	idxDone = iota
	idxInvalid
	idxEscapes
)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasAVX2 reports whether the CPU and the OS support indexAVX2: AVX2,
// BMI1 (ANDN) and PCLMULQDQ.
var hasAVX2 = detectAVX2()

func detectAVX2() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const pclmul, osxsave, avx = 1 << 1, 1 << 27, 1 << 28
	if ecx1&(pclmul|osxsave|avx) != pclmul|osxsave|avx {
		return false
	}
	if eax, _ := xgetbv(); eax&6 != 6 { // the OS saves XMM and YMM state
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const bmi1, avx2 = 1 << 3, 1 << 5
	return ebx7&(bmi1|avx2) == bmi1|avx2
}

// indexBlocks is index past its set-up (b is not empty), with the AVX2
// kernel when the CPU has it.
func (s *Scanner) indexBlocks(b []byte) bool {
	if !useAVX2 {
		return s.indexGeneric(b)
	}
	var st indexState
	for {
		switch indexAVX2(&b[0], len(b), &s.quotes[0], &s.esc[0], &st) {
		case idxDone:
			return true
		case idxInvalid:
			return false
		}
		if !s.checkEscapes((st.blk-1)*64, st.odd) {
			return false
		}
		if st.blk == len(s.quotes) {
			// That was the last block: as at idxDone, an odd run of
			// backslashes must not end the line.
			return st.prevEsc == 0
		}
	}
}

// useAVX2 selects the AVX2 kernel; tests switch it off to check the
// portable one.
var useAVX2 = hasAVX2

// HasAVX2 reports whether Index runs the AVX2 kernel on this CPU.
func HasAVX2() bool { return hasAVX2 }

// SetAVX2 switches the AVX2 kernel on (where the CPU has it) or off and
// returns the previous setting. Tests of code over the scanner use it to
// run the portable path too; it must not be called while a scan runs.
func SetAVX2(on bool) (was bool) {
	was, useAVX2 = useAVX2, on && hasAVX2
	return was
}
