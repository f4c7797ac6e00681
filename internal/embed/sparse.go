package embed

import "math"

// groups and groups3 are how many six-row groups (the AVX2 kernels') and three-row groups (the
// AVX-512 kernel's) one row block holds.
const (
	groups  = rowBlock / 6
	groups3 = rowBlock / 3
)

// astride is the floats kept per row of a group's gathered inputs: a k block's features and
// the fifteen slots past the last that gather3x16's whole-register stores may write.
const astride = kBlock + 16

// sparseBuf is the scratch of gemmSparse: per group of a row block, the features not zero in
// all its rows (idx) and each row's inputs at them (a, a row every astride floats).
type sparseBuf struct {
	a   []float32 // [rowBlock × astride]
	idx []int32   // [groups3 × astride]
}

func newSparseBuf() sparseBuf {
	return sparseBuf{a: make([]float32, rowBlock*astride), idx: make([]int32, groups3*astride)}
}

// gemmSparse is gemm for inputs that are mostly zero: the FFN's hidden layer after relu, where
// nine features in ten are zero, about 70% are zero in all six rows of an AVX2 kernel's group
// and 80% in all three of the AVX-512 kernel's. Leaving those out gives the same sums (adding
// a zero product changes no float) for a fifth to a third of the work of the layer's largest
// product.
func gemmSparse(buf *sparseBuf, out, in []float32, n int, w packed, bias []float32, accumulate bool) {
	addBias(out, w.m, n, bias[:w.m], accumulate)
	if n == 0 || w.k == 0 {
		return
	}
	if !hasFMA {
		mulGo(out, w.m, in, w.k, n, w.k, w.p, w.m) // skips zeros four features at a time
		return
	}
	k, m := w.k, w.m
	_, _, _ = out[n*m-1], in[n*k-1], w.p[k*m-1] // the kernels stay inside these
	if hasAVX512 {
		buf.mul3(out, in, n, w)
		return
	}
	var counts [groups]int
	for p0 := 0; p0 < k; p0 += kBlock {
		kc := min(kBlock, k-p0)
		for i0 := 0; i0 < n; i0 += rowBlock {
			rows := min(rowBlock, n-i0)
			full := rows / 6
			for g := range full {
				counts[g] = buf.gather(g, in[(i0+g*6)*k+p0:], k, kc)
			}
			for j := 0; j < m; j += lanes {
				wp := &w.p[j*k+p0*lanes]
				for g := range full {
					if counts[g] > 0 {
						fma6x16idx(&out[(i0+g*6)*m+j], m, &buf.a[g*6*astride], astride, wp, &buf.idx[g*astride], counts[g])
					}
				}
				for i := i0 + full*6; i < i0+rows; i++ {
					fma1x16(&out[i*m+j], &in[i*k+p0], wp, kc, 0)
				}
			}
		}
	}
}

// gather writes six-row group g's features 0…kc-1 of six rows (in, stride apart) that are not
// zero in all six, and says how many.
func (buf *sparseBuf) gather(g int, in []float32, stride, kc int) int {
	a, idx := buf.a[g*6*astride:][:6*astride], buf.idx[g*astride:][:astride]
	c, p := 0, 0
	r0, r1, r2 := in[:kc], in[stride:][:kc], in[2*stride:][:kc]
	r3, r4, r5 := in[3*stride:][:kc], in[4*stride:][:kc], in[5*stride:][:kc]
	a0, a1, a2 := a[:kBlock], a[astride:][:kBlock], a[2*astride:][:kBlock]
	a3, a4, a5 := a[3*astride:][:kBlock], a[4*astride:][:kBlock], a[5*astride:][:kBlock]
	for ; p < kc; p++ {
		v0, v1, v2, v3, v4, v5 := r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		// One test of the OR of the bits instead of six float compares and branches: only
		// +0 is left out (the kernels' relu stores +0), and a -0 kept adds a zero product,
		// which changes no sum.
		if math.Float32bits(v0)|math.Float32bits(v1)|math.Float32bits(v2)|
			math.Float32bits(v3)|math.Float32bits(v4)|math.Float32bits(v5) == 0 {
			continue
		}
		a0[c], a1[c], a2[c], a3[c], a4[c], a5[c] = v0, v1, v2, v3, v4, v5
		idx[c] = int32(p)
		c++
	}
	return c
}

// mul3 is gemmSparse's product with AVX-512 (n > 0 rows): groups of three rows, each group's
// kept features (gather3) times eight panels at a time (fma3x128idx, or fma3x128h from w's copy
// in half precision when it has one: packHalf). The rows past a row block's last three, and
// columns past the last 128 (none in the model), go through the dense kernels a row at a time:
// they add the zero products too, which changes no sum.
func (buf *sparseBuf) mul3(out, in []float32, n int, w packed) {
	k, m := w.k, w.m
	var counts [groups3]int
	for p0 := 0; p0 < k; p0 += kBlock {
		kc := min(kBlock, k-p0)
		for i0 := 0; i0 < n; i0 += rowBlock {
			rows := min(rowBlock, n-i0)
			full := rows / 3
			for g := range full {
				counts[g] = buf.gather3(g, in[(i0+g*3)*k+p0:], k, kc)
			}
			j := 0
			for ; j+8*lanes <= m; j += 8 * lanes {
				for g := range full {
					if counts[g] == 0 {
						continue
					}
					if w.half != nil {
						fma3x128h(&out[(i0+g*3)*m+j], m, &buf.a[g*3*astride], astride, &w.half[(j/halfGroup*k+p0)*halfGroup], &buf.idx[g*astride], counts[g])
					} else {
						fma3x128idx(&out[(i0+g*3)*m+j], m, &buf.a[g*3*astride], astride, &w.p[j*k+p0*lanes], k*lanes, &buf.idx[g*astride], counts[g])
					}
				}
			}
			for i := i0; i < i0+rows; i++ {
				c := j
				if i >= i0+full*3 {
					c = 0
				}
				for ; c+2*lanes <= m; c += 2 * lanes {
					fma1x32(&out[i*m+c], &in[i*k+p0], &w.p[c*k+p0*lanes], k*lanes, kc, 0, nil, 0)
				}
				for ; c < m; c += lanes {
					fma1x16(&out[i*m+c], &in[i*k+p0], &w.p[c*k+p0*lanes], kc, 0)
				}
			}
		}
	}
}

// gather3 writes three-row group g's features 0…kc-1 (in, rows stride apart) that are not +0
// in all three, and says how many: sixteen features a step with AVX-512 (gather3x16), the
// plain loop taking the last kc mod 16.
func (buf *sparseBuf) gather3(g int, in []float32, stride, kc int) int {
	a, idx := buf.a[g*3*astride:][:3*astride], buf.idx[g*astride:][:astride]
	_ = in[2*stride+kc-1] // the three rows, which gather3x16 reads
	p := kc &^ 15
	c := gather3x16(&in[0], stride, &a[0], astride, &idx[0], p)
	r0, r1, r2 := in[:kc], in[stride:][:kc], in[2*stride:][:kc]
	a0, a1, a2 := a[:kBlock], a[astride:][:kBlock], a[2*astride:][:kBlock]
	for ; p < kc; p++ {
		v0, v1, v2 := r0[p], r1[p], r2[p]
		if math.Float32bits(v0)|math.Float32bits(v1)|math.Float32bits(v2) == 0 {
			continue
		}
		a0[c], a1[c], a2[c] = v0, v1, v2
		idx[c] = int32(p)
		c++
	}
	return c
}
