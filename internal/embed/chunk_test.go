package embed

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// checkChunks asserts what every result of Chunks must satisfy: each chunk fits the model, none
// is empty or has stray spaces, and together they keep every non-space character in order.
func checkChunks(t *testing.T, text string, chunks []string) {
	t.Helper()
	tok, err := builtinTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range chunks {
		ids, _ := tok.encode(c)
		if len(ids) > MaxTokens || utf8.RuneCountInString(c) > maxChunkRunes {
			t.Fatalf("chunk %d has %d tokens and %d code points: %q", i, len(ids), utf8.RuneCountInString(c), c)
		}
		if c == "" || strings.TrimSpace(c) != c || strings.Contains(c, "  ") || strings.ContainsAny(c, "\n\t") {
			t.Fatalf("chunk %d is not whitespace-normalised: %q", i, c)
		}
	}
	if got, want := dropSpace(strings.Join(chunks, "")), dropSpace(norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD"))); got != want {
		t.Fatalf("chunks lose or reorder text:\n got %q\nwant %q", got, want)
	}
}

func dropSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func TestChunks(t *testing.T) {
	sentence := "The planning review covers budgets, hiring and the roadmap for the next quarter."
	longSentence := strings.TrimSpace(strings.Repeat("budgets hiring roadmap quarter ", 60)) // one sentence, 420 tokens
	cases := []struct {
		name string
		text string
		want []string // nil: only check the count and the invariants
		n    int
	}{
		{"empty", "", []string{}, 0},
		{"whitespace only", " \n\t  \r\n", []string{}, 0},
		{"short text is one chunk", "  Reset my   password\n\tplease ", []string{"Reset my password please"}, 1},
		{"NFKC", "ﬁnance ＡＢＣ", []string{"finance ABC"}, 1},
		{"sentences packed, split between sentences", strings.Repeat(sentence+" ", 10), nil, 2},
		{"lines are units", strings.Repeat(sentence+"\n", 10), nil, 2},
		{"a long sentence splits between words", longSentence, nil, 4},
		{"a long word splits between tokens", strings.Repeat("antidisestablishment", 100), nil, 0},
		// 4500 characters the vocabulary lacks are two tokens ("▁" and one merged unknown):
		// only the 2048-character cap splits them.
		{"unknown characters are capped by length", strings.Repeat("한국어", 1500), nil, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Chunks(c.text)
			checkChunks(t, c.text, got)
			if c.want != nil && !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("Chunks = %q, want %q", got, c.want)
			}
			if c.n > 0 && len(got) != c.n {
				t.Fatalf("%d chunks, want %d: %q", len(got), c.n, got)
			}
			for i, chunk := range got { // prose keeps its sentences, or at least its words, whole
				if strings.Contains(c.name, "sentences") && !strings.HasSuffix(chunk, ".") ||
					strings.Contains(c.name, "words") && strings.Trim(strings.NewReplacer("budgets", "", "hiring", "", "roadmap", "", "quarter", "").Replace(chunk), " ") != "" {
					t.Errorf("chunk %d cuts a sentence or word: %q", i, chunk)
				}
			}
			if c.n == 0 && c.want == nil && len(got) < 2 {
				t.Fatalf("%d chunks for a text beyond one chunk", len(got))
			}
		})
	}
}

// TestChunksKeepSentencesWhole checks that a chunk boundary of prose falls between sentences.
func TestChunksKeepSentencesWhole(t *testing.T) {
	ref := loadReference(t)
	var long string
	for _, c := range ref.Texts {
		if strings.HasPrefix(c.Text, "Quire keeps") {
			long = c.Text
		}
	}
	chunks := Chunks(long)
	checkChunks(t, long, chunks)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks for a 176-token text", len(chunks))
	}
	for i, c := range chunks {
		if !strings.HasSuffix(c, ".") {
			t.Errorf("chunk %d does not end a sentence: %q", i, c)
		}
	}
}

func FuzzChunks(f *testing.F) {
	f.Add("Hello, world! How are you? Fine.\nNext line")
	f.Add(strings.Repeat("word ", 300))
	f.Add(strings.Repeat("x", 3000))
	f.Add("ﬁ\u0000\u200b 🍕 \t\n")
	f.Add("\xd4 \x93 invalid UTF-8")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 { // keeps each run fast enough for the fuzzer to minimise what it finds
			return
		}
		checkChunks(t, text, Chunks(text))
	})
}

// TestChunkEntries: entries are cut as their text joined by newlines is, and each piece names
// the entry it starts in: a short entry packed after another belongs to the earlier one's piece,
// and a long entry's later pieces keep its index.
func TestChunkEntries(t *testing.T) {
	long := strings.Repeat("A sentence of filler words that goes on. ", 40)
	for _, tc := range []struct {
		name    string
		entries []string
		want    []int
	}{
		{"none", nil, nil},
		{"blank entries", []string{" ", "", "\n"}, nil},
		{"packed", []string{"First line.", "Second line.", "Third."}, []int{0}},
		{"blank then text", []string{"", "  ", "Text here."}, []int{2}},
		{"long entry splits", []string{"Intro.", long, "Outro."}, []int{0, 1, 1, 1}},
		{"combining mark after a newline", []string{"cafe", "\u0301 accent", "ﬁ ligature"}, []int{0}},
		{"invalid UTF-8", []string{"a\xffb", "\xfe"}, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ChunkEntries(tc.entries)
			var texts []string
			var entries []int
			for _, c := range got {
				texts = append(texts, c.Text)
				entries = append(entries, c.Entry)
			}
			if want := Chunks(strings.Join(tc.entries, "\n")); !slices.Equal(texts, want) {
				t.Fatalf("texts %q\nwant %q (Chunks of the joined text)", texts, want)
			}
			if !slices.Equal(entries, tc.want) {
				t.Fatalf("entries %v, want %v (chunks %q)", entries, tc.want, texts)
			}
		})
	}
}
