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
}

// planTrigrams chooses, from the density of each term's trigrams in index fts, the pieces to
// look up: the runs of rare trigrams (at most rareRatio times as dense as the rarest). A term
// covered by one run is matched by FTS5 alone; the others are verified by substring. When every
// trigram is about as common as the rarest, the plan is the terms themselves.
func (r *run) planTrigrams(ctx context.Context, fts string, terms []string) (ftsPlan, error) {
	type gram struct {
		text    string
		density float64
	}
	perTerm := make([][]*gram, len(terms))
	var sampled []*gram
	byText := map[string]*gram{}
	budget := maxSampled
	for i, t := range terms {
		r := []rune(t)
		n := len(r) - 2
		// Spread a term's share of the budget over its length; unsampled trigrams count as
		// common (never looked up).
		share := max(1, budget/(len(terms)-i))
		step := max(1, (n+share-1)/share)
		perTerm[i] = make([]*gram, n)
		for k := 0; k < n && budget > 0; k += step {
			text := strings.ToLower(string(r[k : k+3]))
			g := byText[text]
			if g == nil {
				g = &gram{text: text}
				byText[text] = g
				sampled = append(sampled, g)
				budget--
			}
			perTerm[i][k] = g
		}
	}
	a := sqlq.NewArgs()
	parts := make([]string, len(sampled))
	for i, g := range sampled {
		parts[i] = `SELECT * FROM (SELECT ` + strconv.Itoa(i) + `, rowid FROM ` + fts + ` WHERE ` + fts + ` MATCH ` +
			a.Arg(ftsString(g.text)) + ` LIMIT ` + strconv.Itoa(trigramSample) + `)`
	}
	query := `SELECT -1, COALESCE(MAX(rid), 0) FROM search_docs UNION ALL ` + strings.Join(parts, " UNION ALL ")
	rows, err := r.db.QueryContext(ctx, query, a.List...)
	if err != nil {
		return ftsPlan{}, err
	}
	defer rows.Close()
	var top int64
	rowids := make([][]int64, len(sampled))
	for rows.Next() {
		var i int
		var rowid int64
		if err := rows.Scan(&i, &rowid); err != nil {
			return ftsPlan{}, err
		}
		if i < 0 {
			top = max(rowid, 1)
			continue
		}
		rowids[i] = append(rowids[i], rowid)
	}
	if err := rows.Err(); err != nil {
		return ftsPlan{}, err
	}
	rarest := 2.0
	p := ftsPlan{rarestCount: -1}
	for i, g := range sampled {
		ids := rowids[i]
		switch {
		case len(ids) == 0:
			return ftsPlan{none: true}, nil
		case len(ids) < trigramSample:
			g.density = float64(len(ids)) / float64(top) // the whole list was read
		default:
			// The median gap, not the span: the first entries of a list may sit apart from the
			// rest (an old page), and the span would count that distance as the list's density.
			gaps := make([]int64, len(ids)-1)
			for k := range gaps {
				gaps[k] = ids[k+1] - ids[k]
			}
			slices.Sort(gaps)
			g.density = 1 / float64(gaps[len(gaps)/2])
		}
		if g.density < rarest {
			rarest, p.rarest, p.rarestCount = g.density, g.text, -1
			if len(ids) < trigramSample {
				p.rarestCount = len(ids)
			}
		}
	}
	p.rarestMost = rarest * float64(top)
	for i, t := range terms {
		r := []rune(t)
		covered := false
		for k := 0; k < len(perTerm[i]); {
			if g := perTerm[i][k]; g == nil || g.density > rarest*rareRatio {
				k++
				continue
			}
			end := k
			for end+1 < len(perTerm[i]) && perTerm[i][end+1] != nil && perTerm[i][end+1].density <= rarest*rareRatio {
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
	return p, nil
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

// fewerThan reports whether trigram gram occurs in fewer than n entries of index fts: its list is
// read up to n rowids, without the phrase checks and table reads of a match.
func (r *run) fewerThan(ctx context.Context, fts, gram string, n int) (bool, error) {
	var got int
	err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT rowid FROM `+fts+` WHERE `+fts+` MATCH $1 LIMIT +$2) AS g`,
		ftsString(gram), n).Scan(&got) // +$2: see limit
	return got < n, err
}

// ftsString quotes s as an FTS5 string: matched as a phrase of its trigrams, never as syntax.
func ftsString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
