package embed

// panel is the width of the column panels of gemm's FMA path: 64 floats, eight AVX registers of
// one output row that stay in registers while every row of the panel's weights passes.
const panel = 64

// gemm computes out = in·w + bias (or out += in·w + bias when accumulate), where in is n×k, w is
// k×m and out is n×m, all row-major.
//
// With AVX2 and FMA (every x86-64 server since 2013) and m a multiple of 64, it walks column
// panels of w: one k×64 panel (at most 384 KiB, kept in L2) serves every input row before the next
// is read, so a batch of many texts reads the 28 MB of weights once instead of once per text.
// Otherwise plain Go: the inner loop walks four rows of w at once so each pass over an output row
// does four multiply-adds per load and store of it.
func gemm(out, in []float32, n, k int, w []float32, m int, bias []float32, accumulate bool) {
	bias = bias[:m]
	for i := 0; i < n; i++ {
		o := out[i*m:][:m]
		if accumulate {
			for j, b := range bias {
				o[j] += b
			}
		} else {
			copy(o, bias)
		}
	}
	if n == 0 {
		return
	}
	if hasFMA && m%panel == 0 && k > 0 {
		_, _, _ = in[n*k-1], w[k*m-1], out[n*m-1] // the kernel reads and writes inside these
		for j := 0; j < m; j += panel {
			for i := 0; i < n; i++ {
				fmaPanel64(&out[i*m+j], &in[i*k], &w[j], k, m)
			}
		}
		return
	}
	for i := 0; i < n; i++ {
		o := out[i*m:][:m]
		a := in[i*k:][:k]
		p := 0
		for ; p+4 <= k; p += 4 {
			a0, a1, a2, a3 := a[p], a[p+1], a[p+2], a[p+3]
			if a0 == 0 && a1 == 0 && a2 == 0 && a3 == 0 {
				continue // common after the FFN's relu
			}
			w0 := w[p*m:][:len(o)]
			w1 := w[(p+1)*m:][:len(o)]
			w2 := w[(p+2)*m:][:len(o)]
			w3 := w[(p+3)*m:][:len(o)]
			for j := range o {
				o[j] += a0*w0[j] + a1*w1[j] + a2*w2[j] + a3*w3[j]
			}
		}
		for ; p < k; p++ {
			a0 := a[p]
			w0 := w[p*m:][:len(o)]
			for j := range o {
				o[j] += a0 * w0[j]
			}
		}
	}
}
