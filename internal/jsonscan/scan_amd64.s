//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// Nibble tables classifying a byte x by t = idxLo[x&15] & idxHi[x>>4]
// (VPSHUFB gives 0 for idxLo when x >= 0x80):
//   - bit 7 of t: x is a control byte (< 0x20): idxHi[0] and idxHi[1]
//     have bit 7, as does every idxLo entry;
//   - bits 0-3 of t: x is a one-letter JSON escape (" \ / b f n r t),
//     one bit per high nibble 2, 5, 6, 7.
// Control bytes and escape letters are disjoint, so t < 0 (signed) is a
// control byte and t > 0 an escape letter. Both lanes hold the table.
DATA idxLo<>+0(SB)/8, $0x80848088808D8080
DATA idxLo<>+8(SB)/8, $0x8184808280808080
DATA idxLo<>+16(SB)/8, $0x80848088808D8080
DATA idxLo<>+24(SB)/8, $0x8184808280808080
GLOBL idxLo<>(SB), RODATA|NOPTR, $32

DATA idxHi<>+0(SB)/8, $0x0804020000018080
DATA idxHi<>+8(SB)/8, $0x0000000000000000
DATA idxHi<>+16(SB)/8, $0x0804020000018080
DATA idxHi<>+24(SB)/8, $0x0000000000000000
GLOBL idxHi<>(SB), RODATA|NOPTR, $32

// Byte patterns: quote, backslash, low nibble.
DATA idxConst<>+0(SB)/8, $0x2222222222222222
DATA idxConst<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA idxConst<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL idxConst<>(SB), RODATA|NOPTR, $24

// Registers of indexAVX2:
//   SI  the block's bytes           DI  its quote word
//   CX  whole blocks left           R9  prevEsc   R10 inStr
//   R11 0xAAAA... (odd bits)        Y0, Y1 the block's two halves
//   Y8  '"' x 32   Y9 '\' x 32   Y10 0x0f x 32   Y11 idxLo   Y12 idxHi
//   Y13 zero       X14 all ones (the prefix XOR's multiplier)
// A block's masks (bit i: byte i) go to AX (quotes), BX (backslashes),
// R13 (escape letters) and R12 (control bytes); R8, R14 are scratch.

// MASKS computes the masks of the block in Y0, Y1: VPCMPEQB for quotes
// and backslashes, the nibble tables for escape letters, and VPMOVMSKB
// twice (32 bytes each) per mask. Control bytes are rare (none in
// compact JSON but in bad lines): R12 only tells whether the block has
// any, and the classes t of the two halves stay in Y2, Y3 for CTLMASK.
#define MASKS \
	VPCMPEQB  Y8, Y0, Y2; \
	VPCMPEQB  Y8, Y1, Y3; \
	VPMOVMSKB Y2, AX; \
	VPMOVMSKB Y3, R14; \
	SHLQ      $32, R14; \
	ORQ       R14, AX; \
	VPCMPEQB  Y9, Y0, Y2; \
	VPCMPEQB  Y9, Y1, Y3; \
	VPMOVMSKB Y2, BX; \
	VPMOVMSKB Y3, R14; \
	SHLQ      $32, R14; \
	ORQ       R14, BX; \
	VPSHUFB   Y0, Y11, Y2; \
	VPSRLW    $4, Y0, Y4; \
	VPAND     Y10, Y4, Y4; \
	VPSHUFB   Y4, Y12, Y4; \
	VPAND     Y4, Y2, Y2; \
	VPSHUFB   Y1, Y11, Y3; \
	VPSRLW    $4, Y1, Y5; \
	VPAND     Y10, Y5, Y5; \
	VPSHUFB   Y5, Y12, Y5; \
	VPAND     Y5, Y3, Y3; \
	VPCMPGTB  Y13, Y2, Y4; \
	VPCMPGTB  Y13, Y3, Y5; \
	VPMOVMSKB Y4, R13; \
	VPMOVMSKB Y5, R14; \
	SHLQ      $32, R14; \
	ORQ       R14, R13; \
	VPOR      Y2, Y3, Y4; \
	VPMOVMSKB Y4, R12

