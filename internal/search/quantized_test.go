package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func unit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// TestQuantized_RankedMatchesExact: the quantized ranking finds the exact best nodes (a node's
// score its best chunk), removed nodes drop out, and freed slots are reused.
func TestQuantized_RankedMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var d Quantized
	vecs := map[string][][]float32{}
	for i := range 300 {
		id := string(rune('A'+i%26)) + string(rune('a'+i/26))
		for range 1 + i%3 {
			v := unit(r, 64)
			vecs[id] = append(vecs[id], v)
			d.Add(id, v)
		}
	}
	d.Add("zero", make([]float32, 64)) // a zero vector scores 0
	q := unit(r, 64)
	exact := func() []string {
		type s struct {
			id string
			c  float64
		}
		var all []s
		for id, vs := range vecs {
			best := -2.0
			for _, v := range vs {
				best = max(best, Cosine(q, v))
			}
			all = append(all, s{id, best})
		}
		slices.SortFunc(all, func(a, b s) int {
			if a.c > b.c {
				return -1
			}
			return 1
		})
		var ids []string
		for _, x := range all[:10] {
			ids = append(ids, x.id)
		}
		return ids
	}
	got, total := d.Ranked(q, 10)
	if total != 301 {
		t.Fatalf("total %d, want 301 nodes", total)
	}
	if want := exact(); !slices.Equal(got, want) {
		t.Fatalf("ranked %v\nexact  %v", got, want)
	}
	slots := len(d.slotNode)
	for _, id := range got[:3] {
		d.Remove(id)
		delete(vecs, id)
	}
	got, _ = d.Ranked(q, 10)
	if want := exact(); !slices.Equal(got, want) {
		t.Fatalf("after removals: ranked %v\nexact  %v", got, want)
	}
	d.Add("new", q) // the query itself: the best node, in a reused slot
	if len(d.slotNode) != slots {
		t.Fatalf("%d slots after a removal and an add, want %d reused", len(d.slotNode), slots)
	}
	if got, _ := d.Ranked(q, 1); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("ranked %v, want the query's own vector first", got)
	}
}
