package search

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/sqlq"
)

// padRune follows every entry's text in the FTS5 indexes, twice (migration 00015), so that
// every occurrence of a substring of one or two characters starts a trigram. A search term that
// holds it is always checked by substring: a trigram with padding matches the end of a text.
const padRune = '\x01'

// shortCandidates reads, from the trigram list of index fts (its fts5vocab table), the entries
// that may hold one of terms (each under three characters): an occurrence of a term is the
// start of a trigram, so they are the entries of the trigrams from the term on. A term is
// sparse when it has at most limit occurrences; the entries are those of the first sparse term
// (they must still be checked by substring for every term: the trigrams fold case and carry
// padding). dense: every term has more, and the index gives no short list.
func (r *run) shortCandidates(ctx context.Context, fts string, terms []string, limit int) (rids []int64, dense bool, err error) {
	vocab := map[string]string{"search_fts": "search_fts_terms", "search_title_fts": "search_title_terms"}[fts]
	// Two characters say more than one.
	terms = slices.Clone(terms)
	slices.SortStableFunc(terms, func(a, b string) int { return utf8.RuneCountInString(b) - utf8.RuneCountInString(a) })
terms:
	for _, t := range terms {
		var docs []int64
		for _, from := range indexForms(t) {
			rows, err := r.db.QueryContext(ctx, `SELECT doc FROM `+vocab+` WHERE term >= $1 AND term <= $2 LIMIT +$3`,
				from, from+"\U0010FFFF\U0010FFFF", limit+1-len(docs))
			if err != nil {
				return nil, false, err
			}
			for rows.Next() {
				var doc int64
				if err := rows.Scan(&doc); err != nil {
					rows.Close()
					return nil, false, err
				}
				docs = append(docs, doc)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, false, err
			}
			if len(docs) > limit {
				continue terms
			}
		}
		slices.Sort(docs)
		return slices.Compact(docs), false, nil
	}
	return nil, true, nil
}

// indexForms are the forms term may take in a trigram index. FTS5 folds case by a table of its
// own (it keeps İ, which Go lowers to i), so for a letter beyond ASCII every form of its case
// is looked up; an ASCII letter is lower case there.
func indexForms(term string) []string {
	out := []string{""}
	for _, r := range term {
		forms := []string{string(foldRune(r))}
		if r >= utf8.RuneSelf {
			forms = foldForms(foldRune(r))
		}
		next := make([]string, 0, len(out)*len(forms))
		for _, p := range out {
			for _, f := range forms {
				if len(f) == 1 && 'A' <= f[0] && f[0] <= 'Z' {
					continue // I for İ: the index has ASCII in lower case
				}
				next = append(next, p+f)
			}
		}
		out = next
	}
	return out
}

// shortMatch is indexMatch for terms all under three characters, on SQLite: the entries among
// shortCandidates that hold every term. ok is false when every term is dense.
func (r *run) shortMatch(ctx context.Context, terms []string, titles bool, limit int, a *sqlq.Args) (from, where string, ok, none bool, err error) {
	fts := "search_fts"
	if titles {
		fts = "search_title_fts"
	}
	rids, dense, err := r.shortCandidates(ctx, fts, terms, limit)
	if err != nil || dense {
		return "", "", false, false, err
	}
	if len(rids) == 0 {
		return "", "", true, true, nil
	}
	list, err := json.Marshal(rids)
	if err != nil {
		return "", "", false, false, err
	}
	// One statement text for any number of candidates (the statement cache keeps it).
	conds := []string{"d.rid IN (SELECT value FROM json_each(" + a.Arg(string(list)) + "))"}
	for _, t := range terms {
		conds = append(conds, r.contains("d.text", t, a))
	}
	return "search_docs d", strings.Join(conds, " AND "), true, false, nil
}
