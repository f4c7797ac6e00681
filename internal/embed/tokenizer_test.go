package embed

import (
	"slices"
	"testing"
)

// TestTokenizerQuirks pins ids checked against the JavaScript tokenizer (node, @energetic-ai/embeddings@0.2.0).
func TestTokenizerQuirks(t *testing.T) {
	tok, err := builtinTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, text string
		want       []int32
	}{
		{"empty text has no tokens", "", nil},
		{"a space becomes two ▁", " ", []int32{30, 30}},
		{"a null score is 0, which counts as no score yet: ▁:) loses to ▁ : )", ":)", []int32{30, 57, 52}},
		{"null-score :// loses the same way", "x ://y", []int32{649, 30, 255, 48}},
		{"consecutive unknowns merge", "\u0000\u0001\u0002", []int32{30, 0}},
		{"a tab is not a space but an unknown", "a\tb", []int32{11, 0, 151}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := tok.encode(c.text)
			if !slices.Equal(got, c.want) {
				t.Fatalf("encode(%q) = %v, want %v", c.text, got, c.want)
			}
		})
	}
}

func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{"Hello, world!", " ", "ﬁ ＡＢＣ", "\u0000\u0001x", ":) :-) ://", "🍕🍕"} {
		f.Add(s)
	}
	tok, err := builtinTokenizer()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ids, spans := tok.encode(text)
		if len(ids) != len(spans) {
			t.Fatalf("%d ids, %d spans", len(ids), len(spans))
		}
		total := 0
		for i, id := range ids {
			if id < 0 || int(id) >= len(tok.pieceLen) || id > 0 && id < reservedPieces {
				t.Fatalf("id %d out of range", id)
			}
			if id == 0 && i > 0 && ids[i-1] == 0 {
				t.Fatalf("unmerged unknowns in %v", ids)
			}
			total += spans[i]
		}
		if total != len(prepare(text)) {
			t.Fatalf("spans cover %d code points of %d", total, len(prepare(text)))
		}
	})
}
