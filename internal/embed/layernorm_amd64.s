//go:build amd64 && !purego

#include "textflag.h"

// layerNorm's loops (forward.go) in AVX2, four rows at a time in the two sums: each sum's four
// float64 lanes are its s0…s3, added in the Go loop's order, and the four rows' chains run side
// by side where one row's four wait on their own adds. No fused multiply-add anywhere: the Go
// loops round each product and each sum (GOAMD64=v1), and so do these.

// func lnSums4(x *float32, stride int, d int, sums *[16]float64)
// sums[4r+i] = the float64 sum, in c order, of x[r·stride + c] over c ≡ i (mod 4), c < d (a
// multiple of 4), for rows r < 4.
TEXT ·lnSums4(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	SHLQ $2, R8
	MOVQ d+16(FP), CX
	SHRQ $2, CX
	MOVQ sums+24(FP), DI
	LEAQ (SI)(R8*2), BX // BX: row 2
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JZ sdone
sloop:
	VCVTPS2PD (SI), Y4
	VADDPD Y4, Y0, Y0
	VCVTPS2PD (SI)(R8*1), Y5
	VADDPD Y5, Y1, Y1
	VCVTPS2PD (BX), Y6
	VADDPD Y6, Y2, Y2
	VCVTPS2PD (BX)(R8*1), Y7
	VADDPD Y7, Y3, Y3
	ADDQ $16, SI
	ADDQ $16, BX
	DECQ CX
	JNZ sloop
sdone:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET

// func lnSqSums4(x *float32, stride int, d int, mean *[4]float32, sums *[16]float64)
// lnSums4 of the squares of float64(x - mean[r]), the difference taken in float32.
TEXT ·lnSqSums4(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), R8
	SHLQ $2, R8
	MOVQ d+16(FP), CX
	SHRQ $2, CX
	MOVQ mean+24(FP), R9
	MOVQ sums+32(FP), DI
	LEAQ (SI)(R8*2), BX // BX: row 2
	VBROADCASTSS 0(R9), X8
	VBROADCASTSS 4(R9), X9
	VBROADCASTSS 8(R9), X10
	VBROADCASTSS 12(R9), X11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JZ qdone
qloop:
	VMOVUPS (SI), X4
	VSUBPS X8, X4, X4
	VCVTPS2PD X4, Y4
	VMULPD Y4, Y4, Y4
	VADDPD Y4, Y0, Y0
	VMOVUPS (SI)(R8*1), X5
	VSUBPS X9, X5, X5
	VCVTPS2PD X5, Y5
	VMULPD Y5, Y5, Y5
	VADDPD Y5, Y1, Y1
	VMOVUPS (BX), X6
	VSUBPS X10, X6, X6
	VCVTPS2PD X6, Y6
	VMULPD Y6, Y6, Y6
	VADDPD Y6, Y2, Y2
	VMOVUPS (BX)(R8*1), X7
	VSUBPS X11, X7, X7
	VCVTPS2PD X7, Y7
	VMULPD Y7, Y7, Y7
	VADDPD Y7, Y3, Y3
	ADDQ $16, SI
	ADDQ $16, BX
	DECQ CX
	JNZ qloop
qdone:
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET

// func lnOut(x, o *float32, d int, mean, r float32, scale, bias *float32)
// o[c] = (x[c]-mean)·r·scale[c] + bias[c] for c < d (a multiple of 8), each operation rounded
// to float32 in that order, as the Go loop.
TEXT ·lnOut(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ o+8(FP), DI
	MOVQ d+16(FP), CX
	SHRQ $3, CX
	VBROADCASTSS mean+24(FP), Y8
	VBROADCASTSS r+28(FP), Y9
	MOVQ scale+32(FP), DX
	MOVQ bias+40(FP), BX
	TESTQ CX, CX
	JZ odone
oloop:
	VMOVUPS (SI), Y0
	VSUBPS Y8, Y0, Y0
	VMULPS Y9, Y0, Y0
	VMULPS (DX), Y0, Y0
	VADDPS (BX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	ADDQ $32, BX
	DECQ CX
	JNZ oloop
odone:
	VZEROUPPER
	RET
