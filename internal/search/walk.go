package search

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// A walk checks the nodes one by one in result order when no index can give the matches: terms
// so common that the index has more than denseAfter, or (on PostgreSQL) all shorter than three
// characters. A term that occurs nowhere made the walk read every entry of the workspace (0.85 s
// for a million blocks), so a walk of one tier examines at most about walkEntries entries per
// request (a title or one block's text is one entry; a node's blocks are examined whole) and
// then answers the results it has found, with the place it stopped as the key to go on from
// (docs/api.md: a page may hold fewer results than asked, even none, and still have more).
const walkEntries = 20000

// walkSegment is searchSegment's walk (tier as there; m's set for the tier is nil), in steps of
// nodes: the first twice the page, each next one twice the last, less when the entries per node
// seen so far say the bound is near. resume is where it stopped when the bound came before
// limit results.
func (r *run) walkSegment(ctx context.Context, q Query, tier int, after *Key, limit int) (out []Result, resume *Key, err error) {
	bound := cmp.Or(q.Tuning.Walk, walkEntries)
	var hits []string
	if tier == tierTitle {
		hits, resume, err = r.titleWalk(ctx, q, after, limit, bound)
	} else {
		hits, resume, err = r.stepWalk(ctx, q, tier, after, limit, bound)
	}
	if err != nil || len(hits) == 0 {
		return nil, resume, err
	}
	found := make(map[string]bool, len(hits))
	for _, id := range hits {
		found[id] = true
	}
	out, _, _, err = r.searchSegment(ctx, q, tier, &matches{titles: found, bodies: found}, after, limit, 0)
	return out, resume, err
}

// stepWalk walks in steps of nodes (walkStep), for the tiers that read a node's blocks.
func (r *run) stepWalk(ctx context.Context, q Query, tier int, after *Key, limit, bound int) (found []string, resume *Key, err error) {
	cur, used, walked, step := after, 0, 0, min(2*limit, bound)
	for {
		if walked > 0 {
			step = min(2*step, max(1, (bound-used)*walked/max(used, 1)))
		}
		hits, last, nodes, entries, err := r.walkStep(ctx, q, tier, cur, step)
		if err != nil {
			return nil, nil, err
		}
		for _, id := range hits {
			if len(found) < limit {
				found = append(found, id)
			}
		}
		used, walked, cur = used+entries, walked+nodes, last
		if nodes < step || len(found) == limit {
			return found, nil, nil // the end of the nodes, or a full page
		}
		if used >= bound {
			return found, cur, nil
		}
	}
}

