//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// hasFMA selects the AVX2/FMA kernels of gemm_amd64.s; without them the plain Go loops run.
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 selects the AVX-512 kernels of gemm_avx512_amd64.s for the tiles they fit (twelve
// rows by two panels, three rows by eight in the sparse product); the AVX2 kernels take the rows
// and panels left over, so it is only ever true with hasFMA. Tests set both to run each path.
var hasAVX512 = hasFMA && cpu.X86.HasAVX512F

//go:noescape
func fma12x32(o *float32, ostride int, a *float32, astride int, w *float32, wstride int, k int, relu int, ahead int, bias *float32, init int)

//go:noescape
func fma1x32(o, a, w *float32, wstride int, k int, relu int, bias *float32, init int)

//go:noescape
func fma3x128idx(o *float32, ostride int, a *float32, astride int, w *float32, wstride int, idx *int32, n int)

//go:noescape
func fma3x128h(o *float32, ostride int, a *float32, astride int, w *uint16, idx *int32, n int)

//go:noescape
func gather3x16(in *float32, istride int, a *float32, astride int, idx *int32, k int) int

//go:noescape
func fma6x16(o *float32, ostride int, a *float32, astride int, w *float32, k int, relu int, ahead int)

//go:noescape
func fma6x16idx(o *float32, ostride int, a *float32, astride int, w *float32, idx *int32, n int)

//go:noescape
func fma1x16(o, a, w *float32, k int, relu int)

// lnSums4, lnSqSums4 and lnOut are layerNorm's loops (layernorm_amd64.s).
//
//go:noescape
func lnSums4(x *float32, stride int, d int, sums *[16]float64)

//go:noescape
func lnSqSums4(x *float32, stride int, d int, mean *[4]float32, sums *[16]float64)

//go:noescape
func lnOut(x, o *float32, d int, mean, r float32, scale, bias *float32)

//go:noescape
func dotInt8(a, b *int8, n int) int32

// softmax8 is softmax (forward.go) eight lanes at a time, reading and writing s up to n rounded
// up to a multiple of 8 (softmax_amd64.s).
//
//go:noescape
func softmax8(s *float32, n int, scale float32)
