package search

import (
	"cmp"
	"context"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// On PostgreSQL the first page of a search by relevance is asked in one statement when it can be
// (KeywordAtOnce): the titles' lookup, the estimate, the blocks' lookup and both tiers' results.
// Keyword needs a read transaction, so that its statements see one snapshot: BEGIN, the titles'
// lookup, the content statement (pglookup.go) and COMMIT were four round trips for a word in
// 0.6% of 100,000 paragraphs, and the titles' lookup was planned at every call. One statement is
// one snapshot by itself: no transaction, one round trip (docs/performance.md, "PostgreSQL
// keyword search, tenth pass"). When its answer is not the search's (the titles or the blocks are
// too many for a list, the terms are common, the workspace shows no node), the caller runs
// Keyword in a transaction, given what this statement learned of the plan (Hints).

// Hints are what KeywordAtOnce learned of a search's plan when it could not answer, for the
// Keyword that answers it instead. They choose plans, not answers, so that Keyword may use them
// in a later snapshot: a list the index would have given and a walk answer alike.
type Hints struct {
	// TitlesDense: the titles' index lists too many nodes for a list; the title tier is walked.
	TitlesDense bool
	// NotRare: the estimate found the terms common; the content tier is probed first.
	NotRare bool
	// ContentDense: the blocks' lookup reached its bound; the content tier is walked.
	ContentDense bool
}

// The tiers a row of KeywordAtOnce's statement is of: tierTitle, tierContent, or atOnceStandIn,
// the row that says what the statement learned whatever else it found (the first node in order,
// not a result).
const atOnceStandIn = 0

// KeywordAtOnce answers q with one statement on db when q is the first page of a search by
// relevance on PostgreSQL whose terms have trigrams; ok reports whether the answer is the
// search's (there is no key to resume at: a walk is never part of it). When not, Keyword answers
// (in a read transaction) with q.Hints set to hints. With q.Plans, what the statement learns of
// the plan is kept, and a kept plan spares the estimate, or the statement when it would not
// answer (plans.go).
func KeywordAtOnce(ctx context.Context, db Queryer, d Dialect, nodes NodeRows, q Query) (res []Result, hints Hints, ok bool, err error) {
	long, _ := longTerms(q.Terms)
	if d != Postgres || q.Order != ByRelevance || q.After != nil || len(long) == 0 || q.Tuning != (Tuning{}) || q.Hints != (Hints{}) {
		return nil, Hints{}, false, nil
	}
	r := &run{db: db, d: d, nodes: nodes, q: q}
	key := planKey(q)
	kept, known := q.Plans.get(key)
	if known && kept.hints != (Hints{}) {
		return nil, kept.hints, false, nil // the statement would not answer: Keyword, with the kept hints
	}
	if !known {
		kept = keptPlan{at: q.Plans.clock()}
	}
	res, hints, ok, learned, err := r.atOnce(ctx, q, !known)
	if learned {
		kept.hints = hints
		q.Plans.put(key, kept)
	}
	return res, hints, ok, err
}

// atOnce is KeywordAtOnce's statement and what its rows say. Each row carries its tier, the
// titles' lookup's count (up to denseAfter) and the blocks' lookup's count of entries (notRare
// when the estimate found the terms common); the stand-in row always comes when the workspace
// shows a node, so the counts are known whatever the results (learned). Without estimate the
// terms are taken as rare (a kept plan says so: Plans).
func (r *run) atOnce(ctx context.Context, q Query, estimate bool) (res []Result, hints Hints, ok, learned bool, err error) {
	bound := entriesPerNode * denseAfter
	l := &pgLookup{terms: q.Terms, bound: bound, estimate: true, titlesUnder: denseAfter}
	a := sqlq.NewArgs(q.Workspace)
	var sb strings.Builder
	if q.ReachOf != "" {
		sb.WriteString("WITH RECURSIVE " + sqlq.Reach(a, q.ReachOf) + ", ")
	} else {
		sb.WriteString("WITH ")
	}
	if estimate {
		sb.WriteString(r.estimateCTE(q, nil, a))
	} else {
		sb.WriteString(rareCTE(q, a))
	}
	sb.WriteString(", " + r.titlesCTE(q.Terms, a) + ", " + r.lookupCTE(l, a) + "\n")
	counts := func(tier int) string {
		return "SELECT " + strconv.Itoa(tier) + ", (SELECT n FROM tk), (SELECT entries FROM k), " + r.columns() + " FROM nodes n"
	}
	filter := "\nWHERE " + nodeFilter(q, nil, "n.workspace_id", a)
	ms, dir := keyOrder(q)
	tail := "\nORDER BY " + ms + dir + ", n.id" + dir + " LIMIT " + strconv.Itoa(q.Limit)
	titlesListed := "(SELECT n FROM tk) < " + strconv.Itoa(denseAfter)
	sb.WriteString("(" + counts(tierTitle) + filter + " AND n.id = ANY(ARRAY(SELECT id FROM tl)) AND " + titlesListed + tail + ")\nUNION ALL\n")
	sb.WriteString(lookupBranches(counts(tierContent)+filter, lookupTest+" AND NOT "+r.all("n.title_plain", q.Terms, a), tail, byIDNodes))
	sb.WriteString("\nUNION ALL\n(SELECT " + strconv.Itoa(atOnceStandIn) + ", (SELECT n FROM tk), CASE WHEN (SELECT rare FROM e) THEN (SELECT entries FROM k) ELSE " +
		strconv.Itoa(notRare) + " END, " + r.columns() + " FROM nodes n WHERE n.id = (SELECT first FROM e))")
	row := &atOnceRow{}
	var titled, content []Result
	var standIn *atOnceRow // the counts, as the stand-in row reports them
	err = eachRow(ctx, r.db, sb.String(), a.List, func(sc Scanner) error {
		row.sc = sc
		n, err := r.nodes.Scan(row)
		if err != nil {
			return err
		}
		res := Result{Node: n, Key: Key{Tier: int(row.tier), Ms: n.EditedMs, ID: n.ID}}
		switch row.tier {
		case tierTitle:
			titled = append(titled, res)
		case tierContent:
			content = append(content, res)
		default:
			standIn = &atOnceRow{titles: row.titles, entries: row.entries}
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, Hints{}, false, false, err
	case standIn == nil:
		return nil, Hints{}, false, false, nil // the workspace shows no node: Keyword says so
	case standIn.titles >= denseAfter:
		return nil, Hints{TitlesDense: true, NotRare: standIn.entries == notRare}, false, true, nil
	case len(titled) >= q.Limit:
		return titled[:q.Limit], Hints{}, true, true, nil // the titles fill the page, as in searchTerms
	case standIn.entries == notRare:
		return nil, Hints{NotRare: true}, false, true, nil
	case standIn.entries >= int64(bound):
		return nil, Hints{ContentDense: true}, false, true, nil // the lookup was cut short: the content tier is walked
	}
	out := append(titled, content...)
	return out[:min(len(out), q.Limit)], Hints{}, true, true, nil
}

// titlesCTE is the titles' lookup of indexMatches as the CTE tl of node ids, with tk its count
// up to denseAfter (at that count the titles are walked). It runs only when the estimate (e)
// calls the terms rare: when it does not, the statement does not answer and Keyword looks the
// titles up in its own snapshot, so a common word would pay for the lookup twice. Each pattern
// is a sub-SELECT for the reason lookupCTE gives (the statement keeps one generic plan); CAST,
// not lower(), so that ILIKE compares as indexMatches' does.
func (r *run) titlesCTE(terms []string, a *sqlq.Args) string {
	conds := make([]string, len(terms))
	for i, t := range terms {
		conds[i] = "n.title_plain ILIKE (SELECT CAST(" + a.Arg("%"+likeEscaper.Replace(t)+"%") + ` AS TEXT)) ESCAPE '\'`
	}
	return `tl AS MATERIALIZED (SELECT n.id FROM nodes n WHERE (SELECT rare FROM e) AND ` + strings.Join(conds, " AND ") + `),
	tk AS MATERIALIZED (SELECT COUNT(*) AS n FROM (SELECT 1 FROM tl LIMIT ` + strconv.Itoa(denseAfter) + `) AS x)`
}

// atOnceRow scans a row of KeywordAtOnce's statement: its tier and counts, then the node's
// columns.
type atOnceRow struct {
	sc                    Scanner
	tier, titles, entries int64
}

func (c *atOnceRow) Scan(dest ...any) error {
	return c.sc.Scan(append([]any{&c.tier, &c.titles, &c.entries}, dest...)...)
}

// hintedTitles is searchTerms' list of the titles (indexMatches), or nil (dense, walked) when
// q.Hints says so.
func (r *run) hintedTitles(ctx context.Context, q Query) (map[string]bool, error) {
	if q.Hints.TitlesDense {
		return nil, nil
	}
	return r.indexMatches(ctx, q.Terms, true, cmp.Or(q.Tuning.DenseAfter, denseAfter))
}
