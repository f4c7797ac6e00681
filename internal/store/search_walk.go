package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
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
func (s *Store) walkSegment(ctx context.Context, q SearchQuery, tier int, after *SearchKey, limit int) (out []SearchResult, resume *SearchKey, err error) {
	bound := cmp.Or(q.Walk, walkEntries)
	var hits []string
	if tier == tierTitle {
		hits, resume, err = s.titleWalk(ctx, q, after, limit, bound)
	} else {
		hits, resume, err = s.stepWalk(ctx, q, tier, after, limit, bound)
	}
	if err != nil || len(hits) == 0 {
		return nil, resume, err
	}
	found := make(map[string]bool, len(hits))
	for _, id := range hits {
		found[id] = true
	}
	out, _, _, err = s.searchSegment(ctx, q, tier, &matches{titles: found, bodies: found}, after, limit, 0)
	return out, resume, err
}

// stepWalk walks in steps of nodes (walkStep), for the tiers that read a node's blocks.
func (s *Store) stepWalk(ctx context.Context, q SearchQuery, tier int, after *SearchKey, limit, bound int) (found []string, resume *SearchKey, err error) {
	cur, used, walked, step := after, 0, 0, min(2*limit, bound)
	for {
		if walked > 0 {
			step = min(2*step, max(1, (bound-used)*walked/max(used, 1)))
		}
		hits, last, nodes, entries, err := s.walkStep(ctx, q, tier, cur, step)
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
func (s *Store) titleWalk(ctx context.Context, q SearchQuery, after *SearchKey, limit, bound int) (hits []string, resume *SearchKey, err error) {
	ms, dir := keyOrder(q)
	build := func(tail func(arg func(any) string) string) (string, []any) {
		args := []any{q.Workspace}
		arg := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		var sb strings.Builder
		if q.ReachOf != "" {
			sb.WriteString("WITH RECURSIVE " + reachCTE(q, arg) + " ")
		}
		sb.WriteString(tail(arg))
		return sb.String(), args
	}
	order := " ORDER BY " + ms + dir + ", n.id" + dir
	query, args := build(func(arg func(any) string) string {
		conds := make([]string, len(q.Terms))
		for i, t := range q.Terms {
			conds[i] = s.contains("n.title_plain", t, arg)
		}
		return `SELECT n.id FROM (SELECT n.id, n.title_plain, n.edited_ms, n.created_ms FROM nodes n
			WHERE ` + nodeFilter(q, after, "n.workspace_id", arg) + order + ` LIMIT ` + arg(bound) + `) AS n
			WHERE ` + strings.Join(conds, " AND ") + order + ` LIMIT ` + arg(limit)
	})
	rows, err := s.read.QueryContext(ctx, query, args...)
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
	if err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM nodes WHERE workspace_id = $1 LIMIT $2) AS w`,
		q.Workspace, bound).Scan(&n); err != nil || n < bound {
		return hits, nil, err
	}
	query, args = build(func(arg func(any) string) string {
		return `SELECT n.id, ` + ms + ` FROM nodes n WHERE ` + nodeFilter(q, after, "n.workspace_id", arg) + order +
			` LIMIT 1 OFFSET ` + arg(bound-1)
	})
	key := SearchKey{Tier: tierTitle}
	switch err := s.read.QueryRowContext(ctx, query, args...).Scan(&key.ID, &key.Ms); {
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
func (s *Store) walkStep(ctx context.Context, q SearchQuery, tier int, after *SearchKey, k int) (hits []string, last *SearchKey, nodes, entries int, err error) {
	args := []any{q.Workspace}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	all := func(column string) string {
		conds := make([]string, len(q.Terms))
		for i, t := range q.Terms {
			conds[i] = s.contains(column, t, arg)
		}
		return "(" + strings.Join(conds, " AND ") + ")"
	}
	inBody := func() string {
		return "EXISTS (SELECT 1 FROM search_docs d WHERE d.node_id = n.id AND d.field = 'body' AND " + all(s.nodeText()) + s.perNode() + ")"
	}
	const blocks = "(SELECT COUNT(*) FROM search_docs d WHERE d.node_id = n.id AND d.field = 'body')"
	var sb strings.Builder
	sb.WriteString("WITH ")
	if q.ReachOf != "" {
		sb.WriteString("RECURSIVE " + reachCTE(q, arg) + ", ")
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
			WHERE ` + nodeFilter(q, after, "n.workspace_id", arg) + cond + `
			ORDER BY ` + ms + dir + `, n.id` + dir + ` LIMIT ` + arg(k) + `) AS n)
	SELECT id, ms, hit, (SELECT COUNT(*) FROM w), (SELECT SUM(cost) FROM w) FROM w
	WHERE hit = 1 OR (ms, id) = (SELECT ms, id FROM w ORDER BY ms` + rdir + `, id` + rdir + ` LIMIT 1)
	ORDER BY ms` + dir + `, id` + dir)
	rows, err := s.read.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var key SearchKey
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

// nodeText is the entry text (d.text) as checked within one node's entries. On PostgreSQL the
// expression keeps the planner off the trigram index, which it would otherwise combine with the
// node's entries for every node checked: a term under three characters has no trigram, so that
// index scan read the whole index each time (0.1 s per 40 pages of 100 blocks).
func (s *Store) nodeText() string {
	if s.engine == Postgres {
		return "(d.text || '')"
	}
	return "d.text"
}

// perNode ends a subquery that checks one node's entries. On PostgreSQL, OFFSET 0 keeps it a
// check per node: as a semi-join, a generic plan (after five runs of a prepared statement)
// could hash every entry of the index that holds the terms first, 1.6 s at a million blocks.
func (s *Store) perNode() string {
	if s.engine == Postgres {
		return " OFFSET 0"
	}
	return ""
}
