package store

import (
	"context"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// SearchOrder is the order of search results.
type SearchOrder int

// Orders of search results: by relevance (only with terms), by last edit, by creation.
const (
	ByRelevance SearchOrder = iota
	ByEdited
	ByCreated
)

// SearchKey is the keyset position of a result. With terms and ByRelevance, Tier comes first (2:
// the title matches, 1: only content does); then the time of the order and the id. All are
// columns of the node alone, so a walk stays exact while other content changes. Hits is no
// longer ranked on (always 0); it stays so that cursors keep their shape.
type SearchKey struct {
	Tier int    `json:"t,omitempty"`
	Hits int    `json:"h,omitempty"`
	Ms   int64  `json:"m,omitempty"`
	ID   string `json:"i"`
}

// SearchQuery selects one page of search results.
type SearchQuery struct {
	Workspace string
	ReachOf   string   // when set, only what this (not workspace-scoped) token reaches
	Terms     []string // every term must occur in the same entry (title or one block); none: list all
	Object    string   // quire.ObjectPage or quire.ObjectDatabase, or "" for both
	PageType  string   // with ObjectPage: only this page type
	Order     SearchOrder
	Ascending bool // for ByEdited and ByCreated
	After     *SearchKey
	Limit     int
	// DenseAfter overrides how many matching entries make terms dense (searchTerms); 0 is the
	// default. Tests set it to run both plans over the same content.
	DenseAfter int
	// Probe overrides probeNodes (searchTerms); 0 is the default, negative none.
	Probe int
	// Walk overrides walkEntries (search_walk.go), and the first step with it when smaller; 0
	// is the default. Tests set it to cut walks short.
	Walk int
}

// SearchResult is a node with its place in the results.
type SearchResult struct {
	Node *quire.Node
	Key  SearchKey
}

// Search runs a keyword search inside the engine (searchTerms), or with no terms lists every
// visible node in the chosen order. Terms of three characters or more are matched on the trigram
// index (FTS5 on SQLite, pg_trgm on PostgreSQL); shorter ones (a two-character Chinese word, say)
// on SQLite by the trigrams they start (search_short.go), on PostgreSQL by substring. Nodes in
// trash or under a node in trash are left out. A search that walks the nodes (searchTerms)
// stops after a bounded number of entries: then it answers fewer than q.Limit results and the
// key to go on after (resume), nil when the results are complete.
func (s *Store) Search(ctx context.Context, q SearchQuery) ([]SearchResult, *SearchKey, error) {
	if len(q.Terms) > 0 {
		return s.searchTerms(ctx, q)
	}
	args := []any{q.Workspace}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var sb strings.Builder
	if q.ReachOf != "" {
		sb.WriteString(`WITH RECURSIVE reach (id) AS (
			SELECT g.target_id FROM grants g WHERE g.token_id = ` + arg(q.ReachOf) + `
			UNION
			SELECT n.id FROM nodes n JOIN reach r ON n.parent_id = r.id
		) `)
	}
	sb.WriteString("SELECT " + prefixed("n.", nodeColumns) + " FROM nodes n")
	sb.WriteString("\nWHERE n.workspace_id = $1 AND n.in_trash = FALSE AND n.trashed_under = FALSE")
	if q.ReachOf != "" {
		sb.WriteString(" AND n.id IN (SELECT id FROM reach)")
	}
	if q.Object != "" {
		sb.WriteString(" AND n.object = " + arg(q.Object))
	}
	if q.PageType != "" {
		sb.WriteString(" AND n.page_type = " + arg(q.PageType))
	}
	ms := "n.edited_ms"
	if q.Order == ByCreated {
		ms = "n.created_ms"
	}
	cmp, dir := "<", " DESC"
	if q.Ascending && q.Order != ByRelevance {
		cmp, dir = ">", ""
	}
	if a := q.After; a != nil {
		sb.WriteString(" AND (" + ms + ", n.id) " + cmp + " (" + arg(a.Ms) + ", " + arg(a.ID) + ")")
	}
	sb.WriteString("\nORDER BY " + ms + dir + ", n.id" + dir)
	sb.WriteString(" LIMIT " + arg(q.Limit))

	rows, err := s.read.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []SearchResult
	for rows.Next() {
		n, err := scanNode(rows)
		if err != nil {
			return nil, nil, err
		}
		r := SearchResult{Node: n, Key: SearchKey{Ms: n.EditedMs, ID: n.ID}}
		if q.Order == ByCreated {
			r.Key.Ms = n.CreatedMs
		}
		out = append(out, r)
	}
	return out, nil, rows.Err()
}

// escapeLike escapes LIKE's wildcards (with \ as the escape character).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// prefixed qualifies each column of a comma-separated list.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