// CTLMASK puts the control-byte mask of the block in R12: bit 7 of t.
#define CTLMASK \
	VPMOVMSKB Y2, R12; \
	VPMOVMSKB Y3, R14; \
	SHLQ      $32, R14; \
	ORQ       R14, R12

// HIMASK stores the block's bytes >= 0x80 (their top bits) to (DI)(DX*2):
// hi[blk], two arrays on from quotes. R8 and R14 are scratch.
#define HIMASK \
	VPMOVMSKB Y0, R8; \
	VPMOVMSKB Y1, R14; \
	SHLQ      $32, R14; \
	ORQ       R14, R8; \
	MOVQ      R8, (DI)(DX*2)

// ESCAPES computes the block's escaped characters, as escapedChars does,
// into R9, stored to (DI)(DX*1) (esc[blk]: DX is esc - quotes), and the
// next prevEsc into R8; then the unescaped quotes into AX, stored to (DI):
//   pe = bs &^ prevEsc; et = ((pe<<1 | odd) - pe) ^ odd;
//   escaped = et ^ (bs | prevEsc); prevEsc = (et & bs) >> 63;
//   q = quotes &^ escaped.
#define ESCAPES \
	ANDNQ BX, R9, R14; \
	LEAQ  (R14)(R14*1), R8; \
	ORQ   R11, R8; \
	SUBQ  R14, R8; \
	XORQ  R11, R8; \
	ORQ   BX, R9; \
	XORQ  R8, R9; \
	ANDQ  BX, R8; \
	SHRQ  $63, R8; \
	ANDNQ AX, R9, AX; \
	MOVQ  AX, (DI); \
	MOVQ  R9, (DI)(DX*1)

// INSTRING sets R10 to the bytes inside strings: the prefix XOR of the
// quotes in AX (their carry-less product with all ones) ^ inStr.
#define INSTRING \
	VMOVQ      AX, X6; \
	VPCLMULQDQ $0, X14, X6, X6; \
	VMOVQ      X6, AX; \
	XORQ       AX, R10

// BADESC sets R14 to the escaped characters that are not escape letters
// (flags set: ZF when there are none) and R9 to the next prevEsc.
#define BADESC \
	ANDNQ R9, R13, R14; \
	MOVQ  R8, R9

// func indexAVX2(p *byte, n int, quotes, esc *uint64, st *indexState) int
TEXT ·indexAVX2(SB), NOSPLIT, $0-48
	// Start at block st.blk with st's prevEsc and inStr.
	MOVQ p+0(FP), SI
	MOVQ quotes+16(FP), DI
	MOVQ esc+24(FP), DX
	SUBQ DI, DX
	MOVQ st+32(FP), R8
	MOVQ indexState_blk(R8), AX
	MOVQ indexState_prevEsc(R8), R9
	MOVQ indexState_inStr(R8), R10
	MOVQ n+8(FP), CX
	SHRQ $6, CX
	SUBQ AX, CX
	LEAQ (DI)(AX*8), DI
	SHLQ $6, AX
	ADDQ AX, SI

	// Constants. They come from memory: a legacy-encoded MOVQ into an
	// X register after a 256-bit instruction would cost an SSE/AVX
	// transition.
	MOVQ         $0xAAAAAAAAAAAAAAAA, R11
	VPBROADCASTQ idxConst<>+0(SB), Y8
	VPBROADCASTQ idxConst<>+8(SB), Y9
	VPBROADCASTQ idxConst<>+16(SB), Y10
	VMOVDQU      idxLo<>(SB), Y11
	VMOVDQU      idxHi<>(SB), Y12
	VPXOR        Y13, Y13, Y13
	VPCMPEQB     X14, X14, X14

	TESTQ CX, CX
	JEQ   tail

	// Whole blocks. Those without control bytes (nearly all) can only
	// have bad escapes; the others go to ctlBlock.
loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	MASKS
	HIMASK
	TESTL   R12, R12
	JNE     ctlBlock
	ESCAPES
	INSTRING
	SARQ    $63, R10
	BADESC
	LEAQ    64(SI), SI
	LEAQ    8(DI), DI
	JNE     problem
	DECQ    CX
	JNE     loop
	JMP     tail

	// A whole block with control bytes: they must be outside strings.
ctlBlock:
	CTLMASK
	ESCAPES
	INSTRING
	ANDQ    R10, R12
	SARQ    $63, R10
	BADESC
	ORQ     R12, R14
	LEAQ    64(SI), SI
	LEAQ    8(DI), DI
	JNE     problem
	DECQ    CX
	JNE     loop

	// The partial last block, r = n&63 bytes, if any.
tail:
	MOVQ n+8(FP), DX
	ANDQ $63, DX
	JEQ  done
	MOVL SI, AX
	ANDL $4095, AX
	CMPL AX, $(4096-64)
	JHI  tailBack

	// 64 bytes from SI stay in SI's page: load them, and keep the bits
	// of the r bytes of the line.
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	MASKS
	CTLMASK
	MOVQ    DX, CX
	MOVQ    $-1, R8
	SHLQ    CX, R8
	NOTQ    R8
	ANDQ    R8, AX
	ANDQ    R8, BX
	ANDQ    R8, R12
	ANDQ    R8, R13
	VPMOVMSKB Y0, R14
	VPMOVMSKB Y1, DX
	SHLQ    $32, DX
	ORQ     DX, R14
	ANDQ    R8, R14
	JMP     tailCombine

	// Else the 64 bytes ending at SI+r are in SI's page or in the line:
	// load them, and shift the bits of the line's r bytes down.
tailBack:
	VMOVDQU -64(SI)(DX*1), Y0
	VMOVDQU -32(SI)(DX*1), Y1
	MASKS
	CTLMASK
	MOVQ    $64, CX
	SUBQ    DX, CX
	SHRQ    CX, AX
	SHRQ    CX, BX
	SHRQ    CX, R12
	SHRQ    CX, R13
	VPMOVMSKB Y0, R14
	VPMOVMSKB Y1, DX
	SHLQ    $32, DX
	ORQ     DX, R14
	SHRQ    CX, R14

	// R14: the bytes >= 0x80 of the line's last r bytes.
tailCombine:
	MOVQ    esc+24(FP), DX
	SUBQ    quotes+16(FP), DX
	MOVQ    R14, (DI)(DX*2)
	ESCAPES
	INSTRING
	ANDQ    R10, R12
	SARQ    $63, R10
	BADESC
	ORQ     R12, R14
	LEAQ    8(DI), DI
	JNE     problem

	// All blocks scanned: an odd run of backslashes must not end the
	// line.
done:
	TESTQ R9, R9
	JNE   invalid
	VZEROUPPER
	MOVQ  $const_idxDone, ret+40(FP)
	RET

	// A control byte inside a string (R12), or escapes to check (R14):
	// save the state after the block for the Go side.
problem:
	TESTQ R12, R12
	JNE   invalid
	MOVQ  st+32(FP), R8
	MOVQ  DI, AX
	SUBQ  quotes+16(FP), AX
	SHRQ  $3, AX
	MOVQ  AX, indexState_blk(R8)
	MOVQ  R9, indexState_prevEsc(R8)
	MOVQ  R10, indexState_inStr(R8)
	MOVQ  R14, indexState_odd(R8)
	VZEROUPPER
	MOVQ  $const_idxEscapes, ret+40(FP)
	RET

invalid:
	VZEROUPPER
	MOVQ $const_idxInvalid, ret+40(FP)
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
