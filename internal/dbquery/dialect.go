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
	// pairJoin joins a pair's entry p to its record n in a pair's walk (byPair), and pairOn is
	// what the walk's WHERE then says of n. On PostgreSQL the record is read in a LATERAL
	// subquery fenced by OFFSET 0, its database given as (SELECT $1::text): PostgreSQL planned
	// the plain join at every call (its estimate of n.parent_id = $1 without the value, one
	// parent among several, made the generic plan dearer than any custom one), which cost about
	// 0.2 ms of the backend's CPU on each query of issue 15's row, a fifth of the walk. With
	// the parent's value unknown to every plan, generic and custom plans cost the same and the
	// plan cache keeps the generic one after five calls; with the fence, that plan cannot join
	// by hashing (the eighth pass's generic plan did, on another spread of records): each entry
	// is looked up by id, in the index's order (TestPairPlansPostgres, TestPairGenericPlan).
	pairJoin, pairOn string
}

var dialects = map[Dialect]dialect{
	SQLite: {ilike: `LIKE`, fence: ` LIMIT 1`,
		pairJoin: `CROSS JOIN nodes n`, pairOn: "\n  AND n.id = p.record_id AND " + nodeScope},
	Postgres: {ilike: `COLLATE "C" ILIKE`, fence: ` OFFSET 0`,
		pairJoin: `CROSS JOIN LATERAL (SELECT * FROM nodes n WHERE n.id = p.record_id AND n.parent_id = (SELECT $1::text)
		AND n.in_trash = FALSE OFFSET 0) n`},
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
