package service_test

import (
	"database/sql"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// wordVocabulary is n distinct words of three consonant-vowel syllables ("bakotu"): all of one
// length, so no word is a substring of another and a word's matches are its occurrences.
func wordVocabulary(r *rand.Rand, n int) []string {
	const consonants, vowels = "bdfghklmnprstvz", "aeiou"
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		for range 3 {
			b.WriteByte(consonants[r.IntN(len(consonants))])
			b.WriteByte(vowels[r.IntN(len(vowels))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// wordCorpus is the workspace of BenchmarkKeywordSearchWords, its caller, and two words that
// each occur in about 0.6% of its paragraphs.
type wordCorpus struct {
	Token, Word, Word2 string
}

// seedWords writes, through the service, 1,000 pages of 100 paragraphs, each paragraph 12
// words drawn at random from 2,000, so that a word is in about 0.6% of the 100,000 paragraphs
// (about 600, on about 450 pages).
func seedWords(b *testing.B, svc *service.Service, p *quire.Principal) (word, word2 string) {
	const pages, perPage, words, vocabulary = 1000, 100, 12, 2000
	r := rand.New(rand.NewPCG(15, 6))
	vocab := wordVocabulary(r, vocabulary)
	counts := map[string]int{}
	for range pages {
		page := newPage(b, svc, p)
		children := make([]any, perPage)
		for i := range children {
			text := make([]string, words)
			seen := map[string]bool{}
			for k := range text {
				text[k] = vocab[r.IntN(len(vocab))]
				if !seen[text[k]] {
					seen[text[k]] = true
					counts[text[k]]++
				}
			}
			children[i] = paragraphs(1, strings.Join(text, " "))[0]
		}
		if _, _, err := svc.AppendChildren(ctx, p, page.ID, children, service.Placement{}); err != nil {
			b.Fatal(err)
		}
	}
	// The first two words of the vocabulary with about the typical count.
	for _, w := range vocab {
		if c := counts[w]; c >= 580 && c <= 620 {
			if word == "" {
				word = w
			} else if word2 == "" {
				word2 = w
			}
		}
	}
	b.Logf("%q in %d paragraphs, %q in %d", word, counts[word], word2, counts[word2])
	return word, word2
}

// BenchmarkKeywordSearchWords is issue 15's keyword search row through Service.Search, on the
// corpus of seedWords, page_size 20 (target on SQLite: p50 ≤ 3 ms). Run with
//
//	go test ./internal/service -run '^$' -bench KeywordSearchWords -benchtime 200x
//
// With QUIRE_BENCH_STORE set to a folder, SQLite's store lives there and keeps the corpus
// (words.json names its token and words) for the runs after it.
func BenchmarkKeywordSearchWords(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			st, _, pgURL := openBenchStore(b, e.name)
			svc, p, secret := callerToken(b, st)
			var c wordCorpus
			keep := ""
			if dir := os.Getenv("QUIRE_BENCH_STORE"); dir != "" && e.name == "sqlite" {
				keep = filepath.Join(dir, "words.json")
			}
			if raw, err := os.ReadFile(keep); keep != "" && err == nil {
				if err := json.Unmarshal(raw, &c); err != nil {
					b.Fatal(err)
				}
				if p, err = svc.Authenticate(ctx, "Bearer "+c.Token); err != nil {
					b.Fatal(err)
				}
			} else {
				start := time.Now()
				c.Token = secret
				c.Word, c.Word2 = seedWords(b, svc, p)
				if pgURL != "" {
					vacuumAnalyze(b, pgURL)
				}
				b.Logf("%s: seeded in %s", e.name, time.Since(start).Round(time.Second))
				if keep != "" {
					raw, _ := json.Marshal(c)
					if err := os.WriteFile(keep, raw, 0o600); err != nil {
						b.Fatal(err)
					}
				}
			}
			// The store's upkeep indexes the entries and merges the index segments the writes
			// left, on this process's CPU: let it finish before anything is timed.
			if _, err := st.IndexSearch(ctx); err != nil {
				b.Fatal(err)
			}
			time.Sleep(2 * time.Second)
			debug.FreeOSMemory()
			for _, tc := range []struct {
				name string
				req  service.SearchRequest
			}{
				{"word", service.SearchRequest{Query: c.Word, PageSize: 20}},
				{"word-by-created", service.SearchRequest{Query: c.Word, PageSize: 20, SortBy: "created_time"}},
				{"two-words", service.SearchRequest{Query: c.Word + " " + c.Word2, PageSize: 20}},
			} {
				b.Run(tc.name, func(b *testing.B) {
					var n int
					timedServer(b, pgURL, func() {
						pg, err := svc.Search(ctx, p, tc.req)
						if err != nil {
							b.Fatal(err)
						}
						n = len(pg.Items)
					})
					b.ReportMetric(float64(n), "results")
				})
			}
		})
	}
}

// vacuumAnalyze is what autovacuum does after a bulk load: the planner's statistics.
func vacuumAnalyze(b *testing.B, url string) {
	b.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
}
