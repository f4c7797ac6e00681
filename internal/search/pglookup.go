package search

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// On PostgreSQL the content tier's lookup of the trigram index and the read of the page of
// results are one statement (docs/performance.md, "PostgreSQL keyword search, seventh pass"):
// the lookup's entries are a materialized CTE, and the nodes are walked in result order testing
// each against a hash of the CTE's node ids. As two statements, the lookup sent its 600 node ids
// (a word in 0.6% of 100,000 paragraphs) to the server and the server got 450 of them back as an
// array, which PostgreSQL then read by nodes_pkey one by one and sorted (1,800 buffers) whenever
// 100,000 other nodes made that plan look cheaper than the walk, while the walk reads about 50
// nodes; the array also had to be planned at every call (NodeRows.PlanEach). The statement
// reports how many entries the lookup listed, so that a lookup cut short at its bound is known
// as dense and walked, as indexMatches does.

// pgLookup is the lookup inside the results' statement (searchSegment, matches.lookup).
type pgLookup struct {
	terms []string
	bound int   // entries read at most; this many means there may be more (dense)
	count int64 // entries listed, as the statement's rows report it
	rows  bool  // whether any row reported count
	// estimate, when set, gates the lookup on rareOnPostgres's estimate in the same statement
	// (estimateCTE).
	estimate bool
	// titlesUnder, when set, gates the lookup on the titles' count (KeywordAtOnce's tk) being
	// under it: past it the statement does not answer, and the lookup would be read in vain.
	titlesUnder int
}

// notRare is the count a row reports when the estimate found the terms too common for the
// lookup: the row is a stand-in (estimateBranch), not a result.
const notRare = -1

// lookupCTE is the lookup as the CTE "m" of node ids, with "k" its counts of entries and of
// nodes: the entries indexMatches reads on PostgreSQL (entryContains of every term on
// text_lower, which search_docs_lower indexes), MATERIALIZED for the reason indexMatches gives.
// Each pattern is lowered in a sub-SELECT (an InitPlan), and the statement's LIMIT is written
// into its text (lookupBranches' tail): a custom plan then knows nothing the generic plan does
// not (the limit is in both, the pattern in neither), prices the same, and after five runs on a
// connection PostgreSQL keeps the generic plan (the same plan) instead of planning the two
// branches at every search: 1.6-2.6 ms of planning at load 14; 7 plans in 291 searches instead
// of 182 in 182. A text per limit (at most 100) is prepared once per connection. The nodes are
// counted under COLLATE "C": equal ids are equal bytes under any deterministic collation, so the
// count is the same, and the sort of the 600 ids of a word in 0.6% of 100,000 paragraphs
// compares bytes instead of calling the database's libc collation (C.UTF-8 is not PostgreSQL's
// "C" before version 17) for each pair.
func (r *run) lookupCTE(l *pgLookup, a *sqlq.Args) string {
	long, short := longTerms(l.terms)
	conds := make([]string, 0, len(l.terms))
	for _, t := range append(long, short...) {
		conds = append(conds, "d.text_lower LIKE (SELECT lower("+a.Arg("%"+likeEscaper.Replace(t)+"%")+`)) ESCAPE '\'`)
	}
	gate := ""
	if l.estimate {
		gate = "(SELECT rare FROM e) AND "
	}
	if l.titlesUnder > 0 {
		gate += "(SELECT n FROM tk) < " + strconv.Itoa(l.titlesUnder) + " AND "
	}
	return `m AS MATERIALIZED (SELECT d.node_id FROM search_docs d WHERE ` + gate + strings.Join(conds, " AND ") +
		` AND (d.field || '') = 'body' LIMIT ` + strconv.Itoa(l.bound) +
		`), k AS MATERIALIZED (SELECT COUNT(*) AS entries, COUNT(DISTINCT node_id COLLATE "C") AS nodes FROM m)`
}

