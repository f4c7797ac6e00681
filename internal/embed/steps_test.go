package embed

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// forwardSteps names the eleven steps of a forward pass that pause ends (forwardBatch, ffn), with
// the multiply-adds of each per token of a text of L tokens (the FFN's second products, ffn2,
// counted dense, as if no zero were skipped). A step's time includes the layer norm before its
// product (qkv, ffn1: also the relu); L0.qkv's also the previous pass's pooling and tanh layer
// and this pass's tokens and embedding lookup.
var forwardSteps = []struct {
	name string
	macs func(l int) float64
}{
	{"L0.qkv", func(int) float64 { return embDim * 3 * embDim }},
	{"L0.attention", func(l int) float64 { return 2 * embDim * float64(l) }},
	{"L0.out", func(int) float64 { return embDim * width }},
	{"L0.residual", func(int) float64 { return embDim * width }},
	{"L0.ffn1", func(int) float64 { return width * hidden }},
	{"L0.ffn2", func(int) float64 { return hidden * width }},
	{"L1.qkv", func(int) float64 { return width * 3 * width }},
	{"L1.attention", func(l int) float64 { return 2 * width * float64(l) }},
	{"L1.out", func(int) float64 { return width * width }},
	{"L1.ffn1", func(int) float64 { return width * hidden }},
	{"L1.ffn2", func(int) float64 { return hidden * width }},
}

// BenchmarkForwardSteps embeds the issue's chunks on one thread in the indexer's sub-batches and
// reports, per step of the forward pass, its share of the thread's CPU time and its G
// multiply-adds per CPU-second (the FMA units' peak here: 39.2 per core).
func BenchmarkForwardSteps(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	texts := issueChunks(8)
	tok, _ := builtinTokenizer()
	var macs [11]float64
	for _, text := range texts {
		ids, _ := tok.encode(text)
		l := min(len(ids), MaxTokens)
		for s, st := range forwardSteps {
			macs[s] += float64(l) * st.macs(l)
		}
	}
	e := Builtin()
	if _, err := e.Embed(context.Background(), texts[:1]); err != nil {
		b.Fatal(err)
	}
	var spent [11]time.Duration
	step := 0
	last, _ := threadCPU()
	ctx := WithPause(context.Background(), func() {
		now, _ := threadCPU()
		spent[step%11] += now - last
		last, step = now, step+1
	})
	start := last
	b.ResetTimer()
	for b.Loop() {
		for rest := texts; len(rest) > 0; {
			n := subBatchOf(rest)
			if _, err := e.Embed(ctx, rest[:n]); err != nil {
				b.Fatal(err)
			}
			rest = rest[n:]
		}
	}
	end, _ := threadCPU()
	total := end - start
	b.ReportMetric(float64(b.N*len(texts))/total.Seconds(), "chunks/cpu-s")
	if step%11 != 0 {
		b.Fatalf("%d pauses, not a multiple of 11 steps", step)
	}
	for s, st := range forwardSteps {
		b.ReportMetric(100*spent[s].Seconds()/total.Seconds(), "%cpu-"+st.name)
		b.ReportMetric(macs[s]*float64(b.N)/spent[s].Seconds()/1e9, "GMAC/cpu-s-"+st.name)
	}
}

// subBatchOf is the indexer's sub-batch (internal/service subBatch): at most 32 chunks and, past
// the first, 2 KiB of text.
func subBatchOf(texts []string) int {
	n, size := 0, 0
	for n < len(texts) && n < 32 && (n == 0 || size+len(texts[n]) <= 2048) {
		size += len(texts[n])
		n++
	}
	return n
}
