package service

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

// TestVectorData_RankedMatchesExact: the quantized ranking finds the exact best nodes (a node's
// score its best chunk), removed nodes drop out, and freed slots are reused.
func TestVectorData_RankedMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	d := vectorData{nodeIdx: map[string]int32{}, slotsOf: map[int32][]int32{}}
	vecs := map[string][][]float32{}
	for i := range 300 {
		id := string(rune('A'+i%26)) + string(rune('a'+i/26))
		for range 1 + i%3 {
			v := unit(r, 64)
			vecs[id] = append(vecs[id], v)
			d.add(id, v)
		}
	}
	d.add("zero", make([]float32, 64)) // a zero vector scores 0
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
				best = max(best, cosine(q, v))
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
	got, total := d.ranked(q, 10)
	if total != 301 {
		t.Fatalf("total %d, want 301 nodes", total)
	}
	if want := exact(); !slices.Equal(got, want) {
		t.Fatalf("ranked %v\nexact  %v", got, want)
	}
	slots := len(d.slotNode)
	for _, id := range got[:3] {
		d.remove(id)
		delete(vecs, id)
	}
	got, _ = d.ranked(q, 10)
	if want := exact(); !slices.Equal(got, want) {
		t.Fatalf("after removals: ranked %v\nexact  %v", got, want)
	}
	d.add("new", q) // the query itself: the best node, in a reused slot
	if len(d.slotNode) != slots {
		t.Fatalf("%d slots after a removal and an add, want %d reused", len(d.slotNode), slots)
	}
	if got, _ := d.ranked(q, 1); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("ranked %v, want the query's own vector first", got)
	}
}

// TestVectorCache_EvictsLeastRecentlyUsed: past the bound, the sets searched longest ago go.
func TestVectorCache_EvictsLeastRecentlyUsed(t *testing.T) {
	c := newVectorCache(250)
	for i, ws := range []string{"a", "b", "c"} {
		s := &vectorSet{}
		s.bytes.Store(100)
		s.lastUse.Store(int64(i))
		c.sets[vectorKey{ws, "m"}] = s
	}
	c.account(vectorKey{"c", "m"})
	var left []string
	for k := range c.sets {
		left = append(left, k.workspace)
	}
	slices.Sort(left)
	if !slices.Equal(left, []string{"b", "c"}) || c.bytes != 200 {
		t.Fatalf("kept %v (%d bytes), want [b c] (200)", left, c.bytes)
	}
}
