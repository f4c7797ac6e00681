package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxChunkRunes caps a chunk's length in code points as well: a run of characters the vocabulary
// lacks merges into one unknown token, so a token count alone would let a chunk grow without end.
// 2048 is 128 tokens of the longest vocabulary piece (16 code points).
const maxChunkRunes = 2048

// Chunks splits text into pieces of at most MaxTokens tokens (and maxChunkRunes code points) of
// the built-in model, so long content can be embedded whole: each chunk is embedded and a page
// scores as its best chunk. Lines and sentences stay whole where they fit and consecutive ones are
// packed into one chunk; a longer sentence is split between words, and a longer word between
// tokens. Chunks are NFKC-normalised with every run of whitespace turned into one space (the
// model's tokenizer reads tabs and newlines as unknown tokens). Text with nothing but whitespace
// gives no chunks. Short texts come back as one chunk; invalid UTF-8 is replaced by U+FFFD.
func Chunks(text string) []string {
	var out []string
	for _, c := range ChunkEntries([]string{text}) {
		out = append(out, c.Text)
	}
	return out
}

// Chunk is one piece of ChunkEntries: its text and the index of the entry it starts in.
type Chunk struct {
	Text  string
	Entry int
}

// ChunkEntries cuts entries (a page's blocks' texts, in order) as Chunks cuts them joined by
// newlines, the same pieces, and says which entry each piece starts in: semantic search answers
// a chunk with the block it starts at. Each entry is normalised alone; a newline is a stable
// code point, so that is the normalisation of the joined text.
func ChunkEntries(entries []string) []Chunk {
	tok, err := builtinTokenizer()
	if err != nil {
		panic(err) // the vocabulary is embedded in the binary; its tests load it
	}
	c := chunker{tok: tok}
	for i, text := range entries {
		c.entry = i
		// Invalid UTF-8 becomes U+FFFD first, so chunks are valid text and cutting can never glue
		// stray bytes into a character that was not there.
		for _, line := range strings.Split(norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD")), "\n") {
			for _, sentence := range sentences(strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")) {
				c.add(sentence)
			}
		}
	}
	c.flush()
	return c.out
}

// sentences splits a whitespace-collapsed line after ".", "!" or "?" followed by a space.
func sentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(line); i++ {
		if (line[i] == '.' || line[i] == '!' || line[i] == '?') && line[i+1] == ' ' {
			out = append(out, line[start:i+1])
			start = i + 2
		}
	}
	if start < len(line) {
		out = append(out, line[start:])
	}
	return out
}

// chunker packs units (sentences, then words, then token runs) greedily into chunks.
type chunker struct {
	tok   *tokenizer
	cur   string
	runes int     // code points of cur
	curL  lattice // the forward pass over cur (lattice.go)
	next  lattice // the pass over cur and the unit tried last (fitsAfter) or the unit alone (fitsAlone)
	entry int     // the entry being added
	start int     // the entry cur starts in
	out   []Chunk
}

// fitsAfter reports whether cur, a space and unit fit one chunk, as fits(cur+" "+unit) would,
// extending cur's pass instead of encoding it again; c.next is then that text's pass.
func (c *chunker) fitsAfter(unit string) bool {
	if c.runes+1+utf8.RuneCountInString(unit) > maxChunkRunes {
		return false
	}
	c.next.copyFrom(&c.curL)
	c.tok.extend(&c.next, prepare(unit))
	return c.tok.tokens(&c.next) <= MaxTokens
}

// fitsAlone is fits(unit), leaving unit's pass in c.next.
func (c *chunker) fitsAlone(unit string) bool {
	if utf8.RuneCountInString(unit) > maxChunkRunes {
		return false
	}
	c.next.reset()
	c.tok.extend(&c.next, prepare(unit))
	return c.tok.tokens(&c.next) <= MaxTokens
}

// take makes c.next's text cur's pass; runes is cur's new length.
func (c *chunker) take(runes int) {
	c.curL, c.next = c.next, c.curL
	c.runes = runes
}

func (c *chunker) fits(s string) bool {
	if utf8.RuneCountInString(s) > maxChunkRunes {
		return false
	}
	ids, _ := c.tok.encode(s)
	return len(ids) <= MaxTokens
}

func (c *chunker) flush() {
	if c.cur != "" {
		c.out = append(c.out, Chunk{Text: c.cur, Entry: c.start})
		c.cur = ""
	}
}

// add appends a sentence (or any unit without line breaks) to the current chunk, or starts a new
// chunk with it, splitting it first when it cannot fit in a chunk of its own.
func (c *chunker) add(unit string) {
	if unit == "" {
		return
	}
	if c.cur != "" && c.fitsAfter(unit) {
		c.cur += " " + unit
		c.take(c.runes + 1 + utf8.RuneCountInString(unit))
		return
	}
	if c.fitsAlone(unit) {
		c.flush()
		c.cur, c.start = unit, c.entry
		c.take(utf8.RuneCountInString(unit))
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

// splitWord cuts a word (no spaces) that does not fit one chunk into pieces that do, at token
// boundaries. It tokenizes a window of at most maxChunkRunes code points at a time, so a huge
// word costs linear time.
func (c *chunker) splitWord(word string) []string {
	var out []string
	rest := []rune(word)
	for len(rest) > 0 {
		window := rest[:min(len(rest), maxChunkRunes)]
		if len(window) == len(rest) && c.fits(string(window)) {
			return append(out, string(window))
		}
		// Cut after the first MaxTokens-8 tokens: re-tokenized alone, the piece gains a leading "▁"
		// and may segment differently at its end; the loop below shrinks it if that still overflows.
		_, spans := c.tok.encode(string(window))
		cut := -1 // the prepared text starts with "▁", which is not part of the word
		for i, s := range spans {
			if i == MaxTokens-8 {
				break
			}
			cut += s
		}
		cut = max(1, min(cut, len(window)))
		for cut > 1 && !c.fits(string(window[:cut])) {
			cut /= 2
		}
		out = append(out, string(window[:cut]))
		rest = rest[cut:]
	}
	return out
}
