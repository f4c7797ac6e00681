package dbquery

import (
	"context"
	"database/sql"
	"errors"
)

// Queryer is what Page needs of a *sql.DB, *sql.Conn or *sql.Tx.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Page runs q on db and returns the ids of at most pageSize records after q.After, in the
// query's order, with the position to continue from when more follow (nil at the end).
//
// It first runs the query's probes (see Probes) until one finds a selective condition: then one
// statement reads and sorts the records that match it (Query.Narrow). Otherwise one statement
// walks an index in the query's order, or two on the page where a sort property's values run
// out. Pass a read transaction as db for one snapshot across these statements.
func Page(ctx context.Context, db Queryer, d Dialect, q Query, pageSize int) ([]string, *Position, error) {
	if pageSize < 1 {
		return nil, nil, errors.New("dbquery: pageSize must be at least 1")
	}
	if q.Within == nil && q.Narrow == nil && q.Filter != nil {
		c, n, ok, err := narrow(ctx, db, d, q, pageSize)
		if err != nil {
			return nil, nil, err
		}
		if ok && n == 0 {
			return []string{}, nil, nil
		}
		if ok {
			q.Narrow = c
		}
	}
	want := pageSize + 1
	var got []Position
	for {
		q.Limit = want - len(got)
		st, err := Compile(d, q)
		if err != nil {
			return nil, nil, err
		}
		n, err := st.run(ctx, db, &got)
		if err != nil {
			return nil, nil, err
		}
		if n == q.Limit || st.Then == nil {
			break
		}
		q.After = st.Then
	}
	ids := make([]string, 0, min(len(got), pageSize))
	for i := 0; i < len(got) && i < pageSize; i++ {
		ids = append(ids, got[i].ID)
	}
	if len(got) <= pageSize {
		return ids, nil, nil
	}
	next := got[pageSize-1]
	return ids, &next, nil
}

// run appends the positions of st's rows to out and returns how many it read.
func (st *Stmt) run(ctx context.Context, db Queryer, out *[]Position) (int, error) {
	rows, err := db.QueryContext(ctx, st.SQL, st.Args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		p, err := st.Scan(rows)
		if err != nil {
			return n, err
		}
		*out = append(*out, p)
		n++
	}
	return n, rows.Err()
}
