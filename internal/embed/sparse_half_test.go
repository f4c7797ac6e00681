package embed

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quire-dev/quire/internal/embed/weights"
)

// TestPackHalf checks which matrices get a half-precision copy and its layout: every weight
// a half (zeros of both signs, subnormal halves and the largest included) gives the copy, with
// column c of feature f at (c/128·k + f)·128 + c%128; one weight that is not a half, or columns
// that are not whole groups of 128, give none.
func TestPackHalf(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const k, m = 40, 256
	w := halves(r, k*m)
	w[0], w[1], w[2], w[3] = float32(math.Copysign(0, -1)), weights.ToFloat32(1), 65504, weights.ToFloat32(0x8001)
	h := packHalf(pack(w, k, m))
	if h == nil {
		t.Fatal("packHalf of half-precision weights = nil")
	}
	for f := range k {
		for c := range m {
			got := weights.ToFloat32(h[(c/halfGroup*k+f)*halfGroup+c%halfGroup])
			if math.Float32bits(got) != math.Float32bits(w[f*m+c]) {
				t.Fatalf("feature %d column %d: %g, want %g", f, c, got, w[f*m+c])
			}
		}
	}
	w[5*m+77] = 1 + 1.0/(1<<20) // between two halves
	if packHalf(pack(w, k, m)) != nil {
		t.Error("packHalf with a weight that is no half: a copy, want nil")
	}
	if packHalf(pack(halves(r, k*144), k, 144)) != nil {
		t.Error("packHalf of 144 columns: a copy, want nil")
	}
}

// TestGemmSparseHalfAgrees compares gemmSparse from the half-precision copy with gemmSparse
// from the float panels on every path, bit for bit (the AVX-512 path is the only one that reads
// the copy), on the FFN's shape and on shapes with rows past the last three, a k block past the
// first and columns past the last 128: the same weights, the same products in the same order.
func TestGemmSparseHalfAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	buf := newSparseBuf()
	for _, c := range []struct{ n, k, m int }{{125, 1536, 512}, {7, 300, 128}, {100, 520, 384}, {2, 64, 256}, {96, 256, 640}} {
		in, w, bias, base := halves(r, c.n*c.k), halves(r, c.k*c.m), halves(r, c.m), halves(r, c.n*c.m)
		for i := range in { // nine in ten zero, as after the relu
			if r.IntN(10) > 0 {
				in[i] = 0
			}
		}
		float, half := pack(w, c.k, c.m), pack(w, c.k, c.m)
		if half.half = packHalf(half); half.half == nil {
			t.Fatalf("n=%d k=%d m=%d: no half-precision copy", c.n, c.k, c.m)
		}
		for _, path := range kernelPaths(t) {
			path.use()
			want, got := append([]float32(nil), base...), append([]float32(nil), base...)
			gemmSparse(&buf, want, in, c.n, float, bias, true)
			gemmSparse(&buf, got, in, c.n, half, bias, true)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s: n=%d k=%d m=%d: [%d] = %g from halves, %g from floats", path.name, c.n, c.k, c.m, i, got[i], want[i])
				}
			}
		}
	}
}

// TestBuiltinHalfCopies checks that the model's FFN second matrices have their half-precision
// copies (the file stores them as halves; without the copies the sparse product runs from the
// float panels, slower) and that a forward pass from them gives every vector of the issue's
// chunks, bit for bit, that the float panels give.
func TestBuiltinHalfCopies(t *testing.T) {
	m, err := theBuiltin.load()
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.layers {
		if m.layers[i].w2.half == nil {
			t.Fatalf("layer %d: the FFN's second matrix has no half-precision copy", i)
		}
	}
	texts := issueChunks(2)
	got, err := Builtin().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	saved := [2][]uint16{m.layers[0].w2.half, m.layers[1].w2.half}
	m.layers[0].w2.half, m.layers[1].w2.half = nil, nil
	want, err := Builtin().Embed(context.Background(), texts)
	m.layers[0].w2.half, m.layers[1].w2.half = saved[0], saved[1]
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for c := range want[i] {
			if math.Float32bits(got[i][c]) != math.Float32bits(want[i][c]) {
				t.Fatalf("chunk %d [%d] = %g from halves, %g from floats", i, c, got[i][c], want[i][c])
			}
		}
	}
}

// halves is n random numbers in (-1, 1), each a half-precision number.
func halves(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = weights.ToFloat32(weights.FromFloat32(r.Float32()*2 - 1))
	}
	return s
}
