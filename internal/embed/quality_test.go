package embed

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"sync"
	"testing"
)

func TestBuiltinEdgeCases(t *testing.T) {
	e := Builtin()
	if e.ID() != "use-lite-en@0.2.0/fp16" || e.Dim() != 512 {
		t.Fatalf("ID %q Dim %d", e.ID(), e.Dim())
	}
	got, err := e.Embed(context.Background(), []string{"", "hello", ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || slices.ContainsFunc(got[0], func(v float32) bool { return v != 0 }) || Cosine(got[0], got[1]) != 0 {
		t.Fatalf("empty text: %d vectors, first %v…; want zero vectors with cosine 0", len(got), got[0][:4])
	}
	if out, err := e.Embed(context.Background(), nil); err != nil || len(out) != 0 {
		t.Fatalf("Embed(nil) = %v, %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, []string{"hello"}); err != context.Canceled {
		t.Fatalf("cancelled context: err = %v", err)
	}
}

// TestBuiltinConcurrent runs embedders on several goroutines (each with its own pooled buffers)
// and expects the very same floats as a lone call; run it with -race.
func TestBuiltinConcurrent(t *testing.T) {
	texts := []string{"man playing guitar", "quarterly revenue grew", "reset my password", "the cat sat on the mat"}
	want, err := Builtin().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for r := range 3 {
				i := (g + r) % len(texts)
				got, err := Builtin().Embed(context.Background(), []string{texts[i]})
				if err != nil || !slices.Equal(got[0], want[i]) {
					t.Errorf("goroutine %d: Embed(%q) differs from the lone call (err %v)", g, texts[i], err)
				}
			}
		})
	}
	wg.Wait()
}

// TestBuiltinSanityPairs: a paraphrase scores above an unrelated text (shared/notes/semantic-search.md).
func TestBuiltinSanityPairs(t *testing.T) {
	cases := []struct{ anchor, similar, dissimilar string }{
		{"reset my password", "recover a forgotten login credential", "quarterly revenue grew"},
		{"reset my password", "recover a forgotten login credential", "the cat sat on the mat"},
		{"roadmap review notes", "discussion about upcoming product plans", "cookie recipe"},
		{"man playing guitar", "someone plays an instrument", "woman slicing onion"},
		{"invoice is overdue", "bill has not been paid", "weather is sunny"},
	}
	for _, c := range cases {
		v, err := Builtin().Embed(context.Background(), []string{c.anchor, c.similar, c.dissimilar})
		if err != nil {
			t.Fatal(err)
		}
		sim, dis := Cosine(v[0], v[1]), Cosine(v[0], v[2])
		t.Logf("%q: %.3f similar, %.3f dissimilar", c.anchor, sim, dis)
		if sim <= dis+0.1 {
			t.Errorf("%q: cosine %.3f with %q, %.3f with %q; want the paraphrase clearly ahead", c.anchor, sim, c.similar, dis, c.dissimilar)
		}
	}
}

// devSet is testdata/semantic-dev-set.json, a copy of shared/data/semantic-dev-set.json: 30
// workspace documents and 40 queries; the first id in rel has gain 2, the others gain 1.
type devSet struct {
	Docs []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"docs"`
	Queries []struct {
		Q    string   `json:"q"`
		Rel  []string `json:"rel"`
		Kind string   `json:"kind"`
	} `json:"queries"`
}

// TestBuiltinDevSetNDCG ranks the dev set's documents by cosine for every query and reports
// nDCG@10 per query kind. The notes measured 0.982 (lexical) and 0.872 (paraphrase) for USE-lite;
// below 0.6 the model is broken.
func TestBuiltinDevSetNDCG(t *testing.T) {
	b, err := os.ReadFile("testdata/semantic-dev-set.json")
	if err != nil {
		t.Fatal(err)
	}
	var set devSet
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	docTexts := make([]string, len(set.Docs))
	for i, d := range set.Docs {
		docTexts[i] = d.Text
	}
	docs, err := Builtin().Embed(ctx, docTexts)
	if err != nil {
		t.Fatal(err)
	}
	sum, count := map[string]float64{}, map[string]int{}
	for _, q := range set.Queries {
		qv, err := Builtin().Embed(ctx, []string{q.Q})
		if err != nil {
			t.Fatal(err)
		}
		order := make([]int, len(docs))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return Cosine(qv[0], docs[order[a]]) > Cosine(qv[0], docs[order[b]]) })
		gain := map[string]float64{}
		for i, id := range q.Rel {
			gain[id] = 1
			if i == 0 {
				gain[id] = 2
			}
		}
		var dcg, ideal float64
		for rank := 0; rank < 10 && rank < len(order); rank++ {
			dcg += gain[set.Docs[order[rank]].ID] / math.Log2(float64(rank+2))
		}
		ideals := make([]float64, 0, len(gain))
		for _, g := range gain {
			ideals = append(ideals, g)
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(ideals)))
		for rank, g := range ideals[:min(10, len(ideals))] {
			ideal += g / math.Log2(float64(rank+2))
		}
		for _, kind := range []string{q.Kind, "all"} {
			sum[kind] += dcg / ideal
			count[kind]++
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(sum)) {
		t.Logf("nDCG@10 %-10s %.3f over %d queries", kind, sum[kind]/float64(count[kind]), count[kind])
	}
	if all := sum["all"] / float64(count["all"]); all < 0.6 {
		t.Fatalf("nDCG@10 %.3f over the dev set, want at least 0.6", all)
	}
}
