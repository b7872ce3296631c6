//go:build !purego

package render

// masksAVX2 writes, for each of blocks 64-byte blocks at p, four masks to
// out (quotes, backslashes, control bytes, one-letter escape characters).
//
//go:noescape
func masksAVX2(p *byte, blocks int, out *uint64)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasAVX2 reports whether the CPU and the OS support AVX2.
var hasAVX2 = detectAVX2()

func detectAVX2() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	if ecx1&(1<<27) == 0 || ecx1&(1<<28) == 0 { // OSXSAVE, AVX
		return false
	}
	if eax, _ := xgetbv(); eax&6 != 6 { // the OS saves XMM and YMM state
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

// blockMasks fills out (4 words per block) for the whole 64-byte blocks
// of b, with AVX2 when the CPU has it.
func blockMasks(b []byte, out []uint64) {
	n := len(b) / 64
	if n == 0 {
		return
	}
	if useAVX2 {
		_ = out[4*n-1]
		masksAVX2(&b[0], n, &out[0])
		return
	}
	blockMasksGeneric(b, out)
}

// useAVX2 selects the AVX2 kernel; tests switch it off to check the
// portable one.
var useAVX2 = hasAVX2

func hasAVX2Support() bool { return hasAVX2 }