// lookupTest is the test that node n is among the lookup's. IS TRUE keeps the IN a hashed
// SubPlan, a filter of the walk of nodes in result order: as a bare IN PostgreSQL would turn it
// into a semi-join and, misjudging the CTE's rows (estimated at 1), probe the CTE again for
// every node walked or read each listed node by its key and sort them.
const lookupTest = "(n.id IN (SELECT node_id FROM m)) IS TRUE"

// lookupByID is lookupTest for a short list: its nodes read by key (nodes_pkey) and sorted.
const lookupByID = "n.id = ANY(ARRAY(SELECT DISTINCT node_id FROM m))"

// lookupCount is the first column of the results' statement with a lookup.
const lookupCount = "(SELECT entries FROM k), "

// lookupBranches is the results' statement with a lookup, after its CTEs (base: the nodes'
// SELECT and WHERE; match: the test of the segment's lists, lookupTest among them; tail: ORDER
// BY and LIMIT, the limit a number: see lookupCTE). As SQLite does (byIDNodes), the lookup's nodes are walked to in result order
// when they are more than byIDMax, and read by key and sorted when fewer: a walk to a few old
// pages reads every newer node on the way (0.8 s for a phrase on the oldest page of 101,000
// nodes, where the key reads one). Two branches of one statement, each behind a one-time filter
// on the lookup's count of nodes (k), so that only one runs, in custom and generic plans alike.
func lookupBranches(base, match, tail string, byIDMax int) string {
	long := "(SELECT nodes FROM k) > " + strconv.Itoa(byIDMax)
	byID := strings.Replace(match, lookupTest, lookupByID, 1)
	return "(" + base + " AND " + match + " AND " + long + tail + ")\nUNION ALL\n(" + base + " AND " + byID + " AND NOT " + long + tail + ")"
}

// The estimate in the results' statement. rareOnPostgres was a statement of its own before the
// lookup's, a round trip and a statement's work a search (docs/performance.md, "PostgreSQL
// keyword search, ninth pass"). With pgLookup.estimate the same sample and test are CTEs of
// the results' statement: the lookup (m) runs only when they call the terms rare, and when
// they do not, a third branch answers one stand-in row counted notRare (the first node of the
// sample, so that the answer has a row to say so) and the search probes as before. Should the
// workspace have no node to stand in, no row says anything, and the search goes on as after an
// empty lookup (indexMatches): nothing after the key can match then either.

// estimateCTE is rareOnPostgres's sample and test as the CTEs t, s and e (e.rare), each
// pattern lowered in a sub-SELECT for the reason lookupCTE gives, and the stand-in's node as
// e.first.
func (r *run) estimateCTE(q Query, after *Key, a *sqlq.Args) string {
	conds := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		conds[i] = "s.text_lower LIKE (SELECT lower(" + a.Arg("%"+likeEscaper.Replace(t)+"%") + `)) ESCAPE '\'`
	}
	nodes := sampledNodes(q, after, a)
	return `t AS (SELECT reltuples::bigint AS total FROM pg_class WHERE oid = 'search_docs'::regclass),
	s AS NOT MATERIALIZED (
		SELECT d.text_lower FROM (` + nodes + ` LIMIT ` + strconv.Itoa(sampleNodes) + `) AS n
		CROSS JOIN LATERAL (SELECT d.text_lower FROM search_docs d WHERE d.node_id = n.id AND d.field = 'body' OFFSET 0) AS d
		LIMIT (SELECT LEAST(` + strconv.Itoa(sampleMax) + `, GREATEST(` + strconv.Itoa(sampleMin) + `, total / ` + strconv.Itoa(samplePer) + `)) FROM t)),
	c AS MATERIALIZED (SELECT COALESCE((SELECT total FROM t), -1) AS total, (SELECT COUNT(*) FROM s) AS sampled,
		(SELECT COUNT(*) FROM (SELECT 1 FROM s WHERE ` + strings.Join(conds, " AND ") + ` LIMIT ` + strconv.Itoa(sampleHits) + `) AS h) AS hits),
	e AS MATERIALIZED (SELECT ` + rareTest("c.total", "c.sampled", "c.hits") + ` AS rare,
		(SELECT n.id FROM (` + nodes + ` LIMIT 1) AS n) AS first FROM c)`
}

