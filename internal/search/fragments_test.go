package search

import (
	"math"
	"slices"
	"testing"
)

func TestFragmentScore(t *testing.T) {
	for _, tc := range []struct {
		cosine, share, want float64
	}{
		{1, 1, 1},
		{1, 0, 0.8},
		{0.5, 0.5, 0.5},
		{-0.9, 0, 0}, // never below 0
		{-0.9, 1, 0},
		{0, 1, 0.2},
	} {
		if got := FragmentScore(tc.cosine, tc.share); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("FragmentScore(%v, %v) = %v, want %v", tc.cosine, tc.share, got, tc.want)
		}
	}
	if got := TermShare([]bool{true, false, true, true}, 4); got != 0.75 {
		t.Errorf("TermShare = %v", got)
	}
	if got := TermShare(nil, 0); got != 0 {
		t.Errorf("TermShare without terms = %v", got)
	}
}

// TestRankFragments: best first, equal scores by node then chunk; pages follow one another
// from a key without gaps or repeats; the threshold drops the weaker.
func TestRankFragments(t *testing.T) {
	frags := func() []Fragment {
		return []Fragment{
			{NodeID: "b", Chunk: 1, Score: 0.5}, {NodeID: "a", Chunk: 2, Score: 0.5}, {NodeID: "c", Chunk: 0, Score: 0.9},
			{NodeID: "a", Chunk: 0, Score: 0.5}, {NodeID: "b", Chunk: 0, Score: 0.2}, {NodeID: "d", Chunk: 0, Score: 0},
		}
	}
	name := func(fs []Fragment) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.NodeID+string(rune('0'+f.Chunk)))
		}
		return out
	}
	all := []string{"c0", "a0", "a2", "b1", "b0", "d0"}
	if got, more := RankFragments(frags(), nil, 0, 10); !slices.Equal(name(got), all) || more {
		t.Fatalf("all: %v more=%v", name(got), more)
	}
	for _, size := range []int{1, 2, 4, 5} {
		var walked []string
		var after *FragmentKey
		for range 10 {
			got, more := RankFragments(frags(), after, 0, size)
			walked = append(walked, name(got)...)
			if !more {
				break
			}
			k := got[len(got)-1].Key()
			after = &k
		}
		if !slices.Equal(walked, all) {
			t.Errorf("pages of %d: %v, want %v", size, walked, all)
		}
	}
	if got, more := RankFragments(frags(), nil, 0.5, 3); !slices.Equal(name(got), []string{"c0", "a0", "a2"}) || !more {
		t.Errorf("threshold 0.5, 3: %v more=%v", name(got), more)
	}
	if got, more := RankFragments(frags(), nil, 0.5, 4); !slices.Equal(name(got), []string{"c0", "a0", "a2", "b1"}) || more {
		t.Errorf("threshold 0.5, 4: %v more=%v", name(got), more)
	}
	if got, more := RankFragments(nil, nil, 0, 10); len(got) != 0 || more {
		t.Errorf("none: %v %v", got, more)
	}
}
