//go:build amd64 && !purego

#include "textflag.h"

// The AVX-512 kernels: the same sums as gemm_amd64.s's, each output's products added in the
// same k order with the same fused multiply-add, so every float is the AVX2 kernels' bit for
// bit; a ZMM register holds a whole 16-float panel row, and the 32 registers hold twice the
// accumulators, so each weight and input loaded serves twice the multiply-adds.

// func fma12x32(o *float32, ostride int, a *float32, astride int, w *float32, wstride int, k int, relu int, ahead int, bias *float32, init int)
// Rows r < 12 of o (32 floats each, ostride floats apart) += sum over p < k of a[r*astride+p] *
// the two panels' rows p (w, and w+wstride floats: the next panel): twenty-four ZMM
// accumulators, each 128 bytes of weights loaded serve twelve rows and each input broadcast
// two panels. relu and ahead are fma6x16's: with relu != 0 the sums are stored as max(sum, 0),
// and each 64 bytes of weights read, the same line ahead bytes further is prefetched into L2
// (the caller passes the distance to the next pair of panels on a pair's first call, else 0).
// init says what the sums start from: 0 the outputs, 1 the 32 floats at bias (the outputs are
// not read), 2 the outputs plus those (addBias's float32 adds, done here rather than in a pass
// of their own over the outputs).
TEXT ·fma12x32(SB), NOSPLIT, $0-88
	MOVQ o+0(FP), DI
	MOVQ ostride+8(FP), R8
	SHLQ $2, R8
	LEAQ (DI)(R8*2), AX
	ADDQ R8, AX // AX: output row 3
	LEAQ (AX)(R8*2), R10
	ADDQ R8, R10 // R10: output row 6
	LEAQ (R10)(R8*2), R11
	ADDQ R8, R11 // R11: output row 9
	MOVQ init+80(FP), R12
	MOVQ bias+72(FP), R13
	CMPQ R12, $1
	JNE z12load
	VMOVUPS 0(R13), Z0
	VMOVUPS 64(R13), Z1
	VMOVAPS Z0, Z2
	VMOVAPS Z1, Z3
	VMOVAPS Z0, Z4
	VMOVAPS Z1, Z5
	VMOVAPS Z0, Z6
	VMOVAPS Z1, Z7
	VMOVAPS Z0, Z8
	VMOVAPS Z1, Z9
	VMOVAPS Z0, Z10
	VMOVAPS Z1, Z11
	VMOVAPS Z0, Z12
	VMOVAPS Z1, Z13
	VMOVAPS Z0, Z14
	VMOVAPS Z1, Z15
	VMOVAPS Z0, Z16
	VMOVAPS Z1, Z17
	VMOVAPS Z0, Z18
	VMOVAPS Z1, Z19
	VMOVAPS Z0, Z20
	VMOVAPS Z1, Z21
	VMOVAPS Z0, Z22
	VMOVAPS Z1, Z23
	JMP z12ready
