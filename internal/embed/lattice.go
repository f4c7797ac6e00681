package embed

// A chunk grows a sentence at a time, and each sentence asks whether the chunk with it still
// fits MaxTokens. Encoding the whole candidate each time made chunking quadratic in a chunk's
// length: the indexer spent a third of its CPU there on pages whose vectors it then kept
// (docs/performance.md "Append, ninth pass"). The Viterbi pass of encode reads the text left to
// right, and a piece spans at most maxPiece code points, so a lattice keeps the pass over the
// chunk so far and extend carries it over the added text only, redoing the last maxPiece
// starts, whose pieces may now reach past the old end. The count is exactly encode's.

// lattice is encode's forward pass over a prepared text (prepare), kept to be extended.
type lattice struct {
	syms  []rune
	best  []float64 // encode's best and words, for positions 0..len(syms)
	words []int32
	// mark is the first start whose pieces may reach past the end (len(syms)-maxPiece, or 0);
	// markBest and markWords hold positions mark+1..len(syms) as they were after the starts
	// before mark only: where the next extend resumes.
	mark      int
	markBest  []float64
	markWords []int32
}

// reset empties l, keeping its memory.
func (l *lattice) reset() {
	l.syms, l.markBest, l.markWords, l.mark = l.syms[:0], l.markBest[:0], l.markWords[:0], 0
	l.best, l.words = append(l.best[:0], 0), append(l.words[:0], 0)
}

// copyFrom makes l a copy of o, reusing l's memory.
func (l *lattice) copyFrom(o *lattice) {
	l.syms = append(l.syms[:0], o.syms...)
	l.best = append(l.best[:0], o.best...)
	l.words = append(l.words[:0], o.words...)
	l.mark = o.mark
	l.markBest = append(l.markBest[:0], o.markBest...)
	l.markWords = append(l.markWords[:0], o.markWords...)
}

// extend runs the forward pass over more, prepared text appended to l's (a text and, prepared
// alone, the next one after a space: prepare(a+" "+b) is prepare(a) then prepare(b) when both
// are NFKC, as a chunk's units are).
func (t *tokenizer) extend(l *lattice, more []rune) {
	if len(l.best) == 0 {
		l.reset()
	}
	from := l.mark
	copy(l.best[from+1:], l.markBest)
	copy(l.words[from+1:], l.markWords)
	l.syms = append(l.syms, more...)
	n := len(l.syms)
	for len(l.best) < n+1 {
		l.best, l.words = append(l.best, 0), append(l.words, 0)
	}
	mark := max(0, n-t.maxPiece)
	syms, best, words := l.syms, l.best, l.words
	for start := from; start < n; start++ {
		if start == mark {
			l.markBest = append(l.markBest[:0], best[mark+1:]...)
			l.markWords = append(l.markWords[:0], words[mark+1:]...)
		}
		t.step(syms, start, best, words)
	}
	l.mark = mark
}

// tokens counts the ids encode returns for l's text: its backtrack, runs of unknowns merged.
func (t *tokenizer) tokens(l *lattice) int {
	n, unknown := 0, false
	for i := len(l.syms); i > 0; {
		id := l.words[i]
		if id != 0 || !unknown {
			n++
		}
		unknown = id == 0
		i -= max(1, t.pieceLen[id])
	}
	return n
}
