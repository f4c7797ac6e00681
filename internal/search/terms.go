package search

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// denseAfter is how many matching entries the index is read for at first: when it lists fewer,
// those are every match, gathered from the index; when it has more, the term set is "dense" and
// a search walks the nodes in result order, checking each for a match (it stops as soon as a
// page of results is found), unless the entries are few (entriesPerNode).
const denseAfter = 200

// entriesPerNode × denseAfter (5,000) is how many matching block entries the index is read for
// when its rarest trigram occurs in fewer entries than that (SQLite; the count reads that
// trigram's list alone), or after PostgreSQL's probe. A list the index ends within that bound
// holds every match, on however many nodes: a term in 350 blocks of one long page is one match,
// which the walk took 8–12 ms to learn at 10,000 blocks and 70–90 ms at 100,000 (it read 20,000
// entries looking for more), and a word in 0.6% of 100,000 blocks is on 450 of 1,000 pages,
// which the walk found by reading 4,700 entries one by one (20 ms of CPU a search, against 5 ms
// from the list; issue 15). Otherwise denseAfter entries are read: reading thousands of matches
// of a common term, to walk after all, cost 6–8 ms at a million blocks.
const entriesPerNode = 25

// Relevance tiers: the title matches, or only some block does.
const (
	tierTitle   = 2
	tierContent = 1
)

// byIDNodes is how many listed nodes are read by id and sorted; more are found by walking the
// workspace's nodes in result order, testing each id against the list (on SQLite in Go,
// firstListed, and then only the page of results is read by id): a word in 0.6% of 100,000
// blocks is on 450 of 1,000 pages, and the first 21 of them come within the first 50 nodes.
const byIDNodes = 200

// probeNodes is how many nodes, in result order, a search on PostgreSQL checks one by one before
// it asks the trigram index for the matching blocks: a common term fills a page of results among
// the first few nodes, and a GIN bitmap of a million entries costs far more than that. SQLite
// does not probe: FTS5 streams its matches, so asking for at most denseAfter of them costs less
// than checking 50 pages' blocks by substring (5,000 entries in the 1M benchmark: 6 ms of a
// selective term's 8). A term that a sample says is rare skips it (estimate.go).
const probeNodes = 50

