package search

import (
	"fmt"
	"slices"
	"testing"
)

func TestKeywordTerms(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"how to plan the roadmap", []string{"plan", "roadmap"}},
		{"A b C d", nil},            // one ASCII letter matches almost everything
		{"会 议", []string{"会", "议"}}, // one Chinese character says something
		{`"What is" budget`, []string{"What is", "budget"}},
		{"The THE the", nil},
	} {
		if got := KeywordTerms(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("KeywordTerms(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

// TestTop: past Candidates nodes the weakest is dropped, and a node's score is its best chunk's,
// a later better chunk raising it in place.
func TestTop(t *testing.T) {
	var top Top
	for i := range Candidates + 50 {
		top.Offer(fmt.Sprint("n", i), float64(i))
	}
	top.Offer("n60", 1000) // a second, better chunk of a kept node
	top.Offer("n70", -1)   // a worse one changes nothing
	top.Offer("n3", 1)     // dropped nodes stay below the kept
	if top.Len() != Candidates {
		t.Fatalf("kept %d nodes, want %d", top.Len(), Candidates)
	}
	got := map[string]float64{}
	for _, s := range top.Nodes() {
		got[s.ID] = s.Score
	}
	for i := range Candidates + 50 {
		id := fmt.Sprint("n", i)
		_, kept := got[id]
		if want := i >= 50; kept != want {
			t.Errorf("%s kept %v, want %v", id, kept, want)
		}
	}
	if got["n60"] != 1000 || got["n70"] != 70 {
		t.Errorf("n60 = %v, n70 = %v; want 1000 (its best chunk), 70", got["n60"], got["n70"])
	}
}

func TestCosine(t *testing.T) {
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{2, 0}, 1},
		{[]float32{1, 0}, []float32{0, 3}, 0},
		{[]float32{1, 1}, []float32{-1, -1}, -1},
		{[]float32{0, 0}, []float32{1, 0}, 0},
		{[]float32{1}, []float32{1, 0}, -1}, // other dimensions never compare
	} {
		if got := Cosine(tc.a, tc.b); got-tc.want > 1e-9 || tc.want-got > 1e-9 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestPackVector(t *testing.T) {
	v := []float32{0, -1.5, 3.25e-8, 1e30}
	b := PackVector(v)
	if len(b) != 16 {
		t.Fatalf("%d bytes, want 4 per component", len(b))
	}
	if got := UnpackVector([]float32{9}, b); !slices.Equal(got, append([]float32{9}, v...)) {
		t.Fatalf("UnpackVector appended %v, want %v after 9", got, v)
	}
}
