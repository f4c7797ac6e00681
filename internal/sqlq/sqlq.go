// Package sqlq holds the few builders of SQL text that the store and the search package share:
// the arguments of a statement built at run time with their placeholders, lists of them for
// IN (…), the common table of the nodes a token reaches, and the row Scanner that search,
// dbquery and the store's reader below database/sql share. It is a package of its own because
// internal/search writes SQL as the store does, and the store calls internal/search: neither may
// import the other for these.
package sqlq

import (
	"strconv"
	"strings"
)

// Args collects the arguments of a statement built at run time and names each by its
// placeholder, in the order they are added.
type Args struct {
	List []any
	// Plain names every argument "?" instead of "$n": SQLite keeps the names of "$n" parameters
	// in a list searched linearly, when parsing and when the driver binds, which makes a
	// statement with a thousand of them quadratic. PostgreSQL takes "$n" only. A statement is
	// either plain throughout or numbered throughout.
	Plain bool
}

// NewArgs returns Args holding first as $1, $2 …, for the arguments a statement's fixed text
// names itself.
func NewArgs(first ...any) *Args {
	return &Args{List: first}
}

// Arg adds v and returns its placeholder.
func (a *Args) Arg(v any) string {
	a.List = append(a.List, v)
	if a.Plain {
		return "?"
	}
	return "$" + strconv.Itoa(len(a.List))
}

// In adds vals and returns their placeholders separated by commas, for IN (…).
func In[T any](a *Args, vals []T) string {
	var sb strings.Builder
	for i, v := range vals {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(a.Arg(v))
	}
	return sb.String()
}

// Reach is the common table reach (id), to follow WITH RECURSIVE: the nodes token reaches, those
// granted to it and everything below them. Grants are only ever made within the token's
// workspace, so the table needs no workspace of its own; the statements that use it filter their
// nodes by workspace anyway.
func Reach(a *Args, token string) string {
	return `reach (id) AS (
			SELECT g.target_id FROM grants g WHERE g.token_id = ` + a.Arg(token) + `
			UNION
			SELECT n.id FROM nodes n JOIN reach r ON n.parent_id = r.id
		)`
}
