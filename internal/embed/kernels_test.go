package embed

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemmReluAgrees checks that gemmRelu gives relu of gemm's floats on every path, with k past
// a k block (the relu is applied as the last block's sums are stored) and rows past a kernel's
// six, so a relu applied to an earlier block's partial sums would show.
func TestGemmReluAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, path := range kernelPaths(t) {
		path.use()
		for _, c := range []struct{ n, k, m int }{{13, 512, 1536}, {6, 300, 32}, {1, 16, 16}, {29, 300, 80}} {
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
					t.Fatalf("%s: n=%d k=%d m=%d: [%d] = %g, want %g", path.name, c.n, c.k, c.m, i, got[i], want[i])
				}
			}
			if negatives == 0 {
				t.Fatalf("no negative sums: the relu was not exercised")
			}
		}
	}
}

// kernelPath is one way of computing the products: the plain Go loops, the AVX2/FMA kernels,
// or the AVX-512 kernels (with the AVX2 ones for the rows and panels they leave over).
type kernelPath struct {
	name        string
	fma, avx512 bool
}

// use makes p the path the products take.
func (p kernelPath) use() { hasFMA, hasAVX512 = p.fma, p.avx512 }

// kernelPaths is the paths this machine can run, best last; the machine's own is restored when
// the test ends.
func kernelPaths(t *testing.T) []kernelPath {
	paths := []kernelPath{{"go", false, false}}
	if hasFMA {
		paths = append(paths, kernelPath{"avx2", true, false})
	} else {
		t.Log("no AVX2/FMA on this machine: the Go loops alone")
	}
	if hasAVX512 {
		paths = append(paths, kernelPath{"avx512", true, true})
	} else {
		t.Log("no AVX-512 on this machine (or -tags purego): its kernels are not tested here")
	}
	fma, avx512 := hasFMA, hasAVX512
	t.Cleanup(func() { hasFMA, hasAVX512 = fma, avx512 })
	return paths
}

func randFloats(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

// TestSoftmaxKernelAgrees compares the AVX2 softmax with the plain loop on rows of every length
// up to past MaxTokens, with scores spread as attention's and far apart (lanes that underflow),
// and padding past n full of huge values that must take no part.
func TestSoftmaxKernelAgrees(t *testing.T) {
	if !hasFMA {
		t.Skip("no AVX2/FMA on this machine: softmaxRow runs the plain loop, which the other tests cover")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 1; n <= MaxTokens+3; n++ {
		for _, spread := range []float32{1, 40, 400} {
			np := (n + lanes - 1) / lanes * lanes
			row := make([]float32, np)
			for j := range row {
				row[j] = 3e37
				if j < n {
					row[j] = (r.Float32()*2 - 1) * spread
				}
			}
			want := append([]float32(nil), row[:n]...)
			softmax(want, 0.125)
			softmaxRow(row, n, 0.125)
			var sum float64
			for j, w := range want {
				sum += float64(row[j])
				if d := math.Abs(float64(row[j] - w)); d > 1e-6*float64(w)+1e-30 {
					t.Fatalf("n=%d spread=%g: [%d] = %g, want %g", n, spread, j, row[j], w)
				}
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("n=%d spread=%g: sum %g", n, spread, sum)
			}
		}
	}
}

// TestLayerNormAgrees compares layerNorm on every path with the plain loop's floats, bit for
// bit: rows of the model's widths whose means and spreads differ by orders of magnitude (so a
// sum taken in another order or a fused multiply-add would show), row counts past a multiple of
// the kernels' four, and a width the kernels leave to the loop.
func TestLayerNormAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, d := range []int{embDim, width, 12} {
		const n = 11
		src := make([]float32, n*d)
		for i := range n {
			offset, spread := float32(math.Pow(10, float64(r.IntN(7)-3))), float32(math.Pow(10, float64(r.IntN(7)-3)))
			for c := range d {
				src[i*d+c] = offset + spread*(r.Float32()*2-1)
			}
		}
		scale, bias := randFloats(r, d), randFloats(r, d)
		want := make([]float32, n*d)
		paths := kernelPaths(t)
		paths[0].use() // the plain loop
		layerNorm(want, src, n, d, scale, bias, 1e-6)
		for _, path := range paths {
			path.use()
			for _, rows := range []int{n, 4, 3} {
				got := make([]float32, n*d)
				layerNorm(got, src, rows, d, scale, bias, 1e-6)
				for i := range rows * d {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s: d=%d rows=%d: [%d] = %g, want %g", path.name, d, rows, i, got[i], want[i])
					}
				}
			}
		}
	}
}
