package embed

import "math"

// batchTokens is the most tokens one forward pass takes: the texts of a batch are stacked into
// one matrix of up to this many rows, so every weight panel is read once per batch.
const batchTokens = 512

// workspace holds every intermediate of one forward pass over a batch of texts, grown on demand
// up to batchTokens rows, so embedding allocates nothing but the results. Pooled per model; one
// goroutine uses one at a time.
type workspace struct {
	x      []float32 // [n × 256] token embeddings plus timing signal
	h      []float32 // [n × 512] layer-norm output
	qkv    []float32 // [n × 1536]
	att    []float32 // [n × 512] attention output, heads concatenated
	y      []float32 // [n × 512] the residual stream
	ff     []float32 // [n × 1536] FFN hidden layer
	scores []float32 // [MaxTokens × MaxTokens] one head's attention weights
	kp, vp []float32 // one head's keys (transposed) and values, packed for mul
	sparse sparseBuf // the FFN's second product
	pooled []float32 // [texts × 512]
	outs   []float32 // [texts × 512]
	pause  func()    // called between the steps of a pass (WithPause)
}

func newWorkspace() *workspace {
	const most = MaxTokens * width / 4 // a head of layer 1 over MaxTokens tokens
	return &workspace{scores: make([]float32, MaxTokens*MaxTokens), kp: make([]float32, most), vp: make([]float32, most),
		sparse: newSparseBuf(), pause: noPause}
}

// grow makes room for n token rows and t texts.
func (ws *workspace) grow(n, t int) {
	if len(ws.x) < n*embDim {
		ws.x = make([]float32, n*embDim)
		ws.h = make([]float32, n*width)
		ws.qkv = make([]float32, n*3*width)
		ws.att = make([]float32, n*width)
		ws.y = make([]float32, n*width)
		ws.ff = make([]float32, n*hidden)
	}
	if len(ws.pooled) < t*width {
		ws.pooled = make([]float32, t*width)
		ws.outs = make([]float32, t*width)
	}
}

// forward writes the L2-normalised embedding of the first MaxTokens ids into out (512 floats).
// No ids (empty text) gives the zero vector.
func (m *model) forward(ws *workspace, ids []int32, out []float32) {
	m.forwardBatch(ws, [][]int32{ids}, [][]float32{out})
}

// forwardBatch embeds several texts in one pass: their tokens (the first MaxTokens of each, at
// most batchTokens in all) are rows of one matrix for every dense layer, and only attention and
// pooling look at each text's own rows. Each text's vector is the same as alone.
func (m *model) forwardBatch(ws *workspace, batch [][]int32, outs [][]float32) {
	spans := make([][2]int, len(batch)) // each text's first row and row count
	n := 0
	for i, ids := range batch {
		c := min(len(ids), MaxTokens)
		spans[i] = [2]int{n, c}
		n += c
	}
	if n == 0 {
		for _, o := range outs {
			clear(o)
		}
		return
	}
	ws.grow(n, len(batch))
	// The graph adds Scatter(emb) to Scatter(emb + timing): the embedding counts twice.
	for i, ids := range batch {
		for p, id := range ids[:spans[i][1]] {
			e := m.emb[int(id)*embDim:][:embDim]
			tp := m.timing[p*embDim:][:embDim]
			x := ws.x[(spans[i][0]+p)*embDim:][:embDim]
			for c, v := range e {
				x[c] = 2*v + tp[c]
			}
		}
	}
	attend := func(d int, l *layer) {
		for _, sp := range spans {
			if sp[1] > 0 {
				attention(ws, ws.att[sp[0]*d:], ws.qkv[sp[0]*3*d:], sp[1], d, l.heads, l.qScale)
			}
		}
		ws.pause()
	}
	// Each product is a step of its own (a few milliseconds of one core at 512 rows).
	product := func(out, in []float32, w packed, bias []float32, accumulate bool) {
		gemm(out, in, n, w, bias, accumulate)
		ws.pause()
	}

	// Layer 0: pre-norm attention over 256 features, projected to 512, plus a dense projection of
	// its input as the residual; then the FFN.
	l := &m.layers[0]
	layerNorm(ws.h, ws.x, n, embDim, l.lnScale, l.lnB, m.lnEps)
	product(ws.qkv, ws.h, l.qkvW, l.qkvB, false)
	attend(embDim, l)
	product(ws.y, ws.att, l.outW, l.outB, false)
	product(ws.y, ws.x, l.denseW, l.denseB, true)
	m.ffn(ws, l, n)

	// Layer 1: the same at width 512 with a plain residual; no final layer norm.
	l = &m.layers[1]
	layerNorm(ws.h, ws.y, n, width, l.lnScale, l.lnB, m.lnEps)
	product(ws.qkv, ws.h, l.qkvW, l.qkvB, false)
	attend(width, l)
	product(ws.y, ws.att, l.outW, l.outB, true)
	m.ffn(ws, l, n)

	// Mean over each text's tokens, tanh layer, L2 normalisation.
	t := len(batch)
	pooled := ws.pooled[:t*width]
	clear(pooled)
	for i, sp := range spans {
		pr := pooled[i*width:][:width]
		for p := sp[0]; p < sp[0]+sp[1]; p++ {
			row := ws.y[p*width:][:width]
			for c, v := range row {
				pr[c] += v
			}
		}
		if sp[1] > 0 {
			inv := 1 / float32(sp[1])
			for c := range pr {
				pr[c] *= inv
			}
		}
	}
	gemm(ws.outs, pooled, t, m.tanhW, m.tanhB, false)
	for i, sp := range spans {
		out := outs[i][:width]
		if sp[1] == 0 {
			clear(out)
			continue
		}
		var sum float64
		for c, v := range ws.outs[i*width:][:width] {
			th := float32(math.Tanh(float64(v)))
			out[c] = th
			sum += float64(th) * float64(th)
		}
		scale := float32(1 / math.Sqrt(math.Max(sum, float64(m.l2Floor))))
		for c := range out {
			out[c] *= scale
		}
	}
}

