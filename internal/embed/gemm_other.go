//go:build !amd64 || purego

package embed

var hasFMA = false // the plain Go loops run

var hasAVX512 = false

func fma12x32(o *float32, ostride int, a *float32, astride int, w *float32, wstride int, k int, relu int, ahead int, bias *float32, init int) {
	panic("embed: no AVX-512 kernel")
}

func fma1x32(o, a, w *float32, wstride int, k int, relu int, bias *float32, init int) {
	panic("embed: no AVX-512 kernel")
}

func fma6x16(o *float32, ostride int, a *float32, astride int, w *float32, k int, relu int, ahead int) {
	panic("embed: no FMA kernel")
}

func fma3x128idx(o *float32, ostride int, a *float32, astride int, w *float32, wstride int, idx *int32, n int) {
	panic("embed: no AVX-512 kernel")
}

func fma3x128h(o *float32, ostride int, a *float32, astride int, w *uint16, idx *int32, n int) {
	panic("embed: no AVX-512 kernel")
}

func gather3x16(in *float32, istride int, a *float32, astride int, idx *int32, k int) int {
	panic("embed: no AVX-512 kernel")
}

func fma6x16idx(o *float32, ostride int, a *float32, astride int, w *float32, idx *int32, n int) {
	panic("embed: no FMA kernel")
}

func fma1x16(o, a, w *float32, k int, relu int) { panic("embed: no FMA kernel") }

func lnSums4(x *float32, stride int, d int, sums *[16]float64) { panic("embed: no AVX2 layer norm") }

func lnSqSums4(x *float32, stride int, d int, mean *[4]float32, sums *[16]float64) {
	panic("embed: no AVX2 layer norm")
}

func lnOut(x, o *float32, d int, mean, r float32, scale, bias *float32) {
	panic("embed: no AVX2 layer norm")
}

func dotInt8(a, b *int8, n int) int32 { panic("embed: no int8 kernel") }

func softmax8(s *float32, n int, scale float32) { panic("embed: no AVX2 softmax") }
