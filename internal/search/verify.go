package search

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// A lone word whose trigrams differ much in how common they are is looked up in FTS5 by its
// rare pieces (planTrigrams), and the candidate entries must still hold the whole word. The
// lookup tested every candidate's text as it read them (a join of search_docs and a LIKE): for
// the speed table's words (in 600 of 100,000 paragraphs, one trigram in half of them) that was
// 600 rows sought in search_docs a search, three quarters of the lookup's CPU, where the answer
// is the first 20 pages in result order (docs/performance.md, "Keyword search, eighth pass").
// Now the lookup reads FTS5's rowids alone, their nodes from EntryNodes as a whole-phrase
// lookup does, and keeps each candidate node's entries; only the candidates of the nodes a
// segment answers are tested (firstListed), or all of them when the segment reads its list by id
// (verifyAll). The answers are those of the join: the same entries tested by the same LIKE.

// verifyLater reports whether SQLite's lookup of terms in the blocks' index reads FTS5's
// candidates alone and leaves their test by substring to verifyAll or firstListed: every term
// is of three characters or more and some term is not matched whole by the pieces looked up.
func (r *run) verifyLater(terms []string, titles bool) bool {
	if r.d != SQLite || titles || r.trigrams == nil {
		return false
	}
	if _, short := longTerms(terms); len(short) > 0 {
		return false
	}
	return len(r.trigrams[ftsIndex(titles)].verify) > 0
}

// ftsMatchOf is the WHERE of an FTS5 lookup of plan's pieces in index fts, ANDed, each a
// quoted string (a trigram phrase is a substring).
func ftsMatchOf(fts string, plan ftsPlan, a *sqlq.Args) string {
	q := make([]string, len(plan.pieces))
	for i, t := range plan.pieces {
		q[i] = ftsString(t)
	}
	return fts + " MATCH " + a.Arg(strings.Join(q, " AND "))
}

// unverified are the block entries (rids, by node) that FTS5 listed as candidates and whose
// text is still to be tested for the terms (verifyLater); a node listed by the tail (the
// entries above the indexes' mark, tested by substring as they were read) is not among them.
type unverified map[string][]int64

// verified returns those of nodes (each with entries in u) with an entry that holds every
// term the blocks' plan verifies, testing their candidate entries in one statement, each
// read by the primary key (TestSearchVerifyLaterPlans).
func (r *run) verified(ctx context.Context, u unverified, nodes []string) (map[string]bool, error) {
	var rids []int64
	for _, id := range nodes {
		rids = append(rids, u[id]...)
	}
	list, _ := json.Marshal(rids)
	a := sqlq.NewArgs(string(list))
	conds := make([]string, 0, len(r.trigrams[1].verify))
	for _, t := range r.trigrams[1].verify {
		conds = append(conds, r.entryContains(r.entryText("d"), t, a))
	}
	rows, err := r.db.QueryContext(ctx, `SELECT DISTINCT d.node_id FROM search_docs d
		WHERE d.rid IN (SELECT value FROM json_each($1)) AND `+strings.Join(conds, " AND "), a.List...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ok := make(map[string]bool, len(nodes))
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ok[id] = true
	}
	return ok, rows.Err()
}

// verifyAll tests every node still unverified and takes those that fail out of bodies, for a
// segment that reads its list whole (by id, or a prefix of the nodes).
func (r *run) verifyAll(ctx context.Context, bodies map[string]bool) error {
	if len(r.unverified) == 0 {
		return nil
	}
	nodes := make([]string, 0, len(r.unverified))
	for id := range r.unverified {
		nodes = append(nodes, id)
	}
	ok, err := r.verified(ctx, r.unverified, nodes)
	if err != nil {
		return err
	}
	for _, id := range nodes {
		if !ok[id] {
			delete(bodies, id)
		}
	}
	r.unverified = nil
	return nil
}