// ffn adds relu(LN(y)·W1 + b1)·W2 + b2 to the residual stream y.
func (m *model) ffn(ws *workspace, l *layer, n int) {
	layerNorm(ws.h, ws.y, n, width, l.ffnScale, l.ffnB, m.lnEps)
	gemmRelu(ws.ff, ws.h, n, l.w1, l.b1)
	ws.pause()
	gemmSparse(&ws.sparse, ws.y, ws.ff, n, l.w2, l.b2, true)
	ws.pause()
}

// layerNorm writes (x-mean)/sqrt(var+eps)·scale + bias of each of the n rows of src (d wide) to dst.
func layerNorm(dst, src []float32, n, d int, scale, bias []float32, eps float32) {
	scale, bias = scale[:d], bias[:d]
	i := 0
	if hasFMA && d%8 == 0 && d > 0 {
		_ = src[n*d-1]
		_ = dst[n*d-1]
		for ; i+4 <= n; i += 4 {
			layerNorm4(dst[i*d:], src[i*d:], d, scale, bias, eps)
		}
	}
	for ; i < n; i++ {
		x := src[i*d:][:d]
		o := dst[i*d:][:d]
		// Four running sums, not one: a float64 add waits on the one before it, and these two
		// loops were most of the layer norm's time (7% of a pass once the products ran in
		// AVX-512). The float32 inputs and their float32 differences' squares are exact in
		// float64, so the order changes a sum only when its own rounding does.
		var s0, s1, s2, s3 float64
		c := 0
		for ; c+4 <= d; c += 4 {
			s0 += float64(x[c])
			s1 += float64(x[c+1])
			s2 += float64(x[c+2])
			s3 += float64(x[c+3])
		}
		for ; c < d; c++ {
			s0 += float64(x[c])
		}
		mean := float32((s0 + s1 + s2 + s3) / float64(d))
		s0, s1, s2, s3 = 0, 0, 0, 0
		for c = 0; c+4 <= d; c += 4 {
			d0, d1 := float64(x[c]-mean), float64(x[c+1]-mean)
			d2, d3 := float64(x[c+2]-mean), float64(x[c+3]-mean)
			s0 += d0 * d0
			s1 += d1 * d1
			s2 += d2 * d2
			s3 += d3 * d3
		}
		for ; c < d; c++ {
			dv := float64(x[c] - mean)
			s0 += dv * dv
		}
		sq := s0 + s1 + s2 + s3
		r := float32(1 / math.Sqrt(sq/float64(d)+float64(eps)))
		for c, v := range x {
			o[c] = (v-mean)*r*scale[c] + bias[c]
		}
	}
}