z12load:
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 0(DI)(R8*1), Z2
	VMOVUPS 64(DI)(R8*1), Z3
	VMOVUPS 0(DI)(R8*2), Z4
	VMOVUPS 64(DI)(R8*2), Z5
	VMOVUPS 0(AX), Z6
	VMOVUPS 64(AX), Z7
	VMOVUPS 0(AX)(R8*1), Z8
	VMOVUPS 64(AX)(R8*1), Z9
	VMOVUPS 0(AX)(R8*2), Z10
	VMOVUPS 64(AX)(R8*2), Z11
	VMOVUPS 0(R10), Z12
	VMOVUPS 64(R10), Z13
	VMOVUPS 0(R10)(R8*1), Z14
	VMOVUPS 64(R10)(R8*1), Z15
	VMOVUPS 0(R10)(R8*2), Z16
	VMOVUPS 64(R10)(R8*2), Z17
	VMOVUPS 0(R11), Z18
	VMOVUPS 64(R11), Z19
	VMOVUPS 0(R11)(R8*1), Z20
	VMOVUPS 64(R11)(R8*1), Z21
	VMOVUPS 0(R11)(R8*2), Z22
	VMOVUPS 64(R11)(R8*2), Z23
	CMPQ R12, $2
	JNE z12ready
	VMOVUPS 0(R13), Z24
	VMOVUPS 64(R13), Z25
	VADDPS Z24, Z0, Z0
	VADDPS Z25, Z1, Z1
	VADDPS Z24, Z2, Z2
	VADDPS Z25, Z3, Z3
	VADDPS Z24, Z4, Z4
	VADDPS Z25, Z5, Z5
	VADDPS Z24, Z6, Z6
	VADDPS Z25, Z7, Z7
	VADDPS Z24, Z8, Z8
	VADDPS Z25, Z9, Z9
	VADDPS Z24, Z10, Z10
	VADDPS Z25, Z11, Z11
	VADDPS Z24, Z12, Z12
	VADDPS Z25, Z13, Z13
	VADDPS Z24, Z14, Z14
	VADDPS Z25, Z15, Z15
	VADDPS Z24, Z16, Z16
	VADDPS Z25, Z17, Z17
	VADDPS Z24, Z18, Z18
	VADDPS Z25, Z19, Z19
	VADDPS Z24, Z20, Z20
	VADDPS Z25, Z21, Z21
	VADDPS Z24, Z22, Z22
	VADDPS Z25, Z23, Z23
z12ready:
	// The caller's next call is most often the twelve rows below these: fetch their outputs
	// while these sums run (a prefetch past the end of the matrix does not fault).
	LEAQ (R11)(R8*2), R10
	ADDQ R8, R10 // R10: output row 12
	PREFETCHT0 0(R10)
	PREFETCHT0 64(R10)
	PREFETCHT0 0(R10)(R8*1)
	PREFETCHT0 64(R10)(R8*1)
	PREFETCHT0 0(R10)(R8*2)
	PREFETCHT0 64(R10)(R8*2)
	LEAQ (R10)(R8*2), R10
	ADDQ R8, R10
	PREFETCHT0 0(R10)
	PREFETCHT0 64(R10)
	PREFETCHT0 0(R10)(R8*1)
	PREFETCHT0 64(R10)(R8*1)
	PREFETCHT0 0(R10)(R8*2)
	PREFETCHT0 64(R10)(R8*2)
	LEAQ (R10)(R8*2), R10
	ADDQ R8, R10
	PREFETCHT0 0(R10)
	PREFETCHT0 64(R10)
	PREFETCHT0 0(R10)(R8*1)
	PREFETCHT0 64(R10)(R8*1)
	PREFETCHT0 0(R10)(R8*2)
	PREFETCHT0 64(R10)(R8*2)
	LEAQ (R10)(R8*2), R10
	ADDQ R8, R10
	PREFETCHT0 0(R10)
	PREFETCHT0 64(R10)
	PREFETCHT0 0(R10)(R8*1)
	PREFETCHT0 64(R10)(R8*1)
	PREFETCHT0 0(R10)(R8*2)
	PREFETCHT0 64(R10)(R8*2)
	MOVQ a+16(FP), SI
	MOVQ astride+24(FP), R9
	SHLQ $2, R9
	LEAQ (SI)(R9*2), BX
	ADDQ R9, BX // BX: input row 3
	LEAQ (BX)(R9*2), R10
	ADDQ R9, R10 // R10: input row 6
	LEAQ (R10)(R9*2), R11
	ADDQ R9, R11 // R11: input row 9
	MOVQ w+32(FP), DX
	MOVQ wstride+40(FP), R13
	SHLQ $2, R13
	MOVQ k+48(FP), CX
	MOVQ ahead+64(FP), R12
	ADDQ DX, R12 // R12: the weights to prefetch (DX itself when ahead is 0: in L1, cheap)
	TESTQ CX, CX
	JZ z12done
