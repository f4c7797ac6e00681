package embed

import "math"

// workspace holds every intermediate of one forward pass, sized for MaxTokens, so embedding
// allocates nothing but the result. Pooled per model; one goroutine uses one at a time.
type workspace struct {
	x      []float32 // [n × 256] token embeddings plus timing signal
	h      []float32 // [n × 512] layer-norm output
	qkv    []float32 // [n × 1536]
	att    []float32 // [n × 512] attention output, heads concatenated
	y      []float32 // [n × 512] the residual stream
	ff     []float32 // [n × 1536] FFN hidden layer
	scores []float32 // [n] one row of attention weights
	pooled []float32 // [512]
}

func newWorkspace() *workspace {
	return &workspace{
		x:      make([]float32, MaxTokens*embDim),
		h:      make([]float32, MaxTokens*width),
		qkv:    make([]float32, MaxTokens*3*width),
		att:    make([]float32, MaxTokens*width),
		y:      make([]float32, MaxTokens*width),
		ff:     make([]float32, MaxTokens*hidden),
		scores: make([]float32, MaxTokens),
		pooled: make([]float32, width),
	}
}

// forward writes the L2-normalised embedding of the first MaxTokens ids into out (512 floats).
// No ids (empty text) gives the zero vector.
func (m *model) forward(ws *workspace, ids []int32, out []float32) {
	n := min(len(ids), MaxTokens)
	if n == 0 {
		clear(out)
		return
	}
	// The graph adds Scatter(emb) to Scatter(emb + timing): the embedding counts twice.
	half := embDim / 2
	for p, id := range ids[:n] {
		e := m.emb[int(id)*embDim:][:embDim]
		x := ws.x[p*embDim:][:embDim]
		for c := 0; c < half; c++ {
			angle := float64(float32(p) * m.inv[c])
			x[c] = 2*e[c] + float32(math.Sin(angle))
			x[half+c] = 2*e[half+c] + float32(math.Cos(angle))
		}
	}

	// Layer 0: pre-norm attention over 256 features, projected to 512, plus a dense projection of
	// its input as the residual; then the FFN.
	l := &m.layers[0]
	layerNorm(ws.h, ws.x, n, embDim, l.lnScale, l.lnB, m.lnEps)
	gemm(ws.qkv, ws.h, n, embDim, l.qkvW, 3*embDim, l.qkvB, false)
	attention(ws.att, ws.qkv, n, embDim, l.heads, l.qScale, ws.scores)
	gemm(ws.y, ws.att, n, embDim, l.outW, width, l.outB, false)
	gemm(ws.y, ws.x, n, embDim, l.denseW, width, l.denseB, true)
	m.ffn(ws, l, n)

	// Layer 1: the same at width 512 with a plain residual; no final layer norm.
	l = &m.layers[1]
	layerNorm(ws.h, ws.y, n, width, l.lnScale, l.lnB, m.lnEps)
	gemm(ws.qkv, ws.h, n, width, l.qkvW, 3*width, l.qkvB, false)
	attention(ws.att, ws.qkv, n, width, l.heads, l.qScale, ws.scores)
	gemm(ws.y, ws.att, n, width, l.outW, width, l.outB, true)
	m.ffn(ws, l, n)

	// Mean over tokens, tanh layer, L2 normalisation.
	pooled := ws.pooled
	clear(pooled)
	for p := 0; p < n; p++ {
		row := ws.y[p*width:][:width]
		for c, v := range row {
			pooled[c] += v
		}
	}
	inv := 1 / float32(n)
	for c := range pooled {
		pooled[c] *= inv
	}
	gemm(out, pooled, 1, width, m.tanhW, width, m.tanhB, false)
	var sum float64
	for c, v := range out {
		t := float32(math.Tanh(float64(v)))
		out[c] = t
		sum += float64(t) * float64(t)
	}
	scale := float32(1 / math.Sqrt(math.Max(sum, float64(m.l2Floor))))
	for c := range out {
		out[c] *= scale
	}
}

// ffn adds relu(LN(y)·W1 + b1)·W2 + b2 to the residual stream y.
func (m *model) ffn(ws *workspace, l *layer, n int) {
	layerNorm(ws.h, ws.y, n, width, l.ffnScale, l.ffnB, m.lnEps)
	gemm(ws.ff, ws.h, n, width, l.w1, hidden, l.b1, false)
	ff := ws.ff[:n*hidden]
	for i, v := range ff {
		if v < 0 {
			ff[i] = 0
		}
	}
	gemm(ws.y, ws.ff, n, hidden, l.w2, width, l.b2, true)
}

// layerNorm writes (x-mean)/sqrt(var+eps)·scale + bias of each of the n rows of src (d wide) to dst.
func layerNorm(dst, src []float32, n, d int, scale, bias []float32, eps float32) {
	scale, bias = scale[:d], bias[:d]
	for i := 0; i < n; i++ {
		x := src[i*d:][:d]
		o := dst[i*d:][:d]
		var sum float64
		for _, v := range x {
			sum += float64(v)
		}
		mean := float32(sum / float64(d))
		var sq float64
		for _, v := range x {
			dv := float64(v - mean)
			sq += dv * dv
		}
		r := float32(1 / math.Sqrt(sq/float64(d)+float64(eps)))
		for c, v := range x {
			o[c] = (v-mean)*r*scale[c] + bias[c]
		}
	}
}

// attention is softmax((q·scale)·kᵀ)·v per head over the n tokens of one text (no mask). qkv rows
// hold q, k and v of d features each; head h owns features h·d/heads … (h+1)·d/heads-1.
func attention(att, qkv []float32, n, d, heads int, scale float32, scores []float32) {
	dh := d / heads
	stride := 3 * d
	scores = scores[:n]
	for h := 0; h < heads; h++ {
		for i := 0; i < n; i++ {
			q := qkv[i*stride+h*dh:][:dh]
			best := float32(math.Inf(-1))
			for j := range scores {
				k := qkv[j*stride+d+h*dh:][:dh]
				var s float32
				for t, qv := range q {
					s += qv * k[t]
				}
				s *= scale
				scores[j] = s
				best = max(best, s)
			}
			var sum float32
			for j, s := range scores {
				e := float32(math.Exp(float64(s - best)))
				scores[j] = e
				sum += e
			}
			o := att[i*d+h*dh:][:dh]
			clear(o)
			inv := 1 / sum
			for j, e := range scores {
				p := e * inv
				v := qkv[j*stride+2*d+h*dh:][:dh]
				for t, vv := range v {
					o[t] += p * vv
				}
			}
		}
	}
}
