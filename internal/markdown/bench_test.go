package markdown

import (
	"io"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
)

// BenchmarkRender streams a 10,000-block page to io.Discard. Allocations per op stay flat
// with page size because the renderer keeps only the open ancestors and one block's bytes.
func BenchmarkRender(b *testing.B) {
	bs := decodeTree(b, everyType)
	var flat []struct {
		depth int
		b     *blocks.Block
	}
	for len(flat) < 10000 {
		_ = blocks.Walk(bs, func(depth int, blk *blocks.Block) error {
			flat = append(flat, struct {
				depth int
				b     *blocks.Block
			}{depth, blk})
			return nil
		})
	}
	flat = flat[:10000]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewRenderer(io.Discard)
		for _, e := range flat {
			if err := r.Block(e.depth, e.b); err != nil {
				b.Fatal(err)
			}
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