z12loop:
	PREFETCHT1 (R12)
	PREFETCHT1 (R12)(R13*1)
	VMOVUPS (DX), Z24
	VMOVUPS (DX)(R13*1), Z25
	VBROADCASTSS (SI), Z26
	VFMADD231PS Z24, Z26, Z0
	VFMADD231PS Z25, Z26, Z1
	VBROADCASTSS (SI)(R9*1), Z27
	VFMADD231PS Z24, Z27, Z2
	VFMADD231PS Z25, Z27, Z3
	VBROADCASTSS (SI)(R9*2), Z28
	VFMADD231PS Z24, Z28, Z4
	VFMADD231PS Z25, Z28, Z5
	VBROADCASTSS (BX), Z29
	VFMADD231PS Z24, Z29, Z6
	VFMADD231PS Z25, Z29, Z7
	VBROADCASTSS (BX)(R9*1), Z30
	VFMADD231PS Z24, Z30, Z8
	VFMADD231PS Z25, Z30, Z9
	VBROADCASTSS (BX)(R9*2), Z31
	VFMADD231PS Z24, Z31, Z10
	VFMADD231PS Z25, Z31, Z11
	VBROADCASTSS (R10), Z26
	VFMADD231PS Z24, Z26, Z12
	VFMADD231PS Z25, Z26, Z13
	VBROADCASTSS (R10)(R9*1), Z27
	VFMADD231PS Z24, Z27, Z14
	VFMADD231PS Z25, Z27, Z15
	VBROADCASTSS (R10)(R9*2), Z28
	VFMADD231PS Z24, Z28, Z16
	VFMADD231PS Z25, Z28, Z17
	VBROADCASTSS (R11), Z29
	VFMADD231PS Z24, Z29, Z18
	VFMADD231PS Z25, Z29, Z19
	VBROADCASTSS (R11)(R9*1), Z30
	VFMADD231PS Z24, Z30, Z20
	VFMADD231PS Z25, Z30, Z21
	VBROADCASTSS (R11)(R9*2), Z31
	VFMADD231PS Z24, Z31, Z22
	VFMADD231PS Z25, Z31, Z23
	ADDQ $4, SI
	ADDQ $4, BX
	ADDQ $4, R10
	ADDQ $4, R11
	ADDQ $64, DX
	ADDQ $64, R12
	DECQ CX
	JNZ z12loop
z12done:
	LEAQ (AX)(R8*2), R10
	ADDQ R8, R10 // R10: output row 6
	LEAQ (R10)(R8*2), R11
	ADDQ R8, R11 // R11: output row 9
	CMPQ relu+56(FP), $0
	JEQ z12store
	// max(x, +0): a negative sum (and -0) stores as +0, as fma6x16's relu.
	VPXORD Z24, Z24, Z24
	VMAXPS Z24, Z0, Z0
	VMAXPS Z24, Z1, Z1
	VMAXPS Z24, Z2, Z2
	VMAXPS Z24, Z3, Z3
	VMAXPS Z24, Z4, Z4
	VMAXPS Z24, Z5, Z5
	VMAXPS Z24, Z6, Z6
	VMAXPS Z24, Z7, Z7
	VMAXPS Z24, Z8, Z8
	VMAXPS Z24, Z9, Z9
	VMAXPS Z24, Z10, Z10
	VMAXPS Z24, Z11, Z11
	VMAXPS Z24, Z12, Z12
	VMAXPS Z24, Z13, Z13
	VMAXPS Z24, Z14, Z14
	VMAXPS Z24, Z15, Z15
	VMAXPS Z24, Z16, Z16
	VMAXPS Z24, Z17, Z17
	VMAXPS Z24, Z18, Z18
	VMAXPS Z24, Z19, Z19
	VMAXPS Z24, Z20, Z20
	VMAXPS Z24, Z21, Z21
	VMAXPS Z24, Z22, Z22
	VMAXPS Z24, Z23, Z23
