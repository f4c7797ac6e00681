package search

import (
	"cmp"
	"context"
	"slices"

	"github.com/quire-dev/quire/internal/sqlq"
)

// Fragment is one chunk of a node as semantic search answers it: the chunk's text, the block it
// starts at ("" for the title, or text that is not a block's) and its score.
type Fragment struct {
	NodeID  string
	Chunk   int
	BlockID string
	Text    string
	Score   float64
}

// FragmentKey is a fragment's place in the ranking, what a cursor resumes after: score, then
// node id and chunk number, so equal scores keep one order from page to page.
type FragmentKey struct {
	Score float64 `json:"s"`
	Node  string  `json:"n"`
	Chunk int     `json:"c"`
}

// Key is f's place in the ranking.
func (f Fragment) Key() FragmentKey { return FragmentKey{f.Score, f.NodeID, f.Chunk} }

// compareKeys orders best first: higher score, then node id and chunk ascending.
func compareKeys(a, b FragmentKey) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Node, b.Node); c != 0 {
		return c
	}
	return cmp.Compare(a.Chunk, b.Chunk)
}

// FragmentScore is a chunk's score on the 0–1 scale the answer shows: its cosine with the query
// plus keywordWeight times the share of the query's terms its node holds (TermShare), divided
// by 1+keywordWeight, and never below 0. The node's best chunk scores what the node ranked by
// before fragments, so pages keep their order; within a node, chunks rank by cosine.
func FragmentScore(cosine, share float64) float64 {
	return min(1, max(0, (cosine+keywordWeight*share)/(1+keywordWeight)))
}

// TermShare is the share of terms a node holds, hits[i] saying whether it holds the i-th
// (TermHits); 0 without terms.
func TermShare(hits []bool, terms int) float64 {
	if terms == 0 {
		return 0
	}
	k := 0
	for _, h := range hits {
		if h {
			k++
		}
	}
	return float64(k) / float64(terms)
}

// RankFragments sorts frags best first (compareKeys) and returns the n that follow after (from
// the first when nil) among those scoring at least threshold, and whether more follow them.
func RankFragments(frags []Fragment, after *FragmentKey, threshold float64, n int) ([]Fragment, bool) {
	slices.SortFunc(frags, func(a, b Fragment) int { return compareKeys(a.Key(), b.Key()) })
	out := frags[:0:0]
	for _, f := range frags {
		if f.Score < threshold {
			break // sorted: the rest score less
		}
		if after != nil && compareKeys(f.Key(), *after) <= 0 {
			continue
		}
		if len(out) == n {
			return out, true
		}
		out = append(out, f)
	}
	return out, false
}

// ScanFragments hands fn each stored chunk of model of nodes (workspace ws), with its vector:
// the chunks semantic search scores once the nodes are picked (they are checked for trash and
// reach by then). The nodes' rows are found by the primary key (see ScanVectors). The vector's
// memory is reused from row to row: fn must copy what it keeps.
func ScanFragments(ctx context.Context, db Queryer, ws, model string, nodes []string, fn func(f Fragment, vec []float32) error) error {
	if len(nodes) == 0 {
		return nil
	}
	a := sqlq.NewArgs(ws, model)
	var f Fragment
	return scanPacked(ctx, db, `SELECT node_id, chunk, text, COALESCE(block_id, ''), vector FROM embeddings
		WHERE workspace_id || '' = $1 AND model = $2 AND node_id IN (`+sqlq.In(a, nodes)+`)`, a.List,
		[]any{&f.NodeID, &f.Chunk, &f.Text, &f.BlockID}, func(vec []float32) error { return fn(f, vec) })
}
