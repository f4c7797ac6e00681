package store

import (
	"context"
	"database/sql"

	"github.com/quire-dev/quire/internal/search"
)

// SearchTraceForTest runs a keyword search on the read pool as Search does, handing seen each
// statement it runs with its arguments (to read their plans), with the store's kept samples.
func (s *Store) SearchTraceForTest(ctx context.Context, q search.Query, seen func(query string, args []any)) ([]search.Result, *search.Key, error) {
	q.Samples = s.samples
	return search.Keyword(ctx, tracer{s.read, seen}, search.Dialect(s.engine), s.searchNodes(), q)
}

// tracer is a search.Queryer that reports each statement before running it.
type tracer struct {
	db   *sql.DB
	seen func(query string, args []any)
}

func (t tracer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.seen(query, args)
	return t.db.QueryContext(ctx, query, args...)
}

func (t tracer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	t.seen(query, args)
	return t.db.QueryRowContext(ctx, query, args...)
}