z12store:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 0(DI)(R8*1)
	VMOVUPS Z3, 64(DI)(R8*1)
	VMOVUPS Z4, 0(DI)(R8*2)
	VMOVUPS Z5, 64(DI)(R8*2)
	VMOVUPS Z6, 0(AX)
	VMOVUPS Z7, 64(AX)
	VMOVUPS Z8, 0(AX)(R8*1)
	VMOVUPS Z9, 64(AX)(R8*1)
	VMOVUPS Z10, 0(AX)(R8*2)
	VMOVUPS Z11, 64(AX)(R8*2)
	VMOVUPS Z12, 0(R10)
	VMOVUPS Z13, 64(R10)
	VMOVUPS Z14, 0(R10)(R8*1)
	VMOVUPS Z15, 64(R10)(R8*1)
	VMOVUPS Z16, 0(R10)(R8*2)
	VMOVUPS Z17, 64(R10)(R8*2)
	VMOVUPS Z18, 0(R11)
	VMOVUPS Z19, 64(R11)
	VMOVUPS Z20, 0(R11)(R8*1)
	VMOVUPS Z21, 64(R11)(R8*1)
	VMOVUPS Z22, 0(R11)(R8*2)
	VMOVUPS Z23, 64(R11)(R8*2)
	VZEROUPPER
	RET

