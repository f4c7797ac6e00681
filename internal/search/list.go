package search

import (
	"context"
	"strings"

	"github.com/quire-dev/quire/internal/sqlq"
)

// list answers a search without terms: every visible node in the chosen order.
func (r *run) list(ctx context.Context) ([]Result, *Key, error) {
	q := r.q
	a := sqlq.NewArgs(q.Workspace)
	var sb strings.Builder
	if q.ReachOf != "" {
		sb.WriteString("WITH RECURSIVE " + sqlq.Reach(a, q.ReachOf) + " ")
	}
	ms, dir := keyOrder(q)
	sb.WriteString("SELECT " + r.columns() + " FROM nodes n")
	sb.WriteString("\nWHERE " + nodeFilter(q, q.After, "n.workspace_id", a))
	sb.WriteString("\nORDER BY " + ms + dir + ", n.id" + dir)
	sb.WriteString(" LIMIT " + r.limit(a, q.Limit))
	rows, err := r.db.QueryContext(ctx, sb.String(), a.List...)
	if err != nil {
		return nil, nil, err
	}
	out, err := r.results(rows, 0)
	return out, nil, err
}

// limit is a LIMIT or OFFSET of n as a parameter. On SQLite it is written +$k: SQLite reads a
// bare parameter there when it plans the statement, and so compiles the statement again each
// time the parameter is bound, which undid keeping it prepared (store/search.go); the unary plus
// hides the value from the planner and changes nothing else. PostgreSQL could not type it.
func (r *run) limit(a *sqlq.Args, n int) string {
	if r.d == SQLite {
		return "+" + a.Arg(n)
	}
	return a.Arg(n)
}

// columns are the node columns of alias n.
func (r *run) columns() string {
	parts := strings.Split(r.nodes.Columns, ",")
	for i, c := range parts {
		parts[i] = "n." + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// likeEscaper escapes LIKE's wildcards (with \ as the escape character).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
