package search

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/sqlq"
)

// FTS5 intersects the trigram lists of a phrase in step: every rowid that one list offers is
// sought in all the others. A common trigram's list ("tok" in every block) spans a thousand
// pages, and seeking in it costs a page read and a scan within the page, so a selective term
// made partly of common trigrams ("tok424242") spent 11 ms of its 20 ms there. The lookup below
// asks FTS5 only for the term's rare parts and checks the candidate entries by substring.
const (
	// trigramSample is how many entries of each trigram's list are read to estimate how common
	// it is: the gaps between their rowids give its density.
	trigramSample = 32
	// rareRatio: a trigram at most this many times as dense as the rarest one is looked up.
	rareRatio = 4
	// phraseRatio: a term all of whose trigrams are at most this many times as dense as the
	// rarest is looked up as its whole phrase (wholePhrase).
	phraseRatio = 16
	// maxSampled bounds the trigrams sampled for one query (a long quoted phrase has many).
	maxSampled = 24
)

// ftsPlan is what a trigram lookup asks FTS5 (pieces: substrings of the terms, ANDed) and which
// terms the candidate entries must still be checked for by substring (verify).
type ftsPlan struct {
	pieces, verify []string
	none           bool // a trigram occurs nowhere: no entry can match
	// rarest is the rarest trigram sampled, and rarestCount how many entries hold it when its
	// whole list was read (-1: more than trigramSample): no more entries than that can match.
	rarest      string
	rarestCount int
	// rarestMost is about how many entries hold the rarest trigram, from its sample's density
	// (which a term packed into a few pages overstates).
	rarestMost float64
	// top is the highest rowid of any entry when sampled: the span the lists' rowids are in.
	top int64
}

// ftsIndexes are SQLite's two trigram indexes, in the order trigramPlans samples them.
var ftsIndexes = [2]string{"search_title_fts", "search_fts"}

// planTrigrams chooses, from the density of each term's trigrams in index fts, the pieces to
// look up: the runs of rare trigrams (at most rareRatio times as dense as the rarest). A term
// covered by one run is matched by FTS5 alone; the others are verified by substring. When every
// trigram is about as common as the rarest, the plan is the terms themselves.
//
// Both indexes are sampled by the first call, in one statement (a search asks the titles' index
// and then the blocks'), and the plans are kept for the run, whose terms do not change.
func (r *run) planTrigrams(ctx context.Context, fts string, terms []string) (ftsPlan, error) {
	if r.trigrams == nil {
		plans, err := r.trigramPlans(ctx, terms)
		if err != nil {
			return ftsPlan{}, err
		}
		r.trigrams = &plans
	}
	if fts == ftsIndexes[0] {
		return r.trigrams[0], nil
	}
	return r.trigrams[1], nil
}

// trigramPlans samples the trigrams of terms in both indexes (ftsIndexes), in one statement for
// those q.Samples does not keep for the indexes' present state, and plans each (planTrigrams).
func (r *run) trigramPlans(ctx context.Context, terms []string) (plans [2]ftsPlan, err error) {
	perTerm := make([][]int, len(terms)) // per term and trigram position: the sampled gram, or -1
	var sampled []string
	byText := map[string]int{}
	budget := maxSampled
	for i, t := range terms {
		r := []rune(t)
		n := len(r) - 2
		// Spread a term's share of the budget over its length; unsampled trigrams count as
		// common (never looked up).
		share := max(1, budget/(len(terms)-i))
		step := max(1, (n+share-1)/share)
		perTerm[i] = make([]int, n)
		for k := range perTerm[i] {
			perTerm[i][k] = -1
		}
		for k := 0; k < n && budget > 0; k += step {
			text := strings.ToLower(string(r[k : k+3]))
			g, ok := byText[text]
			if !ok {
				g = len(sampled)
				byText[text] = g
				sampled = append(sampled, text)
				budget--
			}
			perTerm[i][k] = g
		}
	}
	top, version, err := r.sampleVersion(ctx)
	if err != nil {
		return plans, err
	}
	kept, found := r.q.Samples.get(version, sampled)
	var missing []int // the sampled grams not kept: sampled now
	for g := range sampled {
		if !found[g] {
			missing = append(missing, g)
		}
	}
	if len(missing) > 0 {
		if err := r.sampleGrams(ctx, sampled, missing, kept); err != nil {
			return plans, err
		}
		grams := make([]string, len(missing))
		lists := make([][2][]int64, len(missing))
		for k, g := range missing {
			grams[k], lists[k] = sampled[g], kept[g]
		}
		r.q.Samples.put(version, grams, lists)
	}
	var rowids [2][][]int64
	for x := range rowids {
		rowids[x] = make([][]int64, len(sampled))
		for g := range sampled {
			rowids[x][g] = kept[g][x]
		}
	}
	for x := range plans {
		plans[x] = planFromSample(terms, perTerm, sampled, rowids[x], top)
	}
	return plans, nil
}

