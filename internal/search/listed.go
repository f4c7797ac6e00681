package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// firstListed narrows a segment's complete list of matching nodes (more than byIDNodes of them,
// on SQLite) to the first limit in result order, for searchSegment to read by id. It walks the
// nodes the segment may answer in that order (nodes_recent or nodes_created, as the walk of the
// whole rows did) reading their ids alone and testing each against the list here. The rows'
// statement had the list as a json_each subquery instead, which SQLite turned into a temporary
// index of every listed id, built on each search: for a word on 450 of 1,000 pages that was a
// third of the statement's CPU, where the answer is the first 21 (issue 15). The walk stops at
// the limit-th listed node, or once every listed node has gone by.
//
// A listed node whose block entries are candidates still to be tested (r.unverified, and for
// tier 0 not listed by its title among titles) is tested when limit nodes are found, with the
// others found so far, in one statement (verified); the walk goes on past those that fail.
func (r *run) firstListed(ctx context.Context, q Query, tier int, listed, titles map[string]bool, after *Key, limit int) (map[string]bool, error) {
	a := sqlq.NewArgs(q.Workspace)
	var sb strings.Builder
	if q.ReachOf != "" {
		sb.WriteString("WITH RECURSIVE " + sqlq.Reach(a, q.ReachOf) + " ")
	}
	ms, dir := keyOrder(q)
	sb.WriteString("SELECT n.id FROM nodes n WHERE " + nodeFilter(q, after, "n.workspace_id", a))
	if tier == tierContent {
		// As searchSegment asks: a node whose title holds the terms is the title tier's.
		sb.WriteString(" AND NOT " + r.all("n.title_plain", q.Terms, a))
	}
	sb.WriteString(" ORDER BY " + ms + dir + ", n.id" + dir)
	rows, err := r.db.QueryContext(ctx, sb.String(), a.List...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	first := make(map[string]bool, limit)
	var pending []string
	left := len(listed)
	var id idBytes // no string per node walked: only the listed ones are kept
	for {
		for len(first)+len(pending) < limit && left > 0 && rows.Next() {
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			if !listed[string(id)] {
				continue
			}
			left--
			if _, later := r.unverified[string(id)]; later && tier != tierTitle && !titles[string(id)] {
				pending = append(pending, string(id))
			} else {
				first[string(id)] = true
			}
		}
		if err := rows.Err(); err != nil || len(pending) == 0 {
			return first, err
		}
		ok, err := r.verified(ctx, r.unverified, pending)
		if err != nil {
			return nil, err
		}
		for _, id := range pending {
			if ok[id] {
				first[id] = true
				delete(r.unverified, id) // holds the terms: a later segment takes it as listed
			}
		}
		pending = pending[:0]
	}
}

// listedOf is the list of nodes a segment of tier reads by id (tierTitle: the titles'; tierContent:
// the blocks'; 0: either), nil when m has none for it (the segment walks).
func listedOf(m *matches, tier int) map[string]bool {
	switch {
	case tier == tierTitle:
		return m.titles
	case tier == tierContent:
		return m.bodies
	case m.titles == nil || m.bodies == nil:
		return nil
	}
	both := make(map[string]bool, len(m.titles)+len(m.bodies))
	for _, set := range []map[string]bool{m.titles, m.bodies} {
		for id := range set {
			both[id] = true
		}
	}
	return both
}

// idBytes is a scan destination that keeps a text column's bytes in one buffer reused from row
// to row, as sql.RawBytes does, without RawBytes' catch: database/sql keeps the rows' lock read
// held from a Scan into RawBytes until the next Next or Close. The walk above stops at its
// limit without calling Next again and then asks Rows.Err; when the request's context was
// cancelled just then (its client left), the rows' own close waited for that lock and Err's
// second read of it waited behind the close: the request never ended, and the indexer, which
// waits for requests in flight, stopped with it (seen in session 16's full-scale run).
type idBytes []byte

func (b *idBytes) Scan(src any) error {
	switch v := src.(type) {
	case string:
		*b = append((*b)[:0], v...)
	case []byte:
		*b = append((*b)[:0], v...)
	default:
		return fmt.Errorf("search: a node id read as %T", src)
	}
	return nil
}
