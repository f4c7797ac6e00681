package sqlq

import (
	"context"
	"database/sql"
)

// Scanner is a statement's current row: database/sql's *sql.Rows, or the store's own row read
// from pgx's buffer on PostgreSQL.
type Scanner interface{ Scan(dest ...any) error }

// Queryer is what EachRow needs of a *sql.DB or *sql.Tx.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// RowQueryer is a Queryer that can also run a statement and hand its rows to row one at a time
// without database/sql: on PostgreSQL the store reads them from pgx's buffer (store/pg_raw.go),
// as it does a page of children (a keyword search's first page, a database query's walk).
// row's Scanner is valid only during the call. QueryRows answers handled false, having run
// nothing, for a statement it does not read itself; EachRow then reads it through database/sql.
type RowQueryer interface {
	QueryRows(ctx context.Context, query string, args []any, row func(sc Scanner) error) (handled bool, err error)
}

// EachRow runs query on db and calls row for each of its rows, through db's QueryRows when it
// has one and takes the statement.
func EachRow(ctx context.Context, db Queryer, query string, args []any, row func(sc Scanner) error) error {
	if rq, ok := db.(RowQueryer); ok {
		if handled, err := rq.QueryRows(ctx, query, args, row); handled || err != nil {
			return err
		}
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