// sampledNodes are the nodes the estimate samples, in result order after the key: the
// workspace's, whatever the token reaches.
func sampledNodes(q Query, after *Key, a *sqlq.Args) string {
	s := q
	s.ReachOf = ""
	ms, dir := keyOrder(s)
	return `SELECT n.id, ` + ms + ` FROM nodes n WHERE ` + nodeFilter(s, after, "n.workspace_id", a) + `
			ORDER BY ` + ms + dir + `, n.id` + dir
}

// rareCTE is estimateCTE's e when a kept plan says the terms are rare (Plans): no sample, and
// the stand-in's node as e.first.
func rareCTE(q Query, a *sqlq.Args) string {
	return `e AS MATERIALIZED (SELECT TRUE AS rare, (SELECT n.id FROM (` + sampledNodes(q, nil, a) + ` LIMIT 1) AS n) AS first)`
}

// estimateBranch is the third branch of the results' statement with the estimate: the
// stand-in row when the terms are not rare (cols: the node's columns of alias n).
func estimateBranch(cols string) string {
	return "\nUNION ALL\n(SELECT " + strconv.Itoa(notRare) + ", " + cols + " FROM nodes n WHERE n.id = (SELECT first FROM e) AND NOT (SELECT rare FROM e))"
}

// lookupOutcome is what contentFromIndex learned of the content tier.
type lookupOutcome int

const (
	lookupUnknown  lookupOutcome = iota // no row said how many entries: ask as before (indexMatches)
	lookupDense                         // the lookup reached its bound: the tier is walked
	lookupComplete                      // the results are the tier's answer
	lookupSkipped                       // the statement did not run (contentFromIndex's conditions)
	lookupNotRare                       // the estimate found the terms common: probe first
)

// contentFromIndex answers the content part of a search on PostgreSQL (tier as searchSegment's,
// titles the titles' complete list or nil) by one statement: the lookup and the page of results
// (see above), gated on the estimate when estimate is set. Tuning.DenseAfter (which also counts
// the nodes listed), terms with no trigram to look up, and a tier-0 segment whose titles are
// walked keep the two statements (lookupSkipped).
func (r *run) contentFromIndex(ctx context.Context, q Query, tier int, titles map[string]bool, after *Key, limit, dense int, estimate bool) ([]Result, lookupOutcome, error) {
	if long, _ := longTerms(q.Terms); len(long) == 0 || q.Tuning.DenseAfter != 0 || tier != tierContent && titles == nil {
		return nil, lookupSkipped, nil
	}
	l := &pgLookup{terms: q.Terms, bound: entriesPerNode * dense, estimate: estimate}
	res, _, _, err := r.searchSegment(ctx, q, tier, &matches{titles: titles, lookup: l}, after, limit, 0)
	switch {
	case err != nil:
		return nil, lookupUnknown, err
	case l.rows && l.count == notRare:
		return nil, lookupNotRare, nil
	case !l.rows:
		// No result: either none matches, or every listed node is filtered out and the lookup
		// may have been cut short. indexMatches tells (a term in no entry costs it little).
		return nil, lookupUnknown, nil
	case l.count >= int64(l.bound):
		return nil, lookupDense, nil
	}
	return res, lookupComplete, nil
}

// countedRow scans a row of the results' statement with a lookup: the lookup's count, then the
// node's columns.
type countedRow struct {
	rows *sql.Rows
	l    *pgLookup
}

func (c countedRow) Scan(dest ...any) error {
	c.l.rows = true
	return c.rows.Scan(append([]any{&c.l.count}, dest...)...)
}