// layerNorm4 is layerNorm's loop below for four rows with the AVX2 loops of layernorm_amd64.s:
// the same float64 sums in the same order and the same float32 operations, so the same floats
// (TestLayerNormAgrees); four rows' sums side by side instead of one row's waiting on its own
// adds (the layer norm was 4% of a pass once the products' bias and gather were in AVX-512).
func layerNorm4(dst, src []float32, d int, scale, bias []float32, eps float32) {
	var sums [16]float64
	var mean [4]float32
	lnSums4(&src[0], d, d, &sums)
	for r := range 4 {
		s := sums[4*r:][:4]
		mean[r] = float32((s[0] + s[1] + s[2] + s[3]) / float64(d))
	}
	lnSqSums4(&src[0], d, d, &mean, &sums)
	for r := range 4 {
		s := sums[4*r:][:4]
		sq := s[0] + s[1] + s[2] + s[3]
		inv := float32(1 / math.Sqrt(sq/float64(d)+float64(eps)))
		lnOut(&src[r*d], &dst[r*d], d, mean[r], inv, &scale[0], &bias[0])
	}
}

// attention is softmax((q·scale)·kᵀ)·v per head over the n tokens of one text (no mask). qkv rows
// hold q, k and v of d features each; head h owns features h·d/heads … (h+1)·d/heads-1. Both
// products go through mul, the dense layers' kernel: a head's keys are packed as the columns
// and its values as the rows of a weight matrix (n rounded up to a panel, padded with zeros
// that the softmax never reads).
func attention(ws *workspace, att, qkv []float32, n, d, heads int, scale float32) {
	dh := d / heads
	stride := 3 * d
	np := (n + lanes - 1) / lanes * lanes
	scores := ws.scores[:n*np]
	for h := 0; h < heads; h++ {
		q, k, v := qkv[h*dh:], qkv[d+h*dh:], qkv[2*d+h*dh:]
		packCols(ws.kp, k, dh, n, stride)
		clear(scores)
		mul(scores, np, q, stride, n, dh, ws.kp, np)
		for i := 0; i < n; i++ {
			softmaxRow(scores[i*np:][:np], n, scale)
		}
		packRows(ws.vp, v, n, dh, stride)
		o := att[h*dh:]
		for i := 0; i < n; i++ {
			clear(o[i*d:][:dh])
		}
		mul(o, d, scores, np, n, n, ws.vp, dh)
	}
}

// softmaxRow replaces row[:n] with softmax(row[:n]·scale); row is n rounded up to a panel
// (padding that nothing reads). With AVX2 eight lanes at a time: the plain loop was most of the
// attention's time besides its two products, for 1.5% of the forward pass's multiply-adds.
func softmaxRow(row []float32, n int, scale float32) {
	if !hasFMA {
		softmax(row[:n], scale)
		return
	}
	_ = row[(n+7)&^7-1] // the kernel reads and writes whole chunks of eight
	softmax8(&row[0], n, scale)
}

// softmax replaces s with softmax(s·scale).
func softmax(s []float32, scale float32) {
	best := float32(math.Inf(-1))
	for j := range s {
		s[j] *= scale
		best = max(best, s[j])
	}
	var sum float32
	for j, x := range s {
		e := expNeg(x - best)
		s[j] = e
		sum += e
	}
	inv := 1 / sum
	for j := range s {
		s[j] *= inv
	}
}

// expNeg is e^x for x <= 0 in float32, within 2e-7 relative: x = n·ln2 + r with |r| <= ln2/2,
// e^r by its Taylor polynomial to r⁶ and 2^n by the exponent bits. The softmax calls it n²
// times per head, where math.Exp (float64, with the cases this never meets) took a fifth of
// the attention's time.
func expNeg(x float32) float32 {
	if x < -87 {
		return 0 // below float32's smallest normal; the softmax's sum is at least 1
	}
	const (
		log2e = 1.44269504088896341
		ln2Hi = 0.693359375
		ln2Lo = -2.12194440e-4
	)
	n := float32(int32(x*log2e - 0.5)) // round to nearest for x <= 0
	r := x - n*ln2Hi - n*ln2Lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}
