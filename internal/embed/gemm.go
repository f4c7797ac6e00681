package embed

// lanes is the width of a packed panel: two AVX registers of one output row.
const lanes = 16

// The products are computed in blocks of kBlock input features by rowBlock input rows, so the
// inputs of a block (at most 96 KiB) stay in L2 and one panel's slice of weights (16 KiB) in L1
// while every row group of the block passes over it.
const (
	kBlock   = 256
	rowBlock = 96
)

// packed is a k×m matrix (m a multiple of lanes) stored as m/lanes column panels, each k rows of
// lanes floats: the kernel reads a panel front to back, where row-major weights would make it
// stride k times across up to 9 MB (and miss the TLB on most reads).
type packed struct {
	k, m int
	p    []float32
	half []uint16 // the FFN's second matrices only: the same weights in half precision (packHalf), or nil
}

// pack copies the row-major k×m matrix w (m a multiple of lanes) into panels.
func pack(w []float32, k, m int) packed {
	p := packed{k: k, m: m, p: make([]float32, k*m)}
	packRows(p.p, w, k, m, m)
	return p
}

// packRows writes the rows×cols matrix at src (rows stride floats apart) into dst as panels of
// lanes columns, cols rounded up to a multiple of lanes with zeros.
func packRows(dst, src []float32, rows, cols, stride int) {
	for j := 0; j < cols; j += lanes {
		panel := dst[j*rows:][:rows*lanes]
		w := min(lanes, cols-j)
		for r := 0; r < rows; r++ {
			o := panel[r*lanes:][:lanes]
			copy(o, src[r*stride+j:][:w])
			clear(o[w:])
		}
	}
}

// packCols is packRows of the transpose: column c of the packed matrix is row c of src (rows
// of rows floats, stride apart), so q·kᵀ runs through the same kernel as the dense layers.
func packCols(dst, src []float32, rows, cols, stride int) {
	for j := 0; j < cols; j += lanes {
		panel := dst[j*rows:][:rows*lanes]
		for c := 0; c < lanes; c++ {
			if j+c >= cols {
				for r := 0; r < rows; r++ {
					panel[r*lanes+c] = 0
				}
				continue
			}
			s := src[(j+c)*stride:][:rows]
			for r, v := range s {
				panel[r*lanes+c] = v
			}
		}
	}
}

// gemm computes out = in·w + bias (or out += in·w + bias when accumulate), where in is n×w.k and
// out is n×w.m, both row-major and dense.
func gemm(out, in []float32, n int, w packed, bias []float32, accumulate bool) {
	mulAct(out, w.m, in, w.k, n, w.k, w.p, w.m, bias[:w.m], accumulate, false)
}

// gemmRelu is gemm (without accumulate) followed by max(x, 0) on every output: the FFN's first
// product. The kernels apply it as they store the last k block's sums, so the n×1,536 hidden
// layer is not read and written again (a few percent of a forward pass).
func gemmRelu(out, in []float32, n int, w packed, bias []float32) {
	mulAct(out, w.m, in, w.k, n, w.k, w.p, w.m, bias[:w.m], false, true)
}

// addBias sets (or, when accumulate, adds to) each of the n rows of out (ostride apart) to bias.
func addBias(out []float32, ostride, n int, bias []float32, accumulate bool) {
	for i := 0; i < n; i++ {
		o := out[i*ostride:][:len(bias)]
		if accumulate {
			for j, b := range bias {
				o[j] += b
			}
		} else {
			copy(o, bias)
		}
	}
}

// mul adds in·w to out: in is n rows of k floats (istride apart), w the k×m panels of packRows
// (m a multiple of lanes), out n rows of m floats (ostride apart).
//
// With AVX2 and FMA (every x86-64 server since 2013) a kernel computes six rows by one panel at
// a time, each 64 bytes of weights loaded serving six rows: that keeps the two FMA units busy
// where one row at a time waits on loads. With AVX-512 one computes twelve rows by two panels
// (a ZMM register is a panel row), then one row by two panels, and the AVX2 kernels the panel
// left over. Otherwise plain Go.
func mul(out []float32, ostride int, in []float32, istride, n, k int, w []float32, m int) {
	mulAct(out, ostride, in, istride, n, k, w, m, nil, true, false)
}

