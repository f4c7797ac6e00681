package embed

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// benchText embeds one text per iteration on the calling goroutine (one core). Besides wall time
// it reports cpu-ns/op, the CPU time of the benchmark's thread, which other work on a shared
// machine inflates far less.
func benchText(b *testing.B, text string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	e := Builtin()
	ctx := context.Background()
	if _, err := e.Embed(ctx, []string{text}); err != nil { // load the weights outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	start, ok := threadCPU()
	for b.Loop() {
		if _, err := e.Embed(ctx, []string{text}); err != nil {
			b.Fatal(err)
		}
	}
	if end, _ := threadCPU(); ok {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
	tok, _ := builtinTokenizer()
	ids, _ := tok.encode(text)
	b.ReportMetric(float64(min(len(ids), MaxTokens)), "tokens")
}

// BenchmarkEmbedShort is a short block: a question of eight tokens.
func BenchmarkEmbedShort(b *testing.B) { benchText(b, "How do I reset my password?") }

// BenchmarkEmbedChunk128 is a full chunk: exactly MaxTokens tokens.
func BenchmarkEmbedChunk128(b *testing.B) {
	text := strings.Repeat("The quarterly planning review covers budgets, hiring and the product roadmap. ", 12)
	tok, _ := builtinTokenizer()
	for {
		ids, _ := tok.encode(text)
		if len(ids) <= MaxTokens {
			break
		}
		text = text[:strings.LastIndexByte(text, ' ')]
	}
	benchText(b, text)
}

// BenchmarkTokenize is the tokenizer alone on a 128-token chunk of prose.
func BenchmarkTokenize(b *testing.B) {
	tok, _ := builtinTokenizer()
	text := strings.Repeat("The quarterly planning review covers budgets, hiring and the product roadmap. ", 10)
	for b.Loop() {
		tok.encode(text)
	}
}

// BenchmarkLoad is the one-time cost of decoding the embedded weights.
func BenchmarkLoad(b *testing.B) {
	tok, _ := builtinTokenizer()
	for b.Loop() {
		if _, err := newModelFromEmbedded(tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChunks splits a 4 KB page of prose.
func BenchmarkChunks(b *testing.B) {
	text := strings.Repeat("The quarterly planning review covers budgets, hiring and the product roadmap. ", 52)
	for b.Loop() {
		Chunks(text)
	}
}

// BenchmarkChunksOneLongWord splits 4 KB without a space.
func BenchmarkChunksOneLongWord(b *testing.B) {
	text := strings.Repeat("antidisestablishment", 200)
	for b.Loop() {
		Chunks(text)
	}
}