// titleWalk is the title tier's walk in one statement: a title is one entry, so the first
// bound nodes after key after are checked in one pass of the nodes in result order, without the
// steps' stored rows (a two-character term walked 10,000 titles in 17 ms that way, about 5 ms
// so). Only when the page is not full does a second statement find the bound-th node, where
// the next request goes on (none: the walk reached the end).
func (r *run) titleWalk(ctx context.Context, q Query, after *Key, limit, bound int) (hits []string, resume *Key, err error) {
	ms, dir := keyOrder(q)
	build := func(tail func(a *sqlq.Args) string) (string, []any) {
		a := sqlq.NewArgs(q.Workspace)
		with := ""
		if q.ReachOf != "" {
			with = "WITH RECURSIVE " + sqlq.Reach(a, q.ReachOf) + " "
		}
		return with + tail(a), a.List
	}
	order := " ORDER BY " + ms + dir + ", n.id" + dir
	query, args := build(func(a *sqlq.Args) string {
		return `SELECT n.id FROM (SELECT n.id, n.title_plain, n.edited_ms, n.created_ms FROM nodes n
			WHERE ` + nodeFilter(q, after, "n.workspace_id", a) + order + ` LIMIT ` + r.limit(a, bound) + `) AS n
			WHERE ` + r.all("n.title_plain", q.Terms, a) + order + ` LIMIT ` + r.limit(a, limit)
	})
	rows, err := r.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, nil, err
		}
		hits = append(hits, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(hits) == limit {
		return hits, nil, err
	}
	// A workspace of fewer than bound nodes cannot have stopped the walk: counted on the
	// workspace's index alone, without the filter's reads of each node that finding the
	// bound-th node takes (as long again as the walk).
	var n int
	a := sqlq.NewArgs(q.Workspace)
	if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM nodes WHERE workspace_id = $1 LIMIT `+r.limit(a, bound)+`) AS w`,
		a.List...).Scan(&n); err != nil || n < bound {
		return hits, nil, err
	}
	query, args = build(func(a *sqlq.Args) string {
		return `SELECT n.id, ` + ms + ` FROM nodes n WHERE ` + nodeFilter(q, after, "n.workspace_id", a) + order +
			` LIMIT 1 OFFSET ` + r.limit(a, bound-1)
	})
	key := Key{Tier: tierTitle}
	switch err := r.db.QueryRowContext(ctx, query, args...).Scan(&key.ID, &key.Ms); {
	case errors.Is(err, sql.ErrNoRows):
		return hits, nil, nil // fewer than bound nodes: the walk saw them all
	case err != nil:
		return nil, nil, err
	}
	return hits, &key, nil
}

// walkStep checks the next k nodes after key after, in result order, against the terms: their
// titles (tierTitle), their blocks and not their titles (tierContent), or either. It returns the
// matching nodes in order, the last node checked, and how many nodes and entries it checked.
func (r *run) walkStep(ctx context.Context, q Query, tier int, after *Key, k int) (hits []string, last *Key, nodes, entries int, err error) {
	a := sqlq.NewArgs(q.Workspace)
	all := func(column string) string { return r.all(column, q.Terms, a) }
	inBody := func() string { return r.inBody(q.Terms, a) }
	const blocks = "(SELECT COUNT(*) FROM search_docs d WHERE d.node_id = n.id AND d.field = 'body')"
	var sb strings.Builder
	sb.WriteString("WITH ")
	if q.ReachOf != "" {
		sb.WriteString("RECURSIVE " + sqlq.Reach(a, q.ReachOf) + ", ")
	}
	ms, dir := keyOrder(q)
	var hit, cost, cond string
	switch tier {
	case tierTitle:
		hit, cost = all("n.title_plain"), "1"
	case tierContent:
		// A node whose title holds the terms is the title tier's; its blocks are not read. The
		// title checked counts too, so pages without blocks still bring the bound nearer.
		cond, hit, cost = " AND NOT "+all("n.title_plain"), inBody(), "1 + "+blocks
	default:
		hit, cost = "("+all("n.title_plain")+" OR "+inBody()+")", "1 + "+blocks
	}
	rdir := " DESC"
	if dir != "" {
		rdir = ""
	}
	// Materialized: the step's rows are read three times (the totals and the last node). The
	// nodes are chosen in a subquery of their own: PostgreSQL would otherwise check every node
	// of the workspace before sorting them and keeping k (0.3 s for 1,000 pages of 100 blocks).
	sb.WriteString(`w AS MATERIALIZED (
		SELECT n.id AS id, ` + ms + ` AS ms, CASE WHEN ` + hit + ` THEN 1 ELSE 0 END AS hit, ` + cost + ` AS cost
		FROM (SELECT n.id, n.title_plain, n.edited_ms, n.created_ms FROM nodes n
			WHERE ` + nodeFilter(q, after, "n.workspace_id", a) + cond + `
			ORDER BY ` + ms + dir + `, n.id` + dir + ` LIMIT ` + r.limit(a, k) + `) AS n)
	SELECT id, ms, hit, (SELECT COUNT(*) FROM w), (SELECT SUM(cost) FROM w) FROM w
	WHERE hit = 1 OR (ms, id) = (SELECT ms, id FROM w ORDER BY ms` + rdir + `, id` + rdir + ` LIMIT 1)
	ORDER BY ms` + dir + `, id` + dir)
	rows, err := r.db.QueryContext(ctx, sb.String(), a.List...)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var key Key
		var h int
		if err := rows.Scan(&key.ID, &key.Ms, &h, &nodes, &entries); err != nil {
			return nil, nil, 0, 0, err
		}
		key.Tier = tier
		if h == 1 {
			hits = append(hits, key.ID)
		}
		last = &key
	}
	return hits, last, nodes, entries, rows.Err()
}

// nodeText is the entry text (entryText) as checked within one node's entries. On PostgreSQL the
// expression keeps the planner off the trigram index, which it would otherwise combine with the
// node's entries for every node checked: a term under three characters has no trigram, so that
// index scan read the whole index each time (0.1 s per 40 pages of 100 blocks).
func (r *run) nodeText() string {
	if r.d == Postgres {
		return "(" + r.entryText("d") + " || '')"
	}
	return r.entryText("d")
}

// perNode ends a subquery that checks one node's entries. On PostgreSQL, OFFSET 0 keeps it a
// check per node: as a semi-join, a generic plan (after five runs of a prepared statement)
// could hash every entry of the index that holds the terms first, 1.6 s at a million blocks.
func (r *run) perNode() string {
	if r.d == Postgres {
		return " OFFSET 0"
	}
	return ""
}
