package search

import (
	"strconv"
	"testing"
)

// TestSamples_VersionAndBound: kept lists are found only under the version they were read in;
// another version, or more grams than maxSampledGrams, starts again empty; a nil Samples keeps
// nothing.
func TestSamples_VersionAndBound(t *testing.T) {
	s := NewSamples()
	list := [2][]int64{{1, 5}, {2, 9, 30}}
	s.put("v1", []string{"abc"}, [][2][]int64{list})
	if lists, found := s.get("v1", []string{"abc", "xyz"}); !found[0] || found[1] || lists[0][1][2] != 30 {
		t.Fatalf("get v1 = %v %v; want abc alone", lists, found)
	}
	if _, found := s.get("v2", []string{"abc"}); found[0] {
		t.Fatal("abc found under another version")
	}
	s.put("v2", []string{"xyz"}, [][2][]int64{{}})
	if _, found := s.get("v2", []string{"abc", "xyz"}); found[0] || !found[1] {
		t.Fatalf("after v2: found %v; want xyz alone (v1's dropped)", found)
	}
	for i := range maxSampledGrams {
		s.put("v2", []string{strconv.Itoa(i)}, [][2][]int64{list})
	}
	if n := len(s.lists); n > maxSampledGrams {
		t.Fatalf("%d grams kept, want at most %d", n, maxSampledGrams)
	}
	if _, found := s.get("v2", []string{"xyz"}); found[0] {
		t.Fatal("xyz still kept after the bound was passed")
	}
	var none *Samples
	none.put("v1", []string{"abc"}, [][2][]int64{list})
	if _, found := none.get("v1", []string{"abc"}); found[0] {
		t.Fatal("a nil Samples kept a list")
	}
}
