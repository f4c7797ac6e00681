package embed

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// issuePages makes the pages of issue 15's semantic-indexing row: each page 100 paragraphs of 12
// words drawn from a 2,000-word vocabulary. The vocabulary is made-up pronounceable words of two
// to four syllables, seeded, so the token count per word is that of words the model's vocabulary
// does not hold whole (names, jargon), as in the issue's ≈32 chunks per page.
func issuePages(pages int) [][]string {
	r := rand.New(rand.NewPCG(15, 4))
	onsets := []string{"b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "br", "st", "tr", "pl", "gr"}
	vowels := []string{"a", "e", "i", "o", "u", "ai", "ou"}
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < 2000 {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteString(onsets[r.IntN(len(onsets))] + vowels[r.IntN(len(vowels))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			vocab = append(vocab, w.String())
		}
	}
	out := make([][]string, pages)
	for p := range out {
		paras := make([]string, 100)
		for i := range paras {
			words := make([]string, 12)
			for j := range words {
				words[j] = vocab[r.IntN(len(vocab))]
			}
			paras[i] = strings.Join(words, " ")
		}
		out[p] = paras
	}
	return out
}

// issueChunks cuts issuePages as the indexer does (embedChunks in internal/service: at most 32
// chunks per page, a title first) and returns the chunk texts.
func issueChunks(pages int) []string {
	var out []string
	for i, paras := range issuePages(pages) {
		out = append(out, fmt.Sprintf("Page %d", i))
		for j, c := range ChunkEntries(paras) {
			if j == 31 {
				break
			}
			out = append(out, c.Text)
		}
	}
	return out
}

// TestIssueChunksShape reports what the issue's pages make: chunks per page and tokens per
// chunk (the throughput figures of docs/performance.md are per such chunk).
func TestIssueChunksShape(t *testing.T) {
	chunks := issueChunks(20)
	tok, err := builtinTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	tokens, full := 0, 0
	for _, c := range chunks {
		ids, _ := tok.encode(c)
		if len(ids) > MaxTokens {
			t.Fatalf("chunk of %d tokens: %q", len(ids), c)
		}
		tokens += len(ids)
		if len(ids) >= 120 {
			full++
		}
	}
	t.Logf("%d pages: %d chunks (%.1f per page), %.1f tokens per chunk, %d of 120+ tokens",
		20, len(chunks), float64(len(chunks))/20, float64(tokens)/float64(len(chunks)), full)
	if len(chunks) < 20*20 {
		t.Errorf("%d chunks for 20 pages, want about 32 per page as in the issue", len(chunks))
	}
}
