//go:build amd64 && !purego

#include "textflag.h"

// The six output rows of a 6×16 kernel (DI: row 0, AX: row 3, R8: the row stride in bytes)
// live in Y0–Y11 between these.
#define LOAD6x16 \
	VMOVUPS 0(DI), Y0 \
	VMOVUPS 32(DI), Y1 \
	VMOVUPS 0(DI)(R8*1), Y2 \
	VMOVUPS 32(DI)(R8*1), Y3 \
	VMOVUPS 0(DI)(R8*2), Y4 \
	VMOVUPS 32(DI)(R8*2), Y5 \
	VMOVUPS 0(AX), Y6 \
	VMOVUPS 32(AX), Y7 \
	VMOVUPS 0(AX)(R8*1), Y8 \
	VMOVUPS 32(AX)(R8*1), Y9 \
	VMOVUPS 0(AX)(R8*2), Y10 \
	VMOVUPS 32(AX)(R8*2), Y11

#define STORE6x16 \
	VMOVUPS Y0, 0(DI) \
	VMOVUPS Y1, 32(DI) \
	VMOVUPS Y2, 0(DI)(R8*1) \
	VMOVUPS Y3, 32(DI)(R8*1) \
	VMOVUPS Y4, 0(DI)(R8*2) \
	VMOVUPS Y5, 32(DI)(R8*2) \
	VMOVUPS Y6, 0(AX) \
	VMOVUPS Y7, 32(AX) \
	VMOVUPS Y8, 0(AX)(R8*1) \
	VMOVUPS Y9, 32(AX)(R8*1) \
	VMOVUPS Y10, 0(AX)(R8*2) \
	VMOVUPS Y11, 32(AX)(R8*2)

// Relu of the twelve accumulators before they are stored: max(x, +0), so a negative sum (and
// -0) stores as +0, which the sparse product's zero test treats as the Go loop's 0.
#define RELU6x16 \
	VXORPS Y12, Y12, Y12 \
	VMAXPS Y12, Y0, Y0 \
	VMAXPS Y12, Y1, Y1 \
	VMAXPS Y12, Y2, Y2 \
	VMAXPS Y12, Y3, Y3 \
	VMAXPS Y12, Y4, Y4 \
	VMAXPS Y12, Y5, Y5 \
	VMAXPS Y12, Y6, Y6 \
	VMAXPS Y12, Y7, Y7 \
	VMAXPS Y12, Y8, Y8 \
	VMAXPS Y12, Y9, Y9 \
	VMAXPS Y12, Y10, Y10 \
	VMAXPS Y12, Y11, Y11

