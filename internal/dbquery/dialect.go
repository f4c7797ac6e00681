package dbquery

import (
	"strconv"
	"strings"
)

// Dialect names the SQL flavour a statement is compiled for; the values equal store.Engine's.
type Dialect string

// The two dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// dialect holds the only SQL that differs between the engines. Everything else (the $n
// placeholders, row values, EXISTS, TRUE/FALSE, NOT on the in_trash column) runs verbatim on both.
type dialect struct {
	// ilike matches a LIKE pattern ignoring the case of ASCII letters only, on both engines:
	// SQLite's LIKE folds ASCII alone; PostgreSQL's ILIKE under the "C" collation does the same.
	ilike string
	// fence ends every condition's EXISTS subquery. PostgreSQL turns an EXISTS into a semi-join
	// (or anti-join) when it can, which reads every match of a condition, hashes them and sorts
	// the result: hundreds of milliseconds for a condition half the records meet. OFFSET 0 keeps
	// the subquery a per-record check, so the statement walks its index in order and stops
	// after the page, as on SQLite; selective conditions are read by id first (Probes) anyway.
	// On SQLite, LIMIT 1 does the same for its EXISTS-to-join rewrite: a top-level condition
	// made a join was checked after the conditions left as subqueries, so an and/or filter ran
	// its Or's (unselective) checks on every record walked before the selective select equality.
	// As subqueries, the conditions run in the filter's order, each once its record's id is known
	// (BenchmarkQuery100k: and/or 49 -> 4.5 ms, select equals + number sort 8.4 -> 5.0 ms).
	fence string
}

var dialects = map[Dialect]dialect{
	SQLite:   {ilike: `LIKE`, fence: ` LIMIT 1`},
	Postgres: {ilike: `COLLATE "C" ILIKE`, fence: ` OFFSET 0`},
}

// likeEscaper escapes the LIKE wildcards of a user's text; the statements say ESCAPE '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// builder accumulates one statement's text and arguments; equal arguments share a placeholder.
type builder struct {
	d    dialect
	sb   strings.Builder
	args []any
	seen map[any]int
}

func newBuilder(d dialect) *builder {
	return &builder{d: d, seen: make(map[any]int)}
}

// arg returns the placeholder of v ($1, $2 …), reusing the one of an equal earlier argument.
func (b *builder) arg(v any) string {
	i, ok := b.seen[v]
	if !ok {
		b.args = append(b.args, v)
		i = len(b.args)
		b.seen[v] = i
	}
	return "$" + strconv.Itoa(i)
}

func (b *builder) w(parts ...string) {
	for _, p := range parts {
		b.sb.WriteString(p)
	}
}