// searchTerms answers a search with terms. Results are ordered by tier (with ByRelevance), then
// the chosen time and id, each a column of the node alone, so every plan below gives one order
// and a cursor walk stays exact while other content changes:
//
//   - titles: the titles' own trigram index gives the matching nodes when it lists them all
//     (indexMatches); otherwise the nodes are walked in order, checking each title;
//   - blocks: on PostgreSQL, first the next probeNodes nodes in result order are checked one by
//     one against their own entries (a common term fills the page here); if that does not fill
//     the page, the trigram index gives the nodes with a matching block when it lists every
//     matching entry within its bound (sparse; the nodes are then read by id, or found by a walk
//     of the nodes testing ids: byIDNodes), and otherwise the walk goes on, unbounded, until the
//     page is full (dense). Terms all shorter than three characters are looked up on SQLite by
//     the trigrams they start (shortMatch); on PostgreSQL they have no trigram to look up: walk.
func (r *run) searchTerms(ctx context.Context, q Query) ([]Result, *Key, error) {
	dense := cmp.Or(q.Tuning.DenseAfter, denseAfter)
	titles, err := r.hintedTitles(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	// blocks answers the content part: the probe, then the index or the walk.
	blocks := func(tier int, after *Key, limit int) ([]Result, *Key, error) {
		probe := q.Tuning.Probe
		outcome, looked := lookupUnknown, false // looked: the content statement has run
		if q.Hints.ContentDense && tier == tierContent {
			// KeywordAtOnce's lookup reached its bound: walk, as after lookupDense below.
			probe, outcome, looked = -1, lookupDense, true
		}
		if probe == 0 && r.d == Postgres {
			probe = probeNodes
			if long, _ := longTerms(q.Terms); len(long) > 0 && !q.Hints.NotRare {
				// The index has trigrams to look up: a rare term skips the probe (estimate.go),
				// estimated in the statement that looks it up (pglookup.go) where that runs.
				res, o, err := r.contentFromIndex(ctx, q, tier, titles, after, limit, dense, true)
				switch {
				case err != nil || o == lookupComplete:
					return res, nil, err
				case o == lookupSkipped:
					rare, err := r.rareOnPostgres(ctx, q, after)
					if err != nil {
						return nil, nil, err
					}
					if rare {
						probe = 0
					}
				case o != lookupNotRare:
					probe, outcome, looked = 0, o, true
				}
			}
		}
		if probe > 0 {
			res, full, _, err := r.searchSegment(ctx, q, tier, &matches{titles: titles}, after, limit, probe)
			if err != nil || full {
				return res, nil, err
			}
		}
		var bodies map[string]bool // nil: dense, the walk answers
		if r.d == Postgres && !looked {
			res, o, err := r.contentFromIndex(ctx, q, tier, titles, after, limit, dense, false)
			if err != nil || o == lookupComplete {
				return res, nil, err
			}
			outcome = o
		}
		if outcome == lookupUnknown || outcome == lookupSkipped {
			b, err := r.indexMatches(ctx, q.Terms, false, dense)
			if err != nil {
				return nil, nil, err
			}
			bodies = b
		}
		res, _, resume, err := r.searchSegment(ctx, q, tier, &matches{titles: titles, bodies: bodies}, after, limit, 0)
		return res, resume, err
	}
	if q.Order != ByRelevance {
		return blocks(0, q.After, q.Limit)
	}
	var out []Result
	if q.After == nil || q.After.Tier >= tierTitle {
		res, _, resume, err := r.searchSegment(ctx, q, tierTitle, &matches{titles: titles}, q.After, q.Limit, 0)
		if err != nil || resume != nil || len(res) == q.Limit {
			return res, resume, err
		}
		out = res
		q.After = nil
	}
	res, resume, err := blocks(tierContent, q.After, q.Limit-len(out))
	if err != nil {
		return nil, nil, err
	}
	return append(out, res...), resume, nil
}

// indexMatches reads, from a trigram index, the nodes whose title (titles) or some block holds
// every term, from fewer than denseAfter entries (entriesPerNode times as many when indexMatch
// says they are few): every such node when the index listed fewer entries than that, however
// many nodes they are on, unless Tuning.DenseAfter caps the nodes too. nil means more (dense),
// or that the index has nothing to look up.
func (r *run) indexMatches(ctx context.Context, terms []string, titles bool, denseAfter int) (map[string]bool, error) {
	a := sqlq.NewArgs()
	src, where, few, ok, none, err := r.indexMatch(ctx, terms, titles, denseAfter, a)
	if err != nil || !ok {
		return nil, err
	}
	if none {
		// No indexed entry matches; one above the indexes' mark may (tail.go).
		return r.withUnindexed(ctx, terms, titles, map[string]bool{})
	}
	entries := denseAfter
	if few != notFew || r.d == Postgres && !titles {
		// PostgreSQL has no cheap count to say the entries are few, but it asks the index for
		// blocks only after its probe found the term on too few of the first nodes, and the GIN
		// bitmap is built whole before the first row whatever the LIMIT: reading up to
		// entriesPerNode times as many rows costs their recheck alone and spares the walk.
		// Titles are asked first, with no probe: a common word in the titles of 100,000
		// records is read for denseAfter rows, not 5,000, before their walk.
		entries = entriesPerNode * denseAfter
	}
	field := "body"
	if titles {
		field = "title"
	}
	fieldCol := "d.field"
	if r.d == Postgres {
		// An expression, not the column: PostgreSQL would otherwise read every entry's
		// (node_id, field) from search_docs_node to test the field, rather than the trigram
		// index for the text.
		fieldCol = "(d.field || '')"
	}
	if r.ftsAlone(terms, titles) {
		// The MATCH is the whole test: the nodes come from the rowids (entrynodes.go).
		set, dense, err := r.ftsMatches(ctx, `SELECT f.rowid FROM `+ftsOf(titles)+` f WHERE `+where, a.List, titles, entries, denseAfter, few, nil)
		if err != nil || dense || r.q.Tuning.DenseAfter != 0 && len(set) >= denseAfter {
			return nil, err
		}
		return r.withUnindexed(ctx, terms, titles, set)
	}
	if r.verifyLater(terms, titles) {
		// The candidates' nodes from the rowids, their text tested later (verify.go).
		a := sqlq.NewArgs()
		where := ftsMatchOf(ftsOf(titles), r.trigrams[ftsIndex(titles)], a)
		u := unverified{}
		set, dense, err := r.ftsMatches(ctx, `SELECT f.rowid FROM `+ftsOf(titles)+` f WHERE `+where, a.List, titles, entries, denseAfter, few, u)
		if err != nil || dense || r.q.Tuning.DenseAfter != 0 && len(set) >= denseAfter {
			return nil, err
		}
		if set, err = r.withUnindexed(ctx, terms, titles, set); err != nil {
			return nil, err
		}
		for id := range r.tail[ftsIndex(titles)] {
			delete(u, id) // an entry above the mark holds the terms: tested as it was read
		}
		r.unverified = u
		return set, nil
	}
	cols := "d.node_id"
	if few == fewByPace {
		cols += ", d.rid" // the pace of the entries (paced)
	}
	query := `SELECT ` + cols + ` FROM ` + src + ` WHERE ` + where + ` AND ` + fieldCol + ` = '` + field + `'`
	if titles && r.d == Postgres {
		// The titles' trigram index is on nodes (nodes_title_trgm).
		a = sqlq.NewArgs()
		query = `SELECT n.id FROM nodes n WHERE ` + r.all("n.title_plain", terms, a)
	}
	if r.d == Postgres {
		// Planned apart from the LIMIT: with it in view, PostgreSQL's planner trusts its guess of
		// how many entries match and scans the table for the first few, a million rows for a
		// term that is not there. Materialized, the lookup reads the trigram index.
		query = `WITH m AS MATERIALIZED (` + query + `) SELECT * FROM m`
	}
	rows, err := r.db.QueryContext(ctx, query+` LIMIT `+strconv.Itoa(entries), a.List...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set := map[string]bool{}
	n := 0
	var id string
	var rid int64
	dest := []any{&id}
	if few == fewByPace {
		dest = append(dest, &rid)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		set[id] = true
		n++
		if few == fewByPace && n%denseAfter == 0 && r.paced(n, rid, entries) {
			return nil, nil // dense: the walk answers
		}
	}
	// A complete list is the answer's set whatever its size (a word in a few hundred blocks is
	// on a few hundred pages): searchSegment reads them by id or, when they are many, walks the
	// nodes in order testing each id against the list, never the entries one by one.
	if n >= entries || r.q.Tuning.DenseAfter != 0 && len(set) >= denseAfter {
		return nil, rows.Err()
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The indexes list the entries at or below their mark; the few above it are read apart.
	return r.withUnindexed(ctx, terms, titles, set)
}

// fewness is what indexMatch knows of how many block entries match, against the bound of
// entriesPerNode × denseAfter.
type fewness int

const (
	notFew     fewness = iota // as many as the bound may match: the lookup reads denseAfter entries
	fewEntries                // fewer than the bound match: the lookup reads up to it
	fewByPace                 // unknown: the lookup reads up to the bound while its pace allows (paced)
)

// paced reports whether a lookup that has read n matching entries, the last at rowid rid, will
// pass bound at that pace: FTS5 lists its matches in rowid order, so n entries by rid of the
// top rowids (the blocks' plan's) are about n × top / rid in all. It replaced a count of the
// rarest trigram's entries to the bound, run before the lookup whenever the sample left it in
// doubt: a tenth of a search for a word in 0.6% of 100,000 paragraphs (issue 15). A term
// packed into the first rowids looks denser than it is and is walked; one rare early and common
// later is read to the bound, then walked, as with any term past it: slower, never another
// answer.
func (r *run) paced(n int, rid int64, bound int) bool {
	top := r.trigrams[1].top
	return rid > 0 && float64(n)*float64(top) >= float64(bound)*float64(rid)
}

// indexMatch is the FROM and WHERE of the entries (search_docs d) holding every term, using a
// trigram index (of the titles alone with titles): FTS5 on SQLite, asked for the terms' rare
// parts (planTrigrams), pg_trgm's GIN index of the lower-cased copy on PostgreSQL (whose titles
// indexMatches reads from nodes, under ILIKE). Terms all under three characters are looked up on SQLite
// only, by the trigrams they start (shortMatch), when one has at most limit occurrences. few
// says whether block entries match in fewer than entriesPerNode × limit entries (SQLite: the
// rarest trigram's sample says so, or leaves it to the lookup's pace). ok is false when the index has nothing to look up; none is true
// when some trigram or term occurs nowhere (nothing matches).
func (r *run) indexMatch(ctx context.Context, terms []string, titles bool, limit int, a *sqlq.Args) (from, where string, few fewness, ok, none bool, err error) {
	long, short := longTerms(terms)
	if len(long) == 0 {
		if r.d == SQLite {
			from, where, ok, none, err = r.shortMatch(ctx, terms, titles, limit, a)
			return from, where, notFew, ok, none, err
		}
		return "", "", notFew, false, false, nil
	}
	var conds []string
	from = "search_docs d"
	if r.d == SQLite {
		fts := "search_fts"
		if titles {
			fts = "search_title_fts"
		}
		plan, err := r.planTrigrams(ctx, fts, long)
		if err != nil || plan.none {
			return "", "", notFew, true, plan.none, err
		}
		if !titles {
			n := entriesPerNode * limit
			// The sample's estimate overstates a trigram spread at random (the median gap is
			// shorter than the mean) and one packed into a few pages: under half the bound it is
			// taken as is (a twentieth of a search for a word in 0.6% of 100,000 paragraphs;
			// issue 15). Were it wrong (a trigram rare in its first entries and common later),
			// the lookup reads its bound and the search walks, as it does for any term past the
			// bound: slower, never another answer.
			switch {
			case plan.rarestCount >= 0 && plan.rarestCount < n || plan.rarestCount < 0 && plan.rarestMost < float64(n/2):
				few = fewEntries
			case plan.rarestCount < 0 && plan.rarestMost < float64(10*n):
				// In doubt, the lookup's own pace decides (paced); past ten times the bound it is
				// not read further than denseAfter: a trigram of every tenth block of a million.
				few = fewByPace
			}
		}
		from = fts + " f JOIN search_docs d ON d.rid = f.rowid"
		conds = append(conds, ftsMatchOf(fts, plan, a))
		long = plan.verify
	}
	for _, t := range append(long, short...) {
		conds = append(conds, r.entryContains(r.entryText("d"), t, a))
	}
	return from, strings.Join(conds, " AND "), few, true, false, nil
}

// entryText is the column of an entry's text that entryContains tests: on PostgreSQL the
// lower-cased copy (text_lower, migration 00024), which its trigram index covers.
func (r *run) entryText(alias string) string {
	if r.d == Postgres {
		return alias + ".text_lower"
	}
	return alias + ".text"
}

// entryContains is contains for an entry's text read through entryText. On PostgreSQL the copy
// is already lower-cased, so the pattern alone is lowered (once per statement) and LIKE
// compares bytes: ILIKE lowered the whole text of every entry it tested, the index's candidates
// and a walk's entries alike (for a multibyte encoding it is lower() of both sides, then LIKE,
// so the answers are the same).
func (r *run) entryContains(column, term string, a *sqlq.Args) string {
	if r.d == Postgres {
		return column + " LIKE lower(" + a.Arg("%"+likeEscaper.Replace(term)+"%") + `) ESCAPE '\'`
	}
	return r.contains(column, term, a)
}

// entryAll is all for an entry's text read through entryText.
func (r *run) entryAll(column string, terms []string, a *sqlq.Args) string {
	conds := make([]string, len(terms))
	for i, t := range terms {
		conds[i] = r.entryContains(column, t, a)
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

// contains is a case-insensitive substring test of column against term (fold.go).
func (r *run) contains(column, term string, a *sqlq.Args) string {
	switch {
	case r.d == Postgres:
		return column + " ILIKE " + a.Arg("%"+likeEscaper.Replace(term)+"%") + ` ESCAPE '\'`
	case foldsBeyondASCII(term):
		return "quire_contains(" + column + ", " + a.Arg(fold(term)) + ")"
	default:
		// The pattern as +$n, not $n: SQLite marks a statement whose LIKE pattern is a bare
		// parameter to be compiled again whenever that parameter is bound (for an index on a
		// prefix, which a pattern starting with % never uses), which undid keeping the statement
		// prepared (store/search.go).
		return column + " LIKE +" + a.Arg("%"+likeEscaper.Replace(term)+"%") + ` ESCAPE '\'`
	}
}

// all is the test that column holds every term, in parentheses.
func (r *run) all(column string, terms []string, a *sqlq.Args) string {
	conds := make([]string, len(terms))
	for i, t := range terms {
		conds[i] = r.contains(column, t, a)
	}
	return "(" + strings.Join(conds, " AND ") + ")"
}

// inBody is the test that some block entry of node n holds every term.
func (r *run) inBody(terms []string, a *sqlq.Args) string {
	return "EXISTS (SELECT 1 FROM search_docs d WHERE d.node_id = n.id AND d.field = 'body' AND " + r.entryAll(r.nodeText(), terms, a) + r.perNode() + ")"
}

// matches are the nodes whose title holds every term, and those with a block that does; a nil
// set is dense (walk the nodes instead). On PostgreSQL lookup, when set, stands for the block
// entries' nodes, looked up by the statement that reads the results (pglookup.go).
type matches struct {
	titles, bodies map[string]bool
	lookup         *pgLookup
}

// searchSegment returns up to limit results of one tier (tierTitle: the title holds every term;
// tierContent: the title does not, some block does; 0: either), after key after: among m's nodes
// where m has them, by a walk of the nodes where a set is nil. With prefix, only the next prefix
// nodes in order are considered; full reports whether the results are the segment's answer
// (limit found, or the prefix was not cut short).
func (r *run) searchSegment(ctx context.Context, q Query, tier int, m *matches, after *Key, limit, prefix int) (out []Result, full bool, resume *Key, err error) {
	if limit <= 0 {
		return nil, true, nil, nil
	}
	lookup := m.lookup
	if tier == tierTitle {
		lookup = nil
	}
	walk := m.titles == nil && tier != tierContent || m.bodies == nil && lookup == nil && tier != tierTitle
	if walk && prefix == 0 {
		out, resume, err := r.walkSegment(ctx, q, tier, after, limit)
		return out, true, resume, err
	}
	byIDMax := cmp.Or(q.Tuning.ByID, byIDNodes)
	narrowed := false
	listed := listedOf(m, tier)
	firstOf := !walk && prefix == 0 && r.d == SQLite && len(listed) > byIDMax
	if !walk && !firstOf && tier != tierTitle && m.bodies != nil {
		// The list is read whole: its candidates are tested first (verify.go).
		if err := r.verifyAll(ctx, m.bodies); err != nil {
			return nil, false, nil, err
		}
		listed = listedOf(m, tier)
	}
	if firstOf {
		first, err := r.firstListed(ctx, q, tier, listed, m.titles, after, limit)
		if err != nil {
			return nil, false, nil, err
		}
		// The first limit nodes in order are the segment's answer: read by id, below. The walk
		// kept to the token's reach, in this snapshot: the reach is not computed again.
		narrowed, q.ReachOf = true, ""
		m = &matches{titles: m.titles, bodies: first}
		if tier != tierContent {
			m = &matches{titles: first, bodies: map[string]bool{}}
		}
	}
	a := sqlq.NewArgs(q.Workspace)
	var sb strings.Builder
	if q.ReachOf != "" {
		sb.WriteString("WITH RECURSIVE " + sqlq.Reach(a, q.ReachOf) + " ")
	}
	if lookup != nil {
		cte := r.lookupCTE(lookup, a)
		if lookup.estimate {
			cte = r.estimateCTE(q, after, a) + ", " + cte
		}
		if q.ReachOf != "" {
			sb.WriteString(", " + cte + " ")
		} else {
			sb.WriteString("WITH " + cte + " ")
		}
	}
	// Built only where used: PostgreSQL cannot type a parameter that no clause reads.
	inTitle := func() string { return r.all("n.title_plain", q.Terms, a) }
	inBody := func() string { return r.inBody(q.Terms, a) }
	nListed := 0 // the ids the match lists
	in := func(sets ...map[string]bool) string {
		seen := map[string]bool{}
		var ids []string
		for _, set := range sets {
			for id := range set {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		if len(ids) == 0 && lookup != nil {
			return lookupTest
		}
		if len(ids) == 0 {
			return "FALSE"
		}
		nListed = len(ids)
		if lookup != nil {
			return "(n.id = ANY(CAST(" + a.Arg(ids) + " AS TEXT[])) OR " + lookupTest + ")"
		}
		if r.d == SQLite {
			// One statement text for any number of ids.
			list, _ := json.Marshal(ids)
			return "n.id IN (SELECT value FROM json_each(" + a.Arg(string(list)) + "))"
		}
		// One array parameter, not one parameter an id: a statement text for any number of ids
		// (pgx prepares each text it has not seen), and a few hundred ids bound as one value.
		return "n.id = ANY(CAST(" + a.Arg(ids) + " AS TEXT[]))"
	}
	var match string
	byID := true // the nodes are a set of ids (sparse), not a walk
	switch {
	case tier == tierTitle && m.titles != nil:
		match = in(m.titles)
	case tier == tierTitle:
		match, byID = inTitle(), false
	case tier == tierContent && (m.bodies != nil || lookup != nil):
		match = in(m.bodies) + " AND NOT " + inTitle()
	case tier == tierContent:
		match, byID = "NOT "+inTitle()+" AND "+inBody(), false
	case m.titles != nil && (m.bodies != nil || lookup != nil):
		match = in(m.titles, m.bodies)
	default:
		match, byID = "("+inTitle()+" OR "+inBody()+")", false
	}
	if byID && nListed == 0 && lookup == nil {
		return nil, true, nil, nil // the index lists no node: nothing to ask the nodes
	}
	ms, _ := keyOrder(q)
	order, wsCol := ms, "n.workspace_id"
	if byID && prefix == 0 && r.d == SQLite && (nListed <= byIDMax || narrowed) {
		// Read by id and sorted: without statistics SQLite prefers to walk the workspace's
		// nodes in order (an index on workspace_id and the time) to avoid the sort, testing each
		// against the few ids (2 ms for 10,000 pages). The unary plus keeps it off those indexes.
		// More ids than byIDNodes are left to that walk, which stops at the page's last result.
		order, wsCol = "+"+ms, "+n.workspace_id"
	}
	var base strings.Builder // the nodes in order, before matching
	base.WriteString("SELECT ")
	if lookup != nil {
		base.WriteString(lookupCount)
	}
	base.WriteString(r.columns() + " FROM nodes n")
	base.WriteString("\nWHERE " + nodeFilter(q, after, wsCol, a))
	_, dir := keyOrder(q)
	orderBy := "\nORDER BY " + order + dir + ", n.id" + dir
	switch {
	case prefix > 0:
		sb.WriteString("SELECT " + r.columns() + " FROM (" + base.String() + orderBy + " LIMIT " + r.limit(a, prefix) + ") AS n")
		sb.WriteString("\nWHERE " + match + orderBy + " LIMIT " + r.limit(a, limit))
	case lookup != nil:
		sb.WriteString(lookupBranches(base.String(), match, orderBy+" LIMIT "+strconv.Itoa(limit), byIDMax))
		if lookup.estimate {
			sb.WriteString(estimateBranch(r.columns()))
		}
	default:
		sb.WriteString(base.String() + " AND " + match + orderBy + " LIMIT " + r.limit(a, limit))
	}

	args := a.List
	if r.d == Postgres && byID && nListed > byIDMax && r.nodes.PlanEach != nil {
		// Planned at every call, never by the prepared statement's generic plan. With the list
		// in view PostgreSQL walks the workspace's nodes in result order testing each against
		// the list (0.1-0.2 ms for 450 ids; 0.4-0.9 ms to plan). The generic plan cannot see
		// the list's length, takes it for a few ids, and reads every listed node by its key and
		// sorts them: 2.2 ms quiet, 1,934 buffers, for a word on 450 pages. PostgreSQL switches
		// to it after five runs on a connection once the custom plans' estimates exceed its
		// own, as they did beside 100,000 other nodes (docs/performance.md, sixth pass).
		args = append([]any{r.nodes.PlanEach}, args...)
	}
	rows, err := r.db.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, false, nil, err
	}
	if lookup != nil {
		out, err = r.resultsVia(rows, countedRow{rows, lookup}, tier)
	} else {
		out, err = r.results(rows, tier)
	}
	return out, len(out) == limit || prefix == 0, nil, err
}

// keyOrder is the time column of q's order and the direction of the walk (" DESC" or "").
func keyOrder(q Query) (ms, dir string) {
	ms, dir = "n.edited_ms", " DESC"
	if q.Order == ByCreated {
		ms = "n.created_ms"
	}
	if q.Ascending && q.Order != ByRelevance {
		dir = ""
	}
	return ms, dir
}

// nodeFilter is the condition on the nodes (n) a search may answer, after key after: the
// workspace's (wsCol, $1), not in trash, reached (reachCTE), of the kind asked for.
func nodeFilter(q Query, after *Key, wsCol string, a *sqlq.Args) string {
	var b strings.Builder
	b.WriteString(wsCol + " = $1 AND n.in_trash = FALSE AND n.trashed_under = FALSE")
	if q.ReachOf != "" {
		b.WriteString(" AND n.id IN (SELECT id FROM reach)")
	}
	if q.Object != "" {
		b.WriteString(" AND n.object = " + a.Arg(q.Object))
	}
	if q.PageType != "" {
		b.WriteString(" AND n.page_type = " + a.Arg(q.PageType))
	}
	if after != nil {
		ms, dir := keyOrder(q)
		op := "<"
		if dir == "" {
			op = ">"
		}
		b.WriteString(" AND (" + ms + ", n.id) " + op + " (" + a.Arg(after.Ms) + ", " + a.Arg(after.ID) + ")")
	}
	return b.String()
}
