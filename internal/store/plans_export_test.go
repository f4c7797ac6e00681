package store

import (
	"context"
	"fmt"
	"strings"
)

// Query texts the request path's plan tests explain.
const (
	AuthenticateQueryForTest  = authenticate
	ReachesQueryForTest       = reachesQuery
	NodeQueryForTest          = nodeQuery
	ChildrenFirstQueryForTest = childrenFirst
	ChildrenAfterQueryForTest = childrenAfter
	ChildrenAfterCountForTest = childrenAfterCount
	ChildrenAfterKeysForTest  = childrenAfterKeys
	BlockQueryForTest         = `SELECT ` + blockColumns + ` FROM blocks b WHERE b.id = $1 AND b.workspace_id = $2`
	IndexedQueryForTest       = indexedQuery
	RecordIDsQueryForTest     = recordIDsQuery
)

// AuthenticateNodeQueryForTest reads a token, its reach and a node in one statement on engine;
// AuthenticatePageQueryForTest the same with the page's fields only.
func AuthenticateNodeQueryForTest(e Engine) string { return mustJoinedRead(AllFields, e).query }
func AuthenticatePageQueryForTest(e Engine) string { return mustJoinedRead(PageFields, e).query }

func mustJoinedRead(f NodeFields, e Engine) *joinedRead {
	r, err := f.read(e)
	if err != nil {
		panic(err)
	}
	return r
}

// EmbedSourceQueriesForTest are the indexer's reads of a node's first entries on e.
func EmbedSourceQueriesForTest(e Engine) (first, all string) { return embedSourceQueries(e) }

// ChildrenFirstLiteralQueryForTest is SQLite's first page of children, with a literal LIMIT.
var ChildrenFirstLiteralQueryForTest = childrenFirstLiteral[101]

// PlanForTest returns the engine's plan of query run with args: SQLite's EXPLAIN QUERY PLAN
// details, one a line; PostgreSQL's EXPLAIN (FORMAT JSON) of the statement prepared and run with
// a custom plan, or the generic plan a pooled connection settles on after five runs. args are
// strings or ints (written into EXECUTE as literals: EXPLAIN takes no bind parameters).
func (s *Store) PlanForTest(ctx context.Context, generic bool, query string, args ...any) (string, error) {
	conn, err := s.read.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if s.engine == SQLite {
		rows, err := conn.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				return "", err
			}
			lines = append(lines, detail)
		}
		return strings.Join(lines, "\n"), rows.Err()
	}
	mode := "force_custom_plan"
	if generic {
		mode = "force_generic_plan"
	}
	lits := make([]string, len(args))
	for i, a := range args {
		if v, ok := a.(string); ok {
			lits[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		} else {
			lits[i] = fmt.Sprint(a)
		}
	}
	defer conn.ExecContext(context.Background(), `DEALLOCATE plan_for_test; RESET plan_cache_mode`)
	for _, st := range []string{`SET plan_cache_mode = ` + mode, `PREPARE plan_for_test AS ` + query} {
		if _, err := conn.ExecContext(ctx, st); err != nil {
			return "", err
		}
	}
	var plan string
	err = conn.QueryRowContext(ctx, `EXPLAIN (FORMAT JSON) EXECUTE plan_for_test(`+strings.Join(lits, ", ")+`)`).Scan(&plan)
	return plan, err
}

// QuietAppendCountForTest and QuietAppendLogForTest are an append's reads of its page's entry
// count: SQLite's before the insert (for a window of 200), PostgreSQL's with the delete of its
// own log rows.
var (
	QuietAppendCountForTest = quietAppendCount(200)
	QuietAppendLogForTest   = quietAppendLog
)

// The reads of nodes_top_level (migration 00038 made it hold top-level nodes only).
const (
	LastTopLevelQueryForTest            = lastTopLevel
	NextTopLevelQueryForTest            = nextTopLevel
	TopLevelBeforeQueryForTest          = topLevelBefore
	TopLevelNeighbourBeforeQueryForTest = topLevelNeighbourBefore
	TopLevelNeighbourAfterQueryForTest  = topLevelNeighbourAfter
)

// ListNodesQueryForTest is ListNodes' statement of listing q and its values.
func ListNodesQueryForTest(q NodeQuery) (string, []any) { return listNodesQuery(q) }

// ClaimPickQueryForTest is the claim's choice of jobs on e alone: at $1, the first $2.
func ClaimPickQueryForTest(e Engine) string { return strings.ReplaceAll(claimPick(e), "$3", "$2") }