// func fma1x32(o, a, w *float32, wstride int, k int, relu int, bias *float32, init int)
// o[0:32] += sum over p < k of a[p] * the two panels' rows p (w, and w+wstride floats), for the
// rows past the last twelve; with relu != 0 stored as max(sum, 0), and init as fma12x32's.
TEXT ·fma1x32(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ wstride+24(FP), R13
	SHLQ $2, R13
	MOVQ k+32(FP), CX
	MOVQ init+56(FP), R12
	MOVQ bias+48(FP), R11
	CMPQ R12, $1
	JNE z1load
	VMOVUPS 0(R11), Z0
	VMOVUPS 64(R11), Z1
	JMP z1ready
z1load:
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	CMPQ R12, $2
	JNE z1ready
	VADDPS 0(R11), Z0, Z0
	VADDPS 64(R11), Z1, Z1
z1ready:
	TESTQ CX, CX
	JZ z1done
z1loop:
	VBROADCASTSS (SI), Z8
	VFMADD231PS (DX), Z8, Z0
	VFMADD231PS (DX)(R13*1), Z8, Z1
	ADDQ $4, SI
	ADDQ $64, DX
	DECQ CX
	JNZ z1loop
z1done:
	CMPQ relu+40(FP), $0
	JEQ z1store
	VPXORD Z8, Z8, Z8
	VMAXPS Z8, Z0, Z0
	VMAXPS Z8, Z1, Z1
z1store:
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VZEROUPPER
	RET

// func fma3x128idx(o *float32, ostride int, a *float32, astride int, w *float32, wstride int, idx *int32, n int)
// The sparse product with AVX-512 (gemmSparse): rows r < 3 of o (128 floats each, ostride
// floats apart) += sum over i < n of a[r*astride+i] * row idx[i] of eight panels (w, wstride
// floats apart), in the order of idx. Twenty-four ZMM accumulators; each feature's 512 bytes
// of weights are loaded once for the three rows, and each input is broadcast to eight panels.
// Three rows rather than six (the AVX2 kernels' groups, and this kernel's before): the features
// kept, those not zero in every row of the group, are 19% of a k block at three rows against
// 29% at six in the issue's pages, so a third fewer products for 8 weight loads per 24
// multiply-adds instead of 4.
TEXT ·fma3x128idx(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ ostride+8(FP), R8
	SHLQ $2, R8
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	VMOVUPS 0(DI)(R8*1), Z8
	VMOVUPS 64(DI)(R8*1), Z9
	VMOVUPS 128(DI)(R8*1), Z10
	VMOVUPS 192(DI)(R8*1), Z11
	VMOVUPS 256(DI)(R8*1), Z12
	VMOVUPS 320(DI)(R8*1), Z13
	VMOVUPS 384(DI)(R8*1), Z14
	VMOVUPS 448(DI)(R8*1), Z15
	VMOVUPS 0(DI)(R8*2), Z16
	VMOVUPS 64(DI)(R8*2), Z17
	VMOVUPS 128(DI)(R8*2), Z18
	VMOVUPS 192(DI)(R8*2), Z19
	VMOVUPS 256(DI)(R8*2), Z20
	VMOVUPS 320(DI)(R8*2), Z21
	VMOVUPS 384(DI)(R8*2), Z22
	VMOVUPS 448(DI)(R8*2), Z23
	MOVQ a+16(FP), SI
	MOVQ astride+24(FP), R13
	SHLQ $2, R13
	MOVQ w+32(FP), DX
	MOVQ wstride+40(FP), R10
	SHLQ $2, R10
	MOVQ idx+48(FP), R11
	MOVQ n+56(FP), CX
	LEAQ (DX)(R10*1), R12 // R12: panel 1
	LEAQ (DX)(R10*2), R14 // R14: panel 2
	LEAQ (R14)(R10*1), R9 // R9: panel 3
	LEAQ (R14)(R10*2), BX // BX: panel 4
	LEAQ (BX)(R10*1), AX // AX: panel 5
	LEAQ (BX)(R10*2), DI // DI: panel 6
	LEAQ (DI)(R10*1), R8 // R8: panel 7
	TESTQ CX, CX
	JZ z3done
z3loop:
	MOVLQSX (R11), R10
	SHLQ $6, R10 // R10: the feature's row in a panel, in bytes
	VBROADCASTSS (SI), Z28
	VBROADCASTSS (SI)(R13*1), Z29
	VBROADCASTSS (SI)(R13*2), Z30
	VMOVUPS (DX)(R10*1), Z24
	VFMADD231PS Z24, Z28, Z0
	VFMADD231PS Z24, Z29, Z8
	VFMADD231PS Z24, Z30, Z16
	VMOVUPS (R12)(R10*1), Z25
	VFMADD231PS Z25, Z28, Z1
	VFMADD231PS Z25, Z29, Z9
	VFMADD231PS Z25, Z30, Z17
	VMOVUPS (R14)(R10*1), Z26
	VFMADD231PS Z26, Z28, Z2
	VFMADD231PS Z26, Z29, Z10
	VFMADD231PS Z26, Z30, Z18
	VMOVUPS (R9)(R10*1), Z27
	VFMADD231PS Z27, Z28, Z3
	VFMADD231PS Z27, Z29, Z11
	VFMADD231PS Z27, Z30, Z19
	VMOVUPS (BX)(R10*1), Z24
	VFMADD231PS Z24, Z28, Z4
	VFMADD231PS Z24, Z29, Z12
	VFMADD231PS Z24, Z30, Z20
	VMOVUPS (AX)(R10*1), Z25
	VFMADD231PS Z25, Z28, Z5
	VFMADD231PS Z25, Z29, Z13
	VFMADD231PS Z25, Z30, Z21
	VMOVUPS (DI)(R10*1), Z26
	VFMADD231PS Z26, Z28, Z6
	VFMADD231PS Z26, Z29, Z14
	VFMADD231PS Z26, Z30, Z22
	VMOVUPS (R8)(R10*1), Z27
	VFMADD231PS Z27, Z28, Z7
	VFMADD231PS Z27, Z29, Z15
	VFMADD231PS Z27, Z30, Z23
	ADDQ $4, SI
	ADDQ $4, R11
	DECQ CX
	JNZ z3loop
z3done:
	MOVQ o+0(FP), DI
	MOVQ ostride+8(FP), R8
	SHLQ $2, R8
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 0(DI)(R8*1)
	VMOVUPS Z9, 64(DI)(R8*1)
	VMOVUPS Z10, 128(DI)(R8*1)
	VMOVUPS Z11, 192(DI)(R8*1)
	VMOVUPS Z12, 256(DI)(R8*1)
	VMOVUPS Z13, 320(DI)(R8*1)
	VMOVUPS Z14, 384(DI)(R8*1)
	VMOVUPS Z15, 448(DI)(R8*1)
	VMOVUPS Z16, 0(DI)(R8*2)
	VMOVUPS Z17, 64(DI)(R8*2)
	VMOVUPS Z18, 128(DI)(R8*2)
	VMOVUPS Z19, 192(DI)(R8*2)
	VMOVUPS Z20, 256(DI)(R8*2)
	VMOVUPS Z21, 320(DI)(R8*2)
	VMOVUPS Z22, 384(DI)(R8*2)
	VMOVUPS Z23, 448(DI)(R8*2)
	VZEROUPPER
	RET

// func fma3x128h(o *float32, ostride int, a *float32, astride int, w *uint16, idx *int32, n int)
// fma3x128idx with the weights in half precision (packHalf): feature f's 128 weights are the
// 256 bytes at w+256*f, each 16 widened to floats as loaded (VCVTPH2PS, exact), so every sum is
// fma3x128idx's, float for float.
TEXT ·fma3x128h(SB), NOSPLIT, $0-56
	MOVQ o+0(FP), DI
	MOVQ ostride+8(FP), R8
	SHLQ $2, R8
	VMOVUPS 0(DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7
	VMOVUPS 0(DI)(R8*1), Z8
	VMOVUPS 64(DI)(R8*1), Z9
	VMOVUPS 128(DI)(R8*1), Z10
	VMOVUPS 192(DI)(R8*1), Z11
	VMOVUPS 256(DI)(R8*1), Z12
	VMOVUPS 320(DI)(R8*1), Z13
	VMOVUPS 384(DI)(R8*1), Z14
	VMOVUPS 448(DI)(R8*1), Z15
	VMOVUPS 0(DI)(R8*2), Z16
	VMOVUPS 64(DI)(R8*2), Z17
	VMOVUPS 128(DI)(R8*2), Z18
	VMOVUPS 192(DI)(R8*2), Z19
	VMOVUPS 256(DI)(R8*2), Z20
	VMOVUPS 320(DI)(R8*2), Z21
	VMOVUPS 384(DI)(R8*2), Z22
	VMOVUPS 448(DI)(R8*2), Z23
	MOVQ a+16(FP), SI
	MOVQ astride+24(FP), R13
	SHLQ $2, R13
	MOVQ w+32(FP), DX
	MOVQ idx+40(FP), R11
	MOVQ n+48(FP), CX
	TESTQ CX, CX
	JZ zhdone
zhloop:
	MOVLQSX (R11), R10
	SHLQ $8, R10 // R10: the feature's row of 128 halves, in bytes
	VBROADCASTSS (SI), Z28
	VBROADCASTSS (SI)(R13*1), Z29
	VBROADCASTSS (SI)(R13*2), Z30
	VCVTPH2PS 0(DX)(R10*1), Z24
	VFMADD231PS Z24, Z28, Z0
	VFMADD231PS Z24, Z29, Z8
	VFMADD231PS Z24, Z30, Z16
	VCVTPH2PS 32(DX)(R10*1), Z25
	VFMADD231PS Z25, Z28, Z1
	VFMADD231PS Z25, Z29, Z9
	VFMADD231PS Z25, Z30, Z17
	VCVTPH2PS 64(DX)(R10*1), Z26
	VFMADD231PS Z26, Z28, Z2
	VFMADD231PS Z26, Z29, Z10
	VFMADD231PS Z26, Z30, Z18
	VCVTPH2PS 96(DX)(R10*1), Z27
	VFMADD231PS Z27, Z28, Z3
	VFMADD231PS Z27, Z29, Z11
	VFMADD231PS Z27, Z30, Z19
	VCVTPH2PS 128(DX)(R10*1), Z24
	VFMADD231PS Z24, Z28, Z4
	VFMADD231PS Z24, Z29, Z12
	VFMADD231PS Z24, Z30, Z20
	VCVTPH2PS 160(DX)(R10*1), Z25
	VFMADD231PS Z25, Z28, Z5
	VFMADD231PS Z25, Z29, Z13
	VFMADD231PS Z25, Z30, Z21
	VCVTPH2PS 192(DX)(R10*1), Z26
	VFMADD231PS Z26, Z28, Z6
	VFMADD231PS Z26, Z29, Z14
	VFMADD231PS Z26, Z30, Z22
	VCVTPH2PS 224(DX)(R10*1), Z27
	VFMADD231PS Z27, Z28, Z7
	VFMADD231PS Z27, Z29, Z15
	VFMADD231PS Z27, Z30, Z23
	ADDQ $4, SI
	ADDQ $4, R11
	DECQ CX
	JNZ zhloop
zhdone:
	MOVQ o+0(FP), DI
	MOVQ ostride+8(FP), R8
	SHLQ $2, R8
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VMOVUPS Z8, 0(DI)(R8*1)
	VMOVUPS Z9, 64(DI)(R8*1)
	VMOVUPS Z10, 128(DI)(R8*1)
	VMOVUPS Z11, 192(DI)(R8*1)
	VMOVUPS Z12, 256(DI)(R8*1)
	VMOVUPS Z13, 320(DI)(R8*1)
	VMOVUPS Z14, 384(DI)(R8*1)
	VMOVUPS Z15, 448(DI)(R8*1)
	VMOVUPS Z16, 0(DI)(R8*2)
	VMOVUPS Z17, 64(DI)(R8*2)
	VMOVUPS Z18, 128(DI)(R8*2)
	VMOVUPS Z19, 192(DI)(R8*2)
	VMOVUPS Z20, 256(DI)(R8*2)
	VMOVUPS Z21, 320(DI)(R8*2)
	VMOVUPS Z22, 384(DI)(R8*2)
	VMOVUPS Z23, 448(DI)(R8*2)
	VZEROUPPER
	RET

// func gather3x16(in *float32, istride int, a *float32, astride int, idx *int32, k int) int
// The features p < k (k a multiple of 16) of three rows (in, istride floats apart) whose three
// inputs are not all +0, sixteen at a time: their indexes written to idx and row r's inputs at
// them to a + r·astride, packed from the start (VPCOMPRESSD in a register, then a whole
// register stored: up to fifteen slots past the last feature are written too), and how many.
TEXT ·gather3x16(SB), NOSPLIT, $0-56
	MOVQ in+0(FP), SI
	MOVQ istride+8(FP), R8
	SHLQ $2, R8
	MOVQ a+16(FP), DI
	MOVQ astride+24(FP), R9
	SHLQ $2, R9
	MOVQ idx+32(FP), R11
	MOVQ k+40(FP), CX
	SHRQ $4, CX
	XORQ AX, AX // features kept so far
	// Z8: the sixteen feature indexes of this step; Z9: sixteen 16s to step them.
	MOVL $16, R10
	VPBROADCASTD R10, Z9
	MOVQ $0x0706050403020100, R10
	MOVQ R10, X8
	MOVQ $0x0f0e0d0c0b0a0908, R10
	MOVQ R10, X10
	VPUNPCKLQDQ X10, X8, X8
	VPMOVZXBD X8, Z8
	TESTQ CX, CX
	JZ g3done
g3loop:
	VMOVDQU32 (SI), Z0
	VMOVDQU32 (SI)(R8*1), Z1
	VMOVDQU32 (SI)(R8*2), Z2
	VPORD Z0, Z1, Z6
	VPORD Z2, Z6, Z6
	VPTESTMD Z6, Z6, K1 // lanes with a bit set in any row: not +0 in all three
	KMOVW K1, R10
	POPCNTL R10, R10
	VPCOMPRESSD Z8, K1, Z6
	VMOVDQU32 Z6, (R11)(AX*4)
	LEAQ (DI)(AX*4), R13
	VPCOMPRESSD Z0, K1, Z0
	VMOVDQU32 Z0, (R13)
	VPCOMPRESSD Z1, K1, Z1
	VMOVDQU32 Z1, (R13)(R9*1)
	VPCOMPRESSD Z2, K1, Z2
	VMOVDQU32 Z2, (R13)(R9*2)
	ADDQ R10, AX
	VPADDD Z9, Z8, Z8
	ADDQ $64, SI
	DECQ CX
	JNZ g3loop
g3done:
	MOVQ AX, ret+48(FP)
	VZEROUPPER
	RET
