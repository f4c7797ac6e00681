package search

import (
	"container/heap"
	"math"
	"strings"
	"unicode/utf8"
)

// Candidates is how many nodes, the best by chunk cosine, the keyword signal re-ranks.
const Candidates = 100

// keywordWeight is how much the share of query terms a node holds adds to its cosine.
const keywordWeight = 0.25

// Scored is a node and its score.
type Scored struct {
	ID    string
	Score float64
}

// Top keeps the Candidates nodes with the best chunk cosine offered so far; a node's score is its
// best chunk's. The zero value is empty.
type Top struct {
	h    scoreHeap
	kept map[string]bool
}

// Offer considers chunk cosine c of node id.
func (t *Top) Offer(id string, c float64) {
	if t.kept == nil {
		t.kept = map[string]bool{}
	}
	if t.kept[id] { // rare: a second chunk of a kept node
		for i := range t.h {
			if t.h[i].ID == id && c > t.h[i].Score {
				t.h[i].Score = c
				heap.Fix(&t.h, i)
			}
		}
		return
	}
	if len(t.h) < Candidates {
		t.kept[id] = true
		heap.Push(&t.h, Scored{id, c})
	} else if c > t.h[0].Score {
		delete(t.kept, t.h[0].ID)
		t.kept[id] = true
		t.h[0] = Scored{id, c}
		heap.Fix(&t.h, 0)
	}
}

// Scorer returns the callback of a vector scan (ScanVectors) that offers each chunk's cosine to
// query vector qv.
func (t *Top) Scorer(qv []float32) func(id string, v []float32) error {
	return func(id string, v []float32) error {
		t.Offer(id, Cosine(qv, v))
		return nil
	}
}

// Len is how many nodes are kept.
func (t *Top) Len() int { return len(t.h) }

// Nodes are the nodes kept, in no order.
func (t *Top) Nodes() []Scored { return t.h }

// KeywordTerms are the query's terms that say something: common English words and one-letter
// terms match almost everything.
func KeywordTerms(q string) []string {
	var out []string
	for _, t := range Terms(q) {
		if stopWords[strings.ToLower(t)] || (utf8.RuneCountInString(t) < 2 && t[0] < utf8.RuneSelf) {
			continue
		}
		out = append(out, t)
	}
	return out
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by for from has have how i in is it its of on or that the
		this to was what when where which who why will with about do does my our your we you can`) {
		stopWords[w] = true
	}
}

// Cosine is the cosine similarity of a and b: -1 when their dimensions differ, 0 when either
// is zero.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return -1
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// scoreHeap is a min-heap: its root is the weakest candidate kept. Top and the quantized
// ranking (Quantized.Ranked) both keep their best this way.
type scoreHeap []Scored

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i].Score < h[j].Score }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(Scored)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
