package embed

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// reservedPieces are the vocabulary's first entries (unknown, <s>, </s>, three extras); the
// tokenizer never produces them except the unknown id 0.
const reservedPieces = 6

// tokenizer is the SentencePiece-style unigram tokenizer of the tfjs Universal Sentence Encoder,
// ported so that it returns exactly the ids of @energetic-ai/embeddings@0.2.0 (lib/tokenizer.ts),
// quirks included:
//   - NFKC, then "▁" before the text and in place of every ASCII space (tabs and newlines stay);
//   - a Viterbi pass over code points where a candidate wins if the position has no score yet
//     (score exactly 0 counts as none) or if its score is >= the best, so ties go to the later start;
//   - a position no piece starts with becomes the unknown id 0 of length 1 and score 0, and
//     consecutive unknowns merge into one;
//   - a null score in vocab.json (seven entries such as ":" and "▁:)") counts as 0, as in JS.
//
// Truncation to the model's 128 tokens is the network's job, not the tokenizer's.
type tokenizer struct {
	pieceLen []int // code points of each vocabulary entry
	// The trie: node 0 is the root; edge (node, rune) → child lives in one map keyed by
	// edge(node, rune), which is compact for 8000 pieces and takes Go's fast path for uint64 keys.
	edges    map[uint64]int32
	nodes    []trieNode
	maxPiece int // code points of the longest piece: the farthest a piece reaches from its start
}

func edge(node int32, r rune) uint64 { return uint64(node)<<32 | uint64(uint32(r)) }

type trieNode struct {
	end   bool
	score float64
	id    int32
}

// newTokenizer parses vocab.json: an array of [piece, score] pairs where score may be null.
func newTokenizer(vocabJSON []byte) (*tokenizer, error) {
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(vocabJSON, &raw); err != nil {
		return nil, fmt.Errorf("embed: vocab: %w", err)
	}
	t := &tokenizer{
		pieceLen: make([]int, len(raw)),
		edges:    make(map[uint64]int32, 4*len(raw)),
		nodes:    []trieNode{{}},
	}
	for i, entry := range raw {
		var piece string
		var score *float64
		if err := json.Unmarshal(entry[0], &piece); err != nil {
			return nil, fmt.Errorf("embed: vocab entry %d: %w", i, err)
		}
		if err := json.Unmarshal(entry[1], &score); err != nil {
			return nil, fmt.Errorf("embed: vocab entry %d: %w", i, err)
		}
		t.pieceLen[i] = utf8.RuneCountInString(piece)
		if i < reservedPieces || piece == "" {
			continue
		}
		t.maxPiece = max(t.maxPiece, t.pieceLen[i])
		node := int32(0)
		for _, r := range piece {
			child, ok := t.edges[edge(node, r)]
			if !ok {
				child = int32(len(t.nodes))
				t.nodes = append(t.nodes, trieNode{})
				t.edges[edge(node, r)] = child
			}
			node = child
		}
		n := &t.nodes[node]
		n.end, n.id, n.score = true, int32(i), 0
		if score != nil {
			n.score = *score
		}
	}
	if len(raw) <= reservedPieces {
		return nil, fmt.Errorf("embed: vocab has %d entries", len(raw))
	}
	return t, nil
}

// prepare applies the model's normalisation and returns the code points the Viterbi pass runs on.
func prepare(text string) []rune {
	s := norm.NFKC.String(text)
	if s == "" {
		return nil
	}
	return []rune("▁" + strings.ReplaceAll(s, " ", "▁"))
}

// encode returns the token ids of text and, for each, how many code points of the prepared text
// it covers (a merged unknown covers all the code points it merged).
func (t *tokenizer) encode(text string) (ids []int32, spans []int) {
	syms := prepare(text)
	n := len(syms)
	if n == 0 {
		return nil, nil
	}
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for start := 0; start < n; start++ {
		t.step(syms, start, best, words)
	}
	// Backtrack from the end, then merge runs of unknowns (the JS merges in reverse order).
	for i := n; i > 0; {
		id := words[i]
		l := t.pieceLen[id]
		if l < 1 {
			l = 1
		}
		if id == 0 && len(ids) > 0 && ids[len(ids)-1] == 0 {
			spans[len(spans)-1] += l
		} else {
			ids = append(ids, id)
			spans = append(spans, l)
		}
		i -= l
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
		spans[i], spans[j] = spans[j], spans[i]
	}
	return ids, spans
}

// step is one start of encode's Viterbi pass over syms (the lattice's extension runs the same):
// every vocabulary piece that begins at start offers best[start] plus its score to the position
// after it, and when none begins there the unknown piece (id 0, one code point, score 0) does.
// Ties go to the later offer, as the JS reference's do.
func (t *tokenizer) step(syms []int32, start int, best []float64, words []int32) {
	n := len(syms)
	matched := false
	node := int32(0)
	for end := start; end < n; end++ {
		child, ok := t.edges[edge(node, syms[end])]
		if !ok {
			break
		}
		node = child
		if tn := &t.nodes[node]; tn.end {
			matched = true
			score := tn.score + best[start]
			if best[end+1] == 0 || score >= best[end+1] {
				best[end+1], words[end+1] = score, tn.id
			}
		}
	}
	if !matched {
		score := best[start]
		if best[start+1] == 0 || score >= best[start+1] {
			best[start+1], words[start+1] = score, 0
		}
	}
}
