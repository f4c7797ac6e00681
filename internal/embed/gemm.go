package embed

// gemm computes out = in·w + bias (or out += in·w + bias when accumulate), where in is n×k, w is
// k×m and out is n×m, all row-major. Plain Go: the inner loop walks four rows of w at once so each
// pass over an output row does four multiply-adds per load and store of it, and the slices are cut
// to the row length so the compiler drops the bounds checks.
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