// func fma6x16(o *float32, ostride int, a *float32, astride int, w *float32, k int, relu int, ahead int)
// Rows r < 6 of o (16 floats each, ostride floats apart) += sum over p < k of a[r*astride+p] *
// w[p*16 : p*16+16]: w is one packed panel, twelve YMM accumulators stay in registers, and each
// 64 bytes of w loaded serve six rows. With relu != 0 the sums are stored as max(sum, 0): the
// FFN's hidden layer needs no pass of its own after its product's last block. Each 64 bytes of
// w read, the line ahead bytes further is prefetched into L2: the caller passes the distance to
// the next panel on its first call for a panel, so that the panel's next calls and the next
// panel find their weights in cache rather than in memory (a pass reads ~20 MB of weights, more
// than this machine's share of L3), and 0 otherwise (a prefetch of a line in L1 costs a load).
TEXT ·fma6x16(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ ostride+8(FP), R8
	SHLQ $2, R8
	MOVQ a+16(FP), SI
	MOVQ astride+24(FP), R9
	SHLQ $2, R9
	MOVQ w+32(FP), DX
	MOVQ k+40(FP), CX
	MOVQ ahead+56(FP), R12
	LEAQ (DI)(R8*2), AX
	ADDQ R8, AX // AX: output row 3
	LEAQ (SI)(R9*2), BX
	ADDQ R9, BX // BX: input row 3
	LOAD6x16
	// The caller's next call is most often the six rows below these, whose 16 outputs are rows
	// of up to 6 KiB apart that no hardware prefetcher predicts: fetch them while these sums run
	// (a prefetch past the end of the matrix does not fault).
	LEAQ (AX)(R8*2), R10
	ADDQ R8, R10 // R10: output row 6
	PREFETCHT0 (R10)
	PREFETCHT0 (R10)(R8*1)
	PREFETCHT0 (R10)(R8*2)
	LEAQ (R10)(R8*2), R10
	ADDQ R8, R10 // R10: output row 9
	PREFETCHT0 (R10)
	PREFETCHT0 (R10)(R8*1)
	PREFETCHT0 (R10)(R8*2)
	TESTQ CX, CX
	JZ k6done
k6loop:
	PREFETCHT1 (DX)(R12*1)
	VMOVUPS 0(DX), Y12
	VMOVUPS 32(DX), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (SI)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (SI)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (BX), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (BX)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (BX)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $4, SI
	ADDQ $4, BX
	ADDQ $64, DX
	DECQ CX
	JNZ k6loop
k6done:
	CMPQ relu+48(FP), $0
	JEQ k6store
	RELU6x16
k6store:
	STORE6x16
	VZEROUPPER
	RET

// func fma6x16idx(o *float32, ostride int, a *float32, astride int, w *float32, idx *int32, n int)
// fma6x16 over the n weight rows idx[0..n) of the panel w alone: a holds the six rows' inputs
// at those features (row r's at a + r·astride, one float per feature). The features zero in
// all six rows are left out by the caller (nine in ten of the FFN's hidden layer are zero
// after relu).
TEXT ·fma6x16idx(SB), NOSPLIT, $0-56
	MOVQ o+0(FP), DI
	MOVQ ostride+8(FP), R8
	SHLQ $2, R8
	MOVQ a+16(FP), SI
	MOVQ astride+24(FP), R9
	SHLQ $2, R9
	MOVQ w+32(FP), DX
	MOVQ idx+40(FP), R11
	MOVQ n+48(FP), CX
	LEAQ (DI)(R8*2), AX
	ADDQ R8, AX // AX: output row 3
	LEAQ (SI)(R9*2), BX
	ADDQ R9, BX // BX: input row 3
	LOAD6x16
	TESTQ CX, CX
	JZ kidone
kiloop:
	MOVLQSX (R11), R10
	SHLQ $6, R10
	VMOVUPS 0(DX)(R10*1), Y12
	VMOVUPS 32(DX)(R10*1), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (SI)(R9*1), Y15
	VFMADD231PS Y12, Y15, Y2
	VFMADD231PS Y13, Y15, Y3
	VBROADCASTSS (SI)(R9*2), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (BX), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VBROADCASTSS (BX)(R9*1), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (BX)(R9*2), Y15
	VFMADD231PS Y12, Y15, Y10
	VFMADD231PS Y13, Y15, Y11
	ADDQ $4, SI
	ADDQ $4, BX
	ADDQ $4, R11
	DECQ CX
	JNZ kiloop
kidone:
	STORE6x16
	VZEROUPPER
	RET

// func fma1x16(o, a, w *float32, k int, relu int)
// o[0:16] += sum over p < k of a[p] * w[p*16 : p*16+16], for the rows past the last six; with
// relu != 0 stored as max(sum, 0), as fma6x16.
TEXT ·fma1x16(SB), NOSPLIT, $0-40
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ k+24(FP), CX
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	TESTQ CX, CX
	JZ k1done
k1loop:
	VBROADCASTSS (SI), Y8
	VFMADD231PS 0(DX), Y8, Y0
	VFMADD231PS 32(DX), Y8, Y1
	ADDQ $4, SI
	ADDQ $64, DX
	DECQ CX
	JNZ k1loop
k1done:
	CMPQ relu+32(FP), $0
	JEQ k1store
	VXORPS Y8, Y8, Y8
	VMAXPS Y8, Y0, Y0
	VMAXPS Y8, Y1, Y1
k1store:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

// func dotInt8(a, b *int8, n int) int32
// The dot product of n int8s (n a multiple of 16), widened to int16 and summed in int32 lanes.
TEXT ·dotInt8(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y3, Y3, Y3
	SHRQ $4, CX
	JZ dsum
dloop:
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD Y1, Y2, Y1
	VPADDD Y1, Y0, Y0
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ dloop
dsum:
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+24(FP)
	VZEROUPPER
	RET
