package store

import (
	"context"
	"database/sql"
	"slices"

	"github.com/quire-dev/quire/internal/sqlq"
)

// inBatch is how many ids one statement of a batched IN (…) list names: enough that a page of
// results is one statement, few enough that the statement texts stay a handful (the statement
// caches key on the text) and PostgreSQL plans the list as one.
const inBatch = 100

// queryIn reads rows for ids in batches of at most inBatch: build writes one batch's statement,
// naming its arguments through a (the batch's with sqlq.In), and row reads each row. plain
// names the arguments "?" (sqlq.Args.Plain).
func queryIn(ctx context.Context, q querier, ids []string, plain bool, build func(a *sqlq.Args, batch []string) string, row func(*sql.Rows) error) error {
	for batch := range slices.Chunk(ids, inBatch) {
		a := &sqlq.Args{Plain: plain}
		rows, err := q.QueryContext(ctx, build(a, batch), a.List...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := row(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// idSetIn is queryIn for statements that select one id column: the set of ids they return.
func idSetIn(ctx context.Context, q querier, ids []string, plain bool, build func(a *sqlq.Args, batch []string) string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	err := queryIn(ctx, q, ids, plain, build, func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	})
	return out, err
}
