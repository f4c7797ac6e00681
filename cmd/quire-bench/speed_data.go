package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The data shapes of issue 15's speed table, at --scale 1.
const (
	speedRecords       = 100_000 // records of the query database
	speedPages         = 1_000   // corpus pages under one top-level page
	speedParagraphs    = 100     // paragraphs per corpus page
	speedLongPage      = 10_000  // paragraphs of the page whose first children are listed
	speedWords         = 12      // words per corpus paragraph
	speedVocabulary    = 2_000   // distinct corpus words
	speedSelectOptions = 20      // options of Sel: the query's opt7 matches 1 in 20
	speedTagOptions    = 10      // options of Tags; every record has two
	speedTargets       = 64      // fresh pages the measured appends grow
	speedSearchWords   = 10      // WORDs the search row asks for
)

// speedSize is the data of one run: the shapes times --scale.
type speedSize struct {
	Scale    float64 `json:"scale"`
	Records  int     `json:"records"`
	Pages    int     `json:"pages"`
	LongPage int     `json:"long_page_paragraphs"`
}

// sizeAt scales the shapes, keeping at least one page and record of each kind.
func sizeAt(scale float64) speedSize {
	n := func(full int) int { return max(1, int(math.Round(float64(full)*scale))) }
	return speedSize{Records: n(speedRecords), Pages: n(speedPages), LongPage: n(speedLongPage), Scale: scale}
}

