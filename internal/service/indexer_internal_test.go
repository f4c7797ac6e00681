package service

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/embed"
)

// callSizes is the built-in embedder, remembering how many texts each call took.
type callSizes struct {
	embed.Embedder
	calls []int
}

func (c *callSizes) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls = append(c.calls, len(texts))
	return c.Embedder.Embed(ctx, texts)
}

// TestIndexerEmbedsInSubBatches: the indexer's embedding calls take at most subChunks texts and
// subBytes bytes (a longer text alone), so that it can step aside for requests between them,
// and the vectors come back in order, each the text's own.
func TestIndexerEmbedsInSubBatches(t *testing.T) {
	short, long := "Cats purr.", strings.Repeat("x", subBytes/2+1)
	for _, tc := range []struct {
		name  string
		texts []string
		want  []int
	}{
		{"one", []string{short}, []int{1}},
		{"count bound", slices.Repeat([]string{short}, 2*subChunks+1), []int{subChunks, subChunks, 1}},
		{"byte bound", slices.Repeat([]string{long}, 3), []int{1, 1, 1}},
		{"a text over the bound goes alone", []string{short, strings.Repeat("y", 3*subBytes), short}, []int{1, 1, 1}},
		{"bytes fill up", append(slices.Repeat([]string{strings.Repeat("z", subBytes/4)}, 4), short), []int{4, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &callSizes{Embedder: embed.Builtin()}
			ix := &Indexer{svc: &Service{embedder: rec}}
			got, err := ix.embed(context.Background(), tc.texts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rec.calls, tc.want) {
				t.Fatalf("calls of %v texts, want %v", rec.calls, tc.want)
			}
			if len(got) != len(tc.texts) {
				t.Fatalf("%d vectors for %d texts", len(got), len(tc.texts))
			}
			for i, text := range tc.texts {
				alone, err := embed.Builtin().Embed(context.Background(), []string{text})
				if err != nil {
					t.Fatal(err)
				}
				if c := embed.Cosine(got[i], alone[0]); c < 0.9999 {
					t.Fatalf("vector %d: cosine %v with the text's own", i, c)
				}
			}
		})
	}
}
