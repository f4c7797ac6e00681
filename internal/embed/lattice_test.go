package embed

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// chunkEntriesByEncode is ChunkEntries as it was before lattice.go: every candidate chunk
// encoded whole. The lattice must cut exactly the same chunks.
func chunkEntriesByEncode(entries []string) []Chunk {
	tok, err := builtinTokenizer()
	if err != nil {
		panic(err)
	}
	c := refChunker{chunker: chunker{tok: tok}}
	for i, text := range entries {
		c.entry = i
		for _, line := range strings.Split(norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD")), "\n") {
			for _, sentence := range sentences(strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")) {
				c.add(sentence)
			}
		}
	}
	c.flush()
	return c.out
}

type refChunker struct{ chunker }

func (c *refChunker) add(unit string) {
	if unit == "" {
		return
	}
	if c.cur != "" && c.fits(c.cur+" "+unit) {
		c.cur += " " + unit
		return
	}
	if c.fits(unit) {
		c.flush()
		c.cur, c.start = unit, c.entry
		return
	}
	if strings.Contains(unit, " ") {
		for _, word := range strings.Split(unit, " ") {
			c.add(word)
		}
		return
	}
	c.flush()
	for _, piece := range c.splitWord(unit) {
		c.add(piece)
	}
}

// TestChunkEntries_LatticeCutsAsEncode compares the chunks with those of encoding every
// candidate whole, on the issue's pages and on text made of awkward pieces: combining marks and
// Hangul jamo after a space, fullwidth and compatibility characters, runs the vocabulary lacks
// (merged unknowns), pieces such as ":)" that begin with the space mark, long words that must be
// split, and sentence ends. It fails if extend resumes at the wrong start, or if tokens counts
// the merged unknowns differently from encode.
func TestChunkEntries_LatticeCutsAsEncode(t *testing.T) {
	var cases [][]string
	cases = append(cases, issuePages(3)...)
	r := rand.New(rand.NewPCG(9, 9))
	pieces := []string{"the", "quick", "brown", "fox.", "jumps!", "over?", ":)", ":", "\u0301", "e\u0301", "\u1100\u1161", "\u1161",
		"ｆｕｌｌ", "ﬁ", "①", "Ⅻ", "漢字", "かな", "😀", "𝔘𝔫𝔦", "\u00a0", "\t", "\n", "ß", "İ", "\u200b", "a.b", "x" + strings.Repeat("q", 40),
		strings.Repeat("zx", 700), "Ὰ", "\ufffd", "\xff", "...", "- ", "'s", "don't", "e.g.", "Dr.", "U.S.", "42", "3.14"}
	for range 300 {
		var entries []string
		for range 1 + r.IntN(6) {
			var b strings.Builder
			for range r.IntN(120) {
				b.WriteString(pieces[r.IntN(len(pieces))])
				if r.IntN(4) > 0 {
					b.WriteString(" ")
				}
			}
			entries = append(entries, b.String())
		}
		cases = append(cases, entries)
	}
	for i, entries := range cases {
		got, want := ChunkEntries(entries), chunkEntriesByEncode(entries)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d: %d chunks by the lattice, %d by encode\nlattice: %+v\nencode:  %+v", i, len(got), len(want), got, want)
		}
	}
}

// TestLattice_CountsAsEncode: a lattice extended text by text counts the tokens encode gives
// the joined text, at every step.
func TestLattice_CountsAsEncode(t *testing.T) {
	tok, err := builtinTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	var l lattice
	joined := ""
	for i, unit := range strings.Fields("Hello :) wörld e\u0301tude 漢字かな 😀😀 supercalifragilistic ａｂｃ ::: x") {
		if i > 0 {
			joined += " "
		}
		joined += unit
		tok.extend(&l, prepare(unit))
		ids, _ := tok.encode(joined)
		if got := tok.tokens(&l); got != len(ids) {
			t.Fatalf("after %q: lattice %d tokens, encode %d", joined, got, len(ids))
		}
	}
}

// TestLattice_PiecesAcrossTheSpace: with a vocabulary whose pieces reach across the space mark
// from several code points before it ("ab▁ba"), and ties of score, the lattice extended unit by
// unit counts what encode counts for the joined text. It fails if extend does not redo the
// starts within the longest piece of the old end (checked: redoing only the last one fails).
func TestLattice_PiecesAcrossTheSpace(t *testing.T) {
	vocab := `[["<unk>",0],["<s>",0],["</s>",0],["r1",0],["r2",0],["r3",0],
		["a",-2],["b",-2],["▁",-3],["▁a",-1.5],["ab",-1],["ab▁ba",-0.5],["b▁",-1],["aab▁b",-0.25],["▁b",-1.5],["ba",-1],["abab",-1]]`
	tok, err := newTokenizer([]byte(vocab))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for round := range 2000 {
		var l lattice
		joined := ""
		for i := range 1 + r.IntN(8) {
			unit := ""
			for range 1 + r.IntN(6) {
				unit += string("abc"[r.IntN(3)])
			}
			if i > 0 {
				joined += " "
			}
			joined += unit
			tok.extend(&l, prepare(unit))
			ids, _ := tok.encode(joined)
			if got := tok.tokens(&l); got != len(ids) {
				t.Fatalf("round %d, %q: lattice %d tokens, encode %d", round, joined, got, len(ids))
			}
		}
	}
}

func BenchmarkChunkEntriesIssuePage(b *testing.B) {
	page := issuePages(1)[0]
	page = append(page, page...) // the indexer reads 200 entries
	b.ReportAllocs()
	for b.Loop() {
		ChunkEntries(page)
	}
}

func BenchmarkChunkEntriesByEncodeIssuePage(b *testing.B) {
	page := issuePages(1)[0]
	page = append(page, page...)
	b.ReportAllocs()
	for b.Loop() {
		chunkEntriesByEncode(page)
	}
}
