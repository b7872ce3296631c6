//go:build !purego

#include "textflag.h"

// Nibble tables for the valid one-letter JSON escapes " \ / b f n r t
// (classify: scanLo[c&15] & scanHi[c>>4] != 0), repeated in both lanes.
DATA scanLo<>+0(SB)/8, $0x00040008000D0000
DATA scanLo<>+8(SB)/8, $0x0104000200000000
DATA scanLo<>+16(SB)/8, $0x00040008000D0000
DATA scanLo<>+24(SB)/8, $0x0104000200000000
GLOBL scanLo<>(SB), RODATA|NOPTR, $32

DATA scanHi<>+0(SB)/8, $0x0804020000010000
DATA scanHi<>+8(SB)/8, $0x0000000000000000
DATA scanHi<>+16(SB)/8, $0x0804020000010000
DATA scanHi<>+24(SB)/8, $0x0000000000000000
GLOBL scanHi<>(SB), RODATA|NOPTR, $32

// Byte patterns: quote, backslash, 0x1f (last control byte), low nibble.
DATA scanConst<>+0(SB)/8, $0x2222222222222222
DATA scanConst<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA scanConst<>+16(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA scanConst<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL scanConst<>(SB), RODATA|NOPTR, $32

// func masksAVX2(p *byte, blocks int, out *uint64)
//
// For each 64-byte block at p, writes four bit masks (bit i = byte i):
// quotes, backslashes, control bytes (< 0x20) and one-letter escape
// characters.
TEXT ·masksAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI
	// Constants come from memory: a legacy-encoded MOVQ into an X
	// register after a 256-bit instruction would cost an SSE/AVX
	// transition.
	VPBROADCASTQ scanConst<>+0(SB), Y8
	VPBROADCASTQ scanConst<>+8(SB), Y9
	VPBROADCASTQ scanConst<>+16(SB), Y10
	VPBROADCASTQ scanConst<>+24(SB), Y11
	VMOVDQU scanLo<>(SB), Y12
	VMOVDQU scanHi<>(SB), Y13
	VPXOR Y14, Y14, Y14

loop:
	TESTQ CX, CX
	JEQ done
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	// quotes
	VPCMPEQB Y8, Y0, Y2
	VPCMPEQB Y8, Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 0(DI)

	// backslashes
	VPCMPEQB Y9, Y0, Y2
	VPCMPEQB Y9, Y1, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 8(DI)

	// control bytes: min(x, 0x1f) == x
	VPMINUB Y10, Y0, Y2
	VPCMPEQB Y0, Y2, Y2
	VPMINUB Y10, Y1, Y3
	VPCMPEQB Y1, Y3, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 16(DI)

	// escape letters: scanLo[x&15] & scanHi[x>>4] != 0
	VPAND Y11, Y0, Y2
	VPSHUFB Y2, Y12, Y2
	VPSRLW $4, Y0, Y4
	VPAND Y11, Y4, Y4
	VPSHUFB Y4, Y13, Y4
	VPAND Y4, Y2, Y2
	VPCMPEQB Y14, Y2, Y2
	VPAND Y11, Y1, Y3
	VPSHUFB Y3, Y12, Y3
	VPSRLW $4, Y1, Y5
	VPAND Y11, Y5, Y5
	VPSHUFB Y5, Y13, Y5
	VPAND Y5, Y3, Y3
	VPCMPEQB Y14, Y3, Y3
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, BX
	SHLQ $32, BX
	ORQ BX, AX
	NOTQ AX
	MOVQ AX, 24(DI)

	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JMP loop

done:
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
