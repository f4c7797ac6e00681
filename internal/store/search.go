package store

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

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

// SearchKey is the keyset position of a result. Relevance is a tier (2: the title matches, 1:
// only content does) and the number of matching entries (title and blocks, at most
// maxSearchHits), both properties of the node alone, so a walk stays exact while other
// content changes.
type SearchKey struct {
	Tier int    `json:"t,omitempty"`
	Hits int    `json:"h,omitempty"`
	Ms   int64  `json:"m,omitempty"`
	ID   string `json:"i"`
}

// maxSearchHits caps the hit count that ranks results: past it, more matching blocks say little.
const maxSearchHits = 50

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
}

// SearchResult is a node with its place in the results.
type SearchResult struct {
	Node *quire.Node
	Key  SearchKey
}

// Search runs a keyword search inside the engine. Terms of three characters or more are
// matched on the trigram index (FTS5 on SQLite, pg_trgm on PostgreSQL); shorter ones (a
// two-character Chinese word, say) are matched by substring within the entries that the longer
// terms select, or, when every term is short, by a scan of the indexed text. Nodes in trash or
// under a node in trash are left out.
func (s *Store) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	args := []any{q.Workspace}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var sb strings.Builder
	sb.WriteString("WITH RECURSIVE ")
	if q.ReachOf != "" {
		sb.WriteString(`reach (id) AS (
			SELECT g.target_id FROM grants g WHERE g.token_id = ` + arg(q.ReachOf) + `
			UNION
			SELECT n.id FROM nodes n JOIN reach r ON n.parent_id = r.id
		), `)
	}
	tier, hits := "0", "0"
	from := "nodes n"
	if len(q.Terms) > 0 {
		sb.WriteString("hits (node_id, tier, hits) AS (\n")
		sb.WriteString(s.matchEntries(q.Terms, arg))
		sb.WriteString(")\n")
		from = "hits h JOIN nodes n ON n.id = h.node_id"
		tier, hits = "h.tier", "h.hits"
	} else {
		sb.WriteString("hits AS (SELECT 1)\n") // keeps WITH well-formed
	}
	sb.WriteString("SELECT " + prefixed("n.", nodeColumns) + ", " + tier + ", " + hits + " FROM " + from)
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
		if q.Order == ByRelevance {
			sb.WriteString(" AND (" + tier + ", " + hits + ", " + ms + ", n.id) < (" + arg(a.Tier) + ", " + arg(a.Hits) + ", " + arg(a.Ms) + ", " + arg(a.ID) + ")")
		} else {
			sb.WriteString(" AND (" + ms + ", n.id) " + cmp + " (" + arg(a.Ms) + ", " + arg(a.ID) + ")")
		}
	}
	if q.Order == ByRelevance {
		sb.WriteString("\nORDER BY " + tier + " DESC, " + hits + " DESC, " + ms + " DESC, n.id DESC")
	} else {
		sb.WriteString("\nORDER BY " + ms + dir + ", n.id" + dir)
	}
	sb.WriteString(" LIMIT " + arg(q.Limit))

	rows, err := s.read.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SearchResult
	for rows.Next() {
		var r SearchResult
		n, err := scanNode(scanExtra{rows, []any{&r.Key.Tier, &r.Key.Hits}})
		if err != nil {
			return nil, err
		}
		r.Node = n
		r.Key.ID, r.Key.Ms = n.ID, n.EditedMs
		if q.Order == ByCreated {
			r.Key.Ms = n.CreatedMs
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// matchEntries is the SELECT of the nodes whose title or some block holds every term, with
// their tier and hit count.
func (s *Store) matchEntries(terms []string, arg func(any) string) string {
	var long, short []string
	for _, t := range terms {
		if utf8.RuneCountInString(t) >= 3 {
			long = append(long, t)
		} else {
			short = append(short, t)
		}
	}
	var where []string
	from := "search_docs d"
	if s.engine == SQLite {
		if len(long) > 0 {
			// An FTS5 query of quoted strings, ANDed: a trigram phrase is a substring.
			q := make([]string, len(long))
			for i, t := range long {
				q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
			}
			from = "search_fts f JOIN search_docs d ON d.rid = f.rowid"
			where = append(where, "search_fts MATCH "+arg(strings.Join(q, " AND ")))
		}
		for _, t := range short {
			where = append(where, "d.text LIKE "+arg("%"+escapeLike(t)+"%")+` ESCAPE '\'`)
		}
	} else {
		for _, t := range append(long, short...) {
			where = append(where, "d.text ILIKE "+arg("%"+escapeLike(t)+"%")+` ESCAPE '\'`)
		}
	}
	return "SELECT d.node_id, MAX(CASE WHEN d.field = 'title' THEN 2 ELSE 1 END),\n" +
		"  CASE WHEN COUNT(*) > " + strconv.Itoa(maxSearchHits) + " THEN " + strconv.Itoa(maxSearchHits) + " ELSE COUNT(*) END\nFROM " + from + "\nWHERE " + strings.Join(where, " AND ") +
		"\nGROUP BY d.node_id\n"
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

// scanExtra scans a node row followed by extra columns.
type scanExtra struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func (s scanExtra) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra...)...) }