// mulAct is mul after setting (or, when accumulate, adding to) each output row to bias, if bias
// is not nil, and then with relu max(x, 0) on each of the n×m outputs. The AVX-512 kernels
// start their sums from the bias as they load the outputs for the first k block (init): the
// same float32 adds as addBias's, without a pass of their own over the n×m outputs (3.9% of a
// forward pass with AVX-512).
func mulAct(out []float32, ostride int, in []float32, istride, n, k int, w []float32, m int, bias []float32, accumulate, relu bool) {
	if n == 0 {
		return
	}
	if bias != nil && (k == 0 || !hasAVX512 || m%(2*lanes) != 0) {
		addBias(out, ostride, n, bias[:m], accumulate)
		bias = nil
	}
	if k == 0 {
		return
	}
	_, _, _ = out[(n-1)*ostride+m-1], in[(n-1)*istride+k-1], w[k*m-1] // the kernels stay inside these
	if !hasFMA {
		mulGo(out, ostride, in, istride, n, k, w, m)
		if relu {
			for i := range n {
				for j, v := range out[i*ostride:][:m] {
					if v < 0 {
						out[i*ostride+j] = 0
					}
				}
			}
		}
		return
	}
	for p0 := 0; p0 < k; p0 += kBlock {
		kc := min(kBlock, k-p0)
		act := 0 // relu as the last block's sums are stored
		if relu && p0+kc == k {
			act = 1
		}
		init := 0 // the kernels' sums start from the outputs, the bias (1) or both (2)
		if bias != nil && p0 == 0 {
			init = 1
			if accumulate {
				init = 2
			}
		}
		for i0 := 0; i0 < n; i0 += rowBlock {
			end := i0 + min(rowBlock, n-i0)
			j := 0
			if hasAVX512 {
				full := i0 + (end-i0)/12*12 // the rows past the last twelve: full…end-1
				var tail tail12
				padded := end-full >= padRows
				if padded {
					tail.load(in[full*istride+p0:], istride, end-full, kc)
				}
				for ; j+2*lanes <= m; j += 2 * lanes {
					wp := &w[j*k+p0*lanes]
					var bp *float32
					if init != 0 {
						bp = &bias[j]
					}
					ahead := 2 * k * lanes * 4 // bytes to the same weights of the next pair of panels
					for i := i0; i < full; i += 12 {
						fma12x32(&out[i*ostride+j], ostride, &in[i*istride+p0], istride, wp, k*lanes, kc, act, ahead, bp, init)
						ahead = 0
					}
					if padded {
						tail.mul(out[full*ostride+j:], ostride, wp, k*lanes, kc, act, ahead, bp, init)
						continue
					}
					for i := full; i < end; i++ {
						fma1x32(&out[i*ostride+j], &in[i*istride+p0], wp, k*lanes, kc, act, bp, init)
					}
				}
			}
			for ; j < m; j += lanes {
				ahead := k * lanes * 4 // bytes to the same weights of the next panel
				fmaPanel(out, ostride, in, istride, i0, end, j, p0, kc, &w[j*k+p0*lanes], act, ahead)
			}
		}
	}
}

// padRows is the fewest rows past the last twelve that fma12x32 takes padded with zero rows
// (tail12) rather than fma1x32 one row at a time: fma1x32's two sums wait on their own last
// fused multiply-add, about four cycles a step for a row, where fma12x32's step for all twelve
// takes twelve, so from four rows on the padded twelve cost less.
const padRows = 4

// tail12 holds the last rows of a k block (fewer than twelve) padded with zero rows, and one
// pair of panels' outputs of them, so that fma12x32 can compute them: each output's sum is
// the same fused multiply-adds in the same order as fma1x32's, so the same float.
type tail12 struct {
	rows, kc int
	in       [12 * kBlock]float32
	out      [12 * 2 * lanes]float32
}

// load copies rows rows of kc inputs (stride apart) and leaves the rest of the twelve zero.
func (t *tail12) load(in []float32, stride, rows, kc int) {
	t.rows, t.kc = rows, kc
	for r := range rows {
		copy(t.in[r*kc:][:kc], in[r*stride:][:kc])
	}
	clear(t.in[rows*kc : 12*kc])
}

// mul adds the loaded rows times one pair of panels (wp, wstride floats apart, kc rows) to
// their outputs (out, ostride apart), as fma12x32 does (with its bias and init).
func (t *tail12) mul(out []float32, ostride int, wp *float32, wstride, kc, act, ahead int, bias *float32, init int) {
	const w = 2 * lanes
	for r := range t.rows {
		copy(t.out[r*w:][:w], out[r*ostride:][:w])
	}
	fma12x32(&t.out[0], w, &t.in[0], t.kc, wp, wstride, kc, act, ahead, bias, init)
	for r := range t.rows {
		copy(out[r*ostride:][:w], t.out[r*w:][:w])
	}
}

// fmaPanel runs the AVX2 kernels over rows i…end-1 of the panel at column j (its weights of
// the k block p0…p0+kc at wp): six rows at a time, then one. act and ahead are fma6x16's, ahead
// for the first call only.
func fmaPanel(out []float32, ostride int, in []float32, istride, i, end, j, p0, kc int, wp *float32, act, ahead int) {
	for ; i+6 <= end; i += 6 {
		fma6x16(&out[i*ostride+j], ostride, &in[i*istride+p0], istride, wp, kc, act, ahead)
		ahead = 0
	}
	for ; i < end; i++ {
		fma1x16(&out[i*ostride+j], &in[i*istride+p0], wp, kc, act)
	}
}

// mulGo is mul in plain Go: four weight rows per pass over a panel row, skipping inputs that
// are all zero (common after the FFN's relu).
func mulGo(out []float32, ostride int, in []float32, istride, n, k int, w []float32, m int) {
	for j := 0; j < m; j += lanes {
		panel := w[j*k:][:k*lanes]
		for i := 0; i < n; i++ {
			o := out[i*ostride+j:][:lanes]
			a := in[i*istride:][:k]
			p := 0
			for ; p+4 <= k; p += 4 {
				a0, a1, a2, a3 := a[p], a[p+1], a[p+2], a[p+3]
				if a0 == 0 && a1 == 0 && a2 == 0 && a3 == 0 {
					continue
				}
				w0 := panel[p*lanes:][:lanes]
				w1 := panel[(p+1)*lanes:][:lanes]
				w2 := panel[(p+2)*lanes:][:lanes]
				w3 := panel[(p+3)*lanes:][:lanes]
				for c := range o {
					o[c] += a0*w0[c] + a1*w1[c] + a2*w2[c] + a3*w3[c]
				}
			}
			for ; p < k; p++ {
				a0, w0 := a[p], panel[p*lanes:][:lanes]
				for c := range o {
					o[c] += a0 * w0[c]
				}
			}
		}
	}
}
