//go:build amd64 && !purego

#include "textflag.h"

// Lanes 0..7 all ones, 8..15 zero: 32 bytes read at (8-rem)*4 mask the first rem lanes.
DATA smMask<>+0(SB)/8, $0xffffffffffffffff
DATA smMask<>+8(SB)/8, $0xffffffffffffffff
DATA smMask<>+16(SB)/8, $0xffffffffffffffff
DATA smMask<>+24(SB)/8, $0xffffffffffffffff
DATA smMask<>+32(SB)/8, $0
DATA smMask<>+40(SB)/8, $0
DATA smMask<>+48(SB)/8, $0
DATA smMask<>+56(SB)/8, $0
GLOBL smMask<>(SB), RODATA|NOPTR, $64

// The constants of expNeg (forward.go), as float32 bits: -inf, log2(e), ln2 split in a high
// and a low part, the floor below which e^x is taken at -87, the Taylor coefficients 1/720 …
// 1/2 and 1, and the exponent bias 127 (an int32).
DATA smConst<>+0(SB)/4, $0xff800000
DATA smConst<>+4(SB)/4, $0x3fb8aa3b
DATA smConst<>+8(SB)/4, $0x3f318000
DATA smConst<>+12(SB)/4, $0xb95e8083
DATA smConst<>+16(SB)/4, $0xc2ae0000
DATA smConst<>+20(SB)/4, $0x3ab60b61
DATA smConst<>+24(SB)/4, $0x3c088889
DATA smConst<>+28(SB)/4, $0x3d2aaaab
DATA smConst<>+32(SB)/4, $0x3e2aaaab
DATA smConst<>+36(SB)/4, $0x3f000000
DATA smConst<>+40(SB)/4, $0x3f800000
DATA smConst<>+44(SB)/4, $127
GLOBL smConst<>(SB), RODATA|NOPTR, $48

// EXP8 replaces Y1 (every lane <= 0) with e^Y1 as expNeg computes it, eight lanes at once: the
// floor at -87 gives e^-87 (1.6e-38) where expNeg gives 0, which no sum of at least 1 notices.
// Clobbers Y2-Y4.
#define EXP8 \
	VMAXPS Y9, Y1, Y1 \
	VMULPS Y12, Y1, Y2 \
	VROUNDPS $0, Y2, Y2 \
	VFNMADD231PS Y11, Y2, Y1 \
	VFNMADD231PS Y10, Y2, Y1 \
	VBROADCASTSS smConst<>+20(SB), Y3 \
	VBROADCASTSS smConst<>+24(SB), Y4 \
	VFMADD213PS Y4, Y1, Y3 \
	VBROADCASTSS smConst<>+28(SB), Y4 \
	VFMADD213PS Y4, Y1, Y3 \
	VBROADCASTSS smConst<>+32(SB), Y4 \
	VFMADD213PS Y4, Y1, Y3 \
	VBROADCASTSS smConst<>+36(SB), Y4 \
	VFMADD213PS Y4, Y1, Y3 \
	VBROADCASTSS smConst<>+40(SB), Y4 \
	VFMADD213PS Y4, Y1, Y3 \
	VFMADD213PS Y4, Y1, Y3 \
	VCVTPS2DQ Y2, Y2 \
	VPADDD Y8, Y2, Y2 \
	VPSLLD $23, Y2, Y2 \
	VMULPS Y2, Y3, Y1

// func softmax8(s *float32, n int, scale float32)
// softmax of s[0:n]·scale in place, n >= 1. It reads and writes s up to n rounded up to a
// multiple of 8 (the scores' rows are padded to 16); the lanes past n take no part in the max
// and the sum, and what is written there is not read.
TEXT ·softmax8(SB), NOSPLIT, $0-20
	MOVQ s+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ CX, R10
	VBROADCASTSS scale+16(FP), Y15
	MOVQ CX, DX
	ANDQ $7, DX // DX: lanes of the last, partial chunk (0: none)
	SHRQ $3, CX // CX: full chunks
	LEAQ smMask<>(SB), AX
	MOVQ $8, BX
	SUBQ DX, BX
	VMOVUPS (AX)(BX*4), Y14
	VBROADCASTSS smConst<>+0(SB), Y13
	VBROADCASTSS smConst<>+4(SB), Y12
	VBROADCASTSS smConst<>+8(SB), Y11
	VBROADCASTSS smConst<>+12(SB), Y10
	VBROADCASTSS smConst<>+16(SB), Y9
	VPBROADCASTD smConst<>+44(SB), Y8

	// Scale in place and find the largest.
	VMOVUPS Y13, Y0
	MOVQ DI, SI
	MOVQ CX, R8
	TESTQ R8, R8
	JZ maxtail
maxloop:
	VMULPS (SI), Y15, Y1
	VMOVUPS Y1, (SI)
	VMAXPS Y1, Y0, Y0
	ADDQ $32, SI
	DECQ R8
	JNZ maxloop
maxtail:
	TESTQ DX, DX
	JZ maxdone
	VMULPS (SI), Y15, Y1
	VMOVUPS Y1, (SI)
	VANDPS Y14, Y1, Y1
	VANDNPS Y13, Y14, Y2
	VORPS Y2, Y1, Y1
	VMAXPS Y1, Y0, Y0
maxdone:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	VBROADCASTSS X0, Y15 // Y15: the largest

	// e^(x - largest) in place, and their sum.
	VXORPS Y0, Y0, Y0
	MOVQ DI, SI
	MOVQ CX, R8
	TESTQ R8, R8
	JZ exptail
exploop:
	VMOVUPS (SI), Y1
	VSUBPS Y15, Y1, Y1
	EXP8
	VMOVUPS Y1, (SI)
	VADDPS Y1, Y0, Y0
	ADDQ $32, SI
	DECQ R8
	JNZ exploop
exptail:
	TESTQ DX, DX
	JZ expdone
	VMOVUPS (SI), Y1
	VSUBPS Y15, Y1, Y1
	EXP8
	VMOVUPS Y1, (SI)
	VANDPS Y14, Y1, Y1
	VADDPS Y1, Y0, Y0
expdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VADDPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VADDPS X1, X0, X0
	VBROADCASTSS smConst<>+40(SB), X1
	VDIVSS X0, X1, X1
	VBROADCASTSS X1, Y15 // Y15: 1/sum

	// Divide by the sum.
	MOVQ DI, SI
	MOVQ R10, CX
	ADDQ $7, CX
	SHRQ $3, CX // every chunk written, the partial one included
	TESTQ CX, CX
	JZ done
scaleloop:
	VMULPS (SI), Y15, Y1
	VMOVUPS Y1, (SI)
	ADDQ $32, SI
	DECQ CX
	JNZ scaleloop
done:
	VZEROUPPER
	RET