// vocabulary is the corpus's 2,000 words: six letters of three consonant-vowel syllables each,
// so that none is a substring of another (SQLite's search matches trigrams, substrings), and
// none occurs in the English text of the other pages, records and appends, so that a WORD's
// paragraphs are exactly the corpus paragraphs that contain it.
var vocabulary = func() []string {
	cons, vows := "bdfgklmnprstvz", "aeiou"
	var english strings.Builder
	for _, t := range topics {
		english.WriteString(strings.ToLower(t.name + " " + strings.Join(t.nouns, " ") + " " + t.semantic + " "))
	}
	english.WriteString(strings.Join(verbs, " ") + " the team for after and notes on ticket friday we by record ")
	var all []string
	for _, c1 := range cons {
		for _, v1 := range vows {
			for _, c2 := range cons {
				for _, v2 := range vows {
					for _, c3 := range cons[:4] {
						w := string([]rune{c1, v1, c2, v2, c3, 'o'})
						if !strings.Contains(english.String(), w) {
							all = append(all, w)
						}
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(2000, 15))
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:speedVocabulary]
}()

// corpusParagraph is paragraph j of corpus page p: 12 words drawn uniformly from the
// vocabulary, so that each word is in about 1-(1-1/2000)^12 ≈ 0.6% of the paragraphs.
func corpusParagraph(p, j int) string {
	r := rand.New(rand.NewPCG(uint64(p), uint64(j)+1))
	ws := make([]string, speedWords)
	for i := range ws {
		ws[i] = vocabulary[r.IntN(len(vocabulary))]
	}
	return capitalize(strings.Join(ws, " ")) + "."
}

// wordCounts counts, per vocabulary word, the corpus paragraphs (of pages) that contain it.
func wordCounts(pages int) map[string]int {
	counts := make(map[string]int, len(vocabulary))
	for p := range pages {
		for j := range speedParagraphs {
			seen := map[string]bool{}
			for _, w := range strings.Fields(strings.ToLower(strings.TrimSuffix(corpusParagraph(p, j), "."))) {
				if !seen[w] {
					seen[w] = true
					counts[w]++
				}
			}
		}
	}
	return counts
}

// searchWords picks the n words whose share of paragraphs is nearest 0.6% (ties by word, so
// the choice is the same on every run), with their paragraph counts.
func searchWords(pages, n int) ([]string, map[string]int) {
	counts := wordCounts(pages)
	total := float64(pages * speedParagraphs)
	words := slices.Clone(vocabulary)
	dist := func(w string) float64 { return math.Abs(float64(counts[w])/total - 0.006) }
	slices.SortFunc(words, func(a, b string) int {
		if d := dist(a) - dist(b); d != 0 {
			return int(math.Copysign(1, d))
		}
		return strings.Compare(a, b)
	})
	words = words[:n]
	picked := make(map[string]int, n)
	for _, w := range words {
		picked[w] = counts[w]
	}
	return words, picked
}

// recordNumber is record i's Num: spread over 0–999,999, not in insertion order.
func recordNumber(i int) int { return int((uint64(i)*2654435761 + 12345) % 1_000_000) }

// recordSelect is record i's Sel option: opt0…opt19 from a hash of i, so that about 5% of the
// records have each and they are spread over the insertion order.
func recordSelect(i int) string {
	h := uint64(i)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	h ^= h >> 29
	return fmt.Sprintf("opt%d", (h*0xBF58476D1CE4E5B9>>32)%speedSelectOptions)
}

// recordProperties are record i's ten values. users are the people a record may name.
func recordProperties(i int, users []string) map[string]any {
	r := rand.New(rand.NewPCG(uint64(i), 16))
	t := topics[i%len(topics)]
	a := r.IntN(speedTagOptions)
	b := (a + 1 + r.IntN(speedTagOptions-1)) % speedTagOptions
	stages := []string{"Not started", "In progress", "Done"}
	return map[string]any{
		"Name":  map[string]any{"title": richText(fmt.Sprintf("Record %d: %s", i+1, capitalize(pick(r, t.nouns))))},
		"Text":  map[string]any{"rich_text": richText(sentence(r, t, i))},
		"Num":   map[string]any{"number": recordNumber(i)},
		"Sel":   map[string]any{"select": map[string]any{"name": recordSelect(i)}},
		"Tags":  map[string]any{"multi_select": []any{map[string]any{"name": fmt.Sprintf("tag%d", a)}, map[string]any{"name": fmt.Sprintf("tag%d", b)}}},
		"Due":   map[string]any{"date": map[string]any{"start": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(365)).Format("2006-01-02")}},
		"Done":  map[string]any{"checkbox": r.IntN(2) == 0},
		"Link":  map[string]any{"url": fmt.Sprintf("https://example.com/records/%d", i+1)},
		"Stage": map[string]any{"status": map[string]any{"name": stages[r.IntN(len(stages))]}},
		"Owner": map[string]any{"people": []any{map[string]any{"object": "user", "id": users[r.IntN(len(users))]}}},
	}
}

// speedSchema is the query database's ten properties.
func speedSchema() map[string]any {
	opts := func(prefix string, n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"name": fmt.Sprintf("%s%d", prefix, i)}
		}
		return out
	}
	return map[string]any{
		"Name": map[string]any{"title": map[string]any{}}, "Text": map[string]any{"rich_text": map[string]any{}},
		"Num":   map[string]any{"number": map[string]any{"format": "number"}},
		"Sel":   map[string]any{"select": map[string]any{"options": opts("opt", speedSelectOptions)}},
		"Tags":  map[string]any{"multi_select": map[string]any{"options": opts("tag", speedTagOptions)}},
		"Due":   map[string]any{"date": map[string]any{}},
		"Done":  map[string]any{"checkbox": map[string]any{}},
		"Link":  map[string]any{"url": map[string]any{}},
		"Stage": map[string]any{"status": map[string]any{}},
		"Owner": map[string]any{"people": map[string]any{}},
	}
}

// speedQueryBody is the query: Sel equals opt7, sorted by Num, 100 per page.
func speedQueryBody() string {
	return `{"filter":{"property":"Sel","select":{"equals":"opt7"}},"sorts":[{"property":"Num","direction":"ascending"}],"page_size":100}`
}

// opt7Records counts the first n records whose Sel is opt7: what the query must match.
func opt7Records(n int) int {
	c := 0
	for i := range n {
		if recordSelect(i) == "opt7" {
			c++
		}
	}
	return c
}

// newRand is a generator seeded by seed on stream: the same data on every run.
func newRand(seed int, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(uint64(seed), stream)) }