// sampleGrams reads the first rowids of the grams sampled[g], g in missing, in both indexes
// (ftsIndexes), in one statement, into lists[g].
func (r *run) sampleGrams(ctx context.Context, sampled []string, missing []int, lists [][2][]int64) error {
	a := sqlq.NewArgs()
	parts := make([]string, 0, 2*len(missing))
	for k, g := range missing {
		arg := a.Arg(ftsString(sampled[g]))
		for x, fts := range ftsIndexes {
			// k, not g: the text depends on how many grams are sampled alone (it is kept
			// prepared, store/search.go).
			parts = append(parts, `SELECT * FROM (SELECT `+strconv.Itoa(x)+`, `+strconv.Itoa(k)+`, rowid FROM `+fts+` WHERE `+fts+
				` MATCH `+arg+` LIMIT `+strconv.Itoa(trigramSample)+`)`)
		}
	}
	rows, err := r.db.QueryContext(ctx, strings.Join(parts, " UNION ALL "), a.List...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var x, k int
		var rowid int64
		if err := rows.Scan(&x, &k, &rowid); err != nil {
			return err
		}
		lists[missing[k]][x] = append(lists[missing[k]][x], rowid)
	}
	return rows.Err()
}

// planFromSample is the plan of one index from the first rowids of each sampled trigram's list
// (ids, by gram) and the highest rowid of any entry (top).
func planFromSample(terms []string, perTerm [][]int, sampled []string, ids [][]int64, top int64) ftsPlan {
	density := make([]float64, len(sampled))
	rarest := 2.0
	p := ftsPlan{rarestCount: -1, top: top}
	for g, list := range ids {
		switch {
		case len(list) == 0:
			return ftsPlan{none: true}
		case len(list) < trigramSample:
			density[g] = float64(len(list)) / float64(top) // the whole list was read
		default:
			// The median gap, not the span: the first entries of a list may sit apart from the
			// rest (an old page), and the span would count that distance as the list's density.
			gaps := make([]int64, len(list)-1)
			for k := range gaps {
				gaps[k] = list[k+1] - list[k]
			}
			slices.Sort(gaps)
			density[g] = 1 / float64(gaps[len(gaps)/2])
		}
		if density[g] < rarest {
			rarest, p.rarest, p.rarestCount = density[g], sampled[g], -1
			if len(list) < trigramSample {
				p.rarestCount = len(list)
			}
		}
	}
	p.rarestMost = rarest * float64(top)
	rare := func(g int) bool { return g >= 0 && density[g] <= rarest*rareRatio }
	for i, t := range terms {
		r := []rune(t)
		if len(terms) == 1 && wholePhrase(perTerm[i], density, rarest) {
			// The term's own phrase: its matches are FTS5's, with no text read (entrynodes.go).
			p.pieces = append(p.pieces, t)
			if strings.ContainsRune(t, padRune) {
				p.verify = append(p.verify, t)
			}
			continue
		}
		covered := false
		for k := 0; k < len(perTerm[i]); {
			if !rare(perTerm[i][k]) {
				k++
				continue
			}
			end := k
			for end+1 < len(perTerm[i]) && rare(perTerm[i][end+1]) {
				end++
			}
			p.pieces = append(p.pieces, string(r[k:end+3]))
			covered = k == 0 && end == len(perTerm[i])-1
			k = end + 1
		}
		if !covered || strings.ContainsRune(t, padRune) {
			p.verify = append(p.verify, t)
		}
	}
	return p
}

// wholePhrase reports whether a term whose trigrams were sampled as grams (per position; -1
// not sampled) is looked up as its whole phrase: when every trigram is at most phraseRatio times
// as dense as the rarest. Its matches are then FTS5's alone and their nodes need no row of
// search_docs (entrynodes.go), where the rare pieces' candidates were each sought there and
// tested by substring: for a word in 0.6% of 100,000 paragraphs whose trigrams span 8× and 13×,
// the phrase took 0.7 ms against 1.3–1.8 ms for the pieces, their seeks and the LIKE (the
// sqlite3 shell; docs/performance.md, "Keyword search, seventh pass"). A term with a trigram
// in most entries keeps its rare pieces: FTS5 seeks the phrase's every list at each candidate.
// Only a term alone: the AND of several terms' rare pieces leaves few candidates to seek (two
// words of 600 entries each: 2), where their phrases cost FTS5 every list of both (2.0–3.1 ms
// against 1.7–1.9 ms a search, BenchmarkKeywordSearchWords/sqlite/two-words).
func wholePhrase(grams []int, density []float64, rarest float64) bool {
	for _, g := range grams {
		if g < 0 || density[g] > rarest*phraseRatio {
			return false
		}
	}
	return len(grams) > 0
}

// longTerms splits terms into those of three characters or more (the trigram index can look
// them up) and the shorter ones.
func longTerms(terms []string) (long, short []string) {
	for _, t := range terms {
		if utf8.RuneCountInString(t) >= 3 {
			long = append(long, t)
		} else {
			short = append(short, t)
		}
	}
	return long, short
}

// ftsString quotes s as an FTS5 string: matched as a phrase of its trigrams, never as syntax.
func ftsString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
