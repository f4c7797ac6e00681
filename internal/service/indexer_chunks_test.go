package service

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
)

// TestChunkMemo: the memo gives exactly what cutting the source gives, for the same source from
// the memo and for any change of title, entry, block or entry count cut afresh (a memo that
// kept a node's chunks across a change would embed stale text: this fails then); callers may
// change what they get without touching what it keeps; and it holds at most chunkMemoBytes.
func TestChunkMemo(t *testing.T) {
	src := store.EmbedSource{Title: "Lighthouse"}
	for i := range 200 {
		src.Body = append(src.Body, fmt.Sprintf("Entry %d tells of the keeper and the storm. It rained.", i))
		src.BodyBlocks = append(src.BodyBlocks, fmt.Sprintf("block-%d", i))
	}
	same := func(a, b []store.EmbedChunk) bool {
		return slices.EqualFunc(a, b, func(x, y store.EmbedChunk) bool {
			return x.Text == y.Text && x.BlockID == y.BlockID && x.Hash == y.Hash && x.Vector == nil && y.Vector == nil
		})
	}
	var m chunkMemo
	first := m.chunks("node", src)
	if !same(first, embedChunks(src)) || len(first) < 10 {
		t.Fatalf("first cut: %d chunks, not embedChunks'", len(first))
	}
	first[0].Text, first[1].Vector = "changed by the caller", []float32{1}
	if again := m.chunks("node", src); !same(again, embedChunks(src)) {
		t.Fatal("the memo's chunks differ from a new cut, or kept the caller's change")
	}
	edits := map[string]func(s *store.EmbedSource){
		"title":       func(s *store.EmbedSource) { s.Title = "Lighthouses" },
		"an entry":    func(s *store.EmbedSource) { s.Body[0] = "Entry 0 tells of the keeper and the calm. It rained." },
		"a block":     func(s *store.EmbedSource) { s.BodyBlocks[3] = "block-x" },
		"one fewer":   func(s *store.EmbedSource) { s.Body, s.BodyBlocks = s.Body[:199], s.BodyBlocks[:199] },
		"split entry": func(s *store.EmbedSource) { s.Body[5], s.Body[6] = s.Body[5]+s.Body[6][:3], s.Body[6][3:] },
	}
	for name, edit := range edits {
		changed := src
		changed.Body, changed.BodyBlocks = slices.Clone(src.Body), slices.Clone(src.BodyBlocks)
		edit(&changed)
		got, want := m.chunks("node", changed), embedChunks(changed)
		if !same(got, want) {
			t.Errorf("%s: the memo gave %d chunks, a new cut %d", name, len(got), len(want))
		}
		m.chunks("node", src) // back to the first source
	}
	big := store.EmbedSource{Title: strings.Repeat("x", 1000)}
	for i := range 3 * chunkMemoBytes / 1000 {
		m.chunks(fmt.Sprint("big-", i), big)
	}
	if m.bytes > chunkMemoBytes {
		t.Fatalf("the memo holds %d bytes, over %d", m.bytes, chunkMemoBytes)
	}
	total := 0
	for _, e := range m.nodes {
		total += e.bytes
	}
	if total != m.bytes {
		t.Fatalf("the memo counts %d bytes and holds %d", m.bytes, total)
	}
}
