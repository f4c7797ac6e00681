package embed

import (
	"fmt"
	"math"
	"sync"

	"github.com/quire-dev/quire/internal/embed/weights"
)

// Tensor names in the tfjs graph of USE-lite (shared/notes/semantic-search.md, appendix A).
const (
	applyPrefix  = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	modulePrefix = "module/Encoder_en/KonaTransformer/Encode/"
	stackPrefix  = applyPrefix + "TransformerStack/"
)

// layer holds the weights of one transformer layer. Matrices are row-major [in × out].
type layer struct {
	d, heads       int     // model width at the layer's input, attention heads
	qScale         float32 // multiplies q before q·kᵀ
	lnScale, lnB   []float32
	qkvW           packed    // [d × 3d]
	qkvB           []float32 // [3d]
	outW           packed    // [d × 512]
	outB           []float32
	denseW         packed // [d × 512], the residual projection of layer 0 only
	denseB         []float32
	ffnScale, ffnB []float32
	w1             packed // [512 × 1536]
	b1             []float32
	w2             packed // [1536 × 512]
	b2             []float32
}

// model is USE-lite ready to run.
type model struct {
	tok     *tokenizer
	emb     []float32 // [vocab × 256]
	vocab   int
	inv     []float32 // [128] inverse timescales of the timing signal
	timing  []float32 // [MaxTokens × 256] the timing signal of each position (sines, then cosines)
	lnEps   float32
	layers  [2]layer
	tanhW   packed    // [512 × 512]
	tanhB   []float32 // [512]
	l2Floor float32
	pool    sync.Pool // *workspace
}

const (
	embDim = 256
	width  = 512  // model width after layer 0
	hidden = 1536 // FFN inner width
)

func newModel(tensors []weights.Tensor, tok *tokenizer) (*model, error) {
	byName := make(map[string]*weights.Tensor, len(tensors))
	for i := range tensors {
		byName[tensors[i].Name] = &tensors[i]
	}
	var missing []string
	get := func(name string, shape ...int) []float32 {
		t := byName[name]
		if t == nil || t.F32 == nil || !sameShape(t.Shape, shape) {
			missing = append(missing, name)
			return nil
		}
		return t.F32
	}
	// The matrices are packed into panels for gemm; the decoded row-major copies are dropped.
	getPacked := func(name string, k, m int, shape ...int) packed {
		if w := get(name, shape...); w != nil {
			return pack(w, k, m)
		}
		return packed{}
	}
	scalar := func(name string) float32 {
		if v := get(name); len(v) == 1 {
			return v[0]
		}
		return 0
	}
	m := &model{
		tok:     tok,
		emb:     get("module/Embeddings_en", -1, embDim),
		inv:     get(stackPrefix+"Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 1, embDim/2),
		lnEps:   scalar(stackPrefix + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x"),
		tanhW:   getPacked("module/Encoder_en/hidden_layers/tanh_layer_0/weights", width, width, width, width),
		tanhB:   get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", width),
		l2Floor: scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"),
	}
	for i := range m.layers {
		d := embDim
		if i == 1 {
			d = width
		}
		l := &m.layers[i]
		pre := fmt.Sprintf("%sLayer_%d/TransformerLayer/", applyPrefix, i)
		mod := fmt.Sprintf("%sLayer_%d/TransformerLayer/", modulePrefix, i)
		stack := fmt.Sprintf("%sLayer_%d/TransformerLayer/", stackPrefix, i)
		l.d, l.heads = d, 4
		l.qScale = scalar(stack + "MultiheadAttention/mul/y")
		l.lnScale = get(pre+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", d)
		l.lnB = get(pre+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", d)
		l.qkvW = getPacked(mod+"MultiheadAttention/qkv_transform_single/kernel/part_0", d, 3*d, 1, 1, d, 3*d)
		l.qkvB = get(pre+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", 3*d)
		l.outW = getPacked(mod+"MultiheadAttention/output_transform_single/kernel/part_0", d, width, 1, 1, d, width)
		l.outB = get(pre+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", width)
		if i == 0 {
			l.denseW = getPacked(pre+"dense/kernel/ConcatPartitions/concat", d, width, d, width)
			l.denseB = get(pre+"dense/bias/ConcatPartitions/concat", width)
		}
		l.ffnScale = get(pre+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", width)
		l.ffnB = get(pre+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", width)
		l.w1 = getPacked(stack+"FFN/conv1/Tensordot/Reshape_1", width, hidden, width, hidden)
		l.b1 = get(pre+"FFN/conv1/bias/ConcatPartitions/concat", hidden)
		l.w2 = getPacked(stack+"FFN/conv2/Tensordot/Reshape_1", hidden, width, hidden, width)
		l.w2.half = packHalf(l.w2)
		l.b2 = get(pre+"FFN/conv2/bias/ConcatPartitions/concat", width)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("embed: model file lacks or misshapes %d tensors, first %s", len(missing), missing[0])
	}
	m.vocab = len(m.emb) / embDim
	// The timing signal depends on the position alone: computed once here rather than 256 sines
	// and cosines per token of every text.
	m.timing = make([]float32, MaxTokens*embDim)
	for p := range MaxTokens {
		for c := range embDim / 2 {
			angle := float64(float32(p) * m.inv[c])
			m.timing[p*embDim+c] = float32(math.Sin(angle))
			m.timing[p*embDim+embDim/2+c] = float32(math.Cos(angle))
		}
	}
	if len(tok.pieceLen) > m.vocab {
		return nil, fmt.Errorf("embed: vocabulary of %d pieces for %d embeddings", len(tok.pieceLen), m.vocab)
	}
	m.pool.New = func() any { return newWorkspace() }
	return m, nil
}

// sameShape compares a tensor's shape with want, where -1 matches any size.
func sameShape(got []int, want []int) bool {
	if len(want) == 0 {
		return len(got) == 0 || len(got) == 1 && got[0] == 1
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if want[i] != -1 && got[i] != want[i] {
			return false
		}
	}
	return true
}
