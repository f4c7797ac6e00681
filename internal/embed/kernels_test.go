package embed

import (
	"math/rand/v2"
	"testing"
)

// TestGemmReluAgrees checks that gemmRelu gives relu of gemm's floats on both paths, with k past
// a k block (the relu is applied as the last block's sums are stored) and rows past a kernel's
// six, so a relu applied to an earlier block's partial sums would show.
func TestGemmReluAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	defer func(saved bool) { hasFMA = saved }(hasFMA)
	for _, fma := range kernelPaths(t) {
		hasFMA = fma
		for _, c := range []struct{ n, k, m int }{{13, 512, 1536}, {6, 300, 32}, {1, 16, 16}} {
			in, w, bias := randFloats(r, c.n*c.k), randFloats(r, c.k*c.m), randFloats(r, c.m)
			pw := pack(w, c.k, c.m)
			want, got := make([]float32, c.n*c.m), make([]float32, c.n*c.m)
			gemm(want, in, c.n, pw, bias, false)
			gemmRelu(got, in, c.n, pw, bias)
			negatives := 0
			for i, v := range want {
				if v < 0 {
					want[i], negatives = 0, negatives+1
				}
				if got[i] != want[i] {
					t.Fatalf("fma=%v n=%d k=%d m=%d: [%d] = %g, want %g", fma, c.n, c.k, c.m, i, got[i], want[i])
				}
			}
			if negatives == 0 {
				t.Fatalf("no negative sums: the relu was not exercised")
			}
		}
	}
}

// kernelPaths is the gemm paths this machine can run: the plain Go loops, and the FMA kernels
// when the CPU has them.
func kernelPaths(t *testing.T) []bool {
	if hasFMA {
		return []bool{false, true}
	}
	t.Log("no AVX2/FMA on this machine: the Go loops alone")
	return []bool{false}
}

func randFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}
