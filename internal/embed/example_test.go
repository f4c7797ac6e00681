package embed_test

import (
	"context"
	"fmt"

	"github.com/quire-dev/quire/internal/embed"
)

// Embedding a page for semantic search: cut it into chunks, embed them, score by the best chunk.
func Example() {
	e := embed.Builtin()
	ctx := context.Background()
	page := "Password help. If you forgot your login credentials, use the recovery link on the sign-in page."
	chunks, err := e.Embed(ctx, embed.Chunks(page))
	if err != nil {
		panic(err)
	}
	queries, err := e.Embed(ctx, []string{"how do I reset my password", "quarterly revenue"})
	if err != nil {
		panic(err)
	}
	score := func(q []float32) float64 {
		best := -1.0
		for _, c := range chunks {
			best = max(best, embed.Cosine(q, c))
		}
		return best
	}
	fmt.Println(e.ID(), e.Dim(), len(chunks))
	fmt.Println(score(queries[0]) > score(queries[1])+0.2)
	// Output:
	// use-lite-en@0.2.0/fp16 512 1
	// true
}
