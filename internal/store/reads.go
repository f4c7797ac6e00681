package store

import (
	"context"
	"database/sql"
	"sync"
)

// preparedReads runs the statements every request makes (the token check, the reach check, a
// node's read, a page of children) on SQLite's read pool prepared once per connection instead of
// compiled on every call: modernc.org/sqlite parses and plans a statement text each time it is
// run unprepared, and under load that compilation was 30% of a page GET's CPU (a quarter of the
// server's time went to parsing two short SELECTs). database/sql keeps each *sql.Stmt prepared
// on every pooled connection it has run on. The texts are fixed strings of this package, so the
// map is bounded by the code. PostgreSQL gets no such wrapper: pgx already prepares and caches
// each text per connection.
//
// Only reads go through it: ExecContext passes straight to the pool, which is read-only on
// SQLite anyway.
type preparedReads struct {
	db    *sql.DB
	stmts sync.Map // query text → *sql.Stmt
}

// stmt returns query prepared on the pool, or nil to run it unprepared (preparing failed: the
// unprepared call then reports the error).
func (p *preparedReads) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := p.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	st, err := p.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if prev, loaded := p.stmts.LoadOrStore(query, st); loaded {
		st.Close() // another request prepared it first
		return prev.(*sql.Stmt)
	}
	return st
}

// QueryRowContext runs a one-row read (a token, a node, a reach walk of at most maxDepth steps:
// key lookups that take microseconds in process) without watching ctx once it has started: with
// a context that can be cancelled, the driver starts a goroutine per statement to interrupt it
// and database/sql another to close its rows, two goroutines a request spends more on than the
// read they guard. A request already cancelled does not start the read.
func (p *preparedReads) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if ctx.Err() != nil {
		return p.db.QueryRowContext(ctx, query, args...) // answers ctx's error
	}
	ctx = context.WithoutCancel(ctx)
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.db.QueryRowContext(ctx, query, args...)
}

func (p *preparedReads) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.db.QueryContext(ctx, query, args...)
}

func (p *preparedReads) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return p.db.ExecContext(ctx, query, args...)
}

// close closes every prepared statement.
func (p *preparedReads) close() {
	p.stmts.Range(func(k, v any) bool {
		v.(*sql.Stmt).Close()
		p.stmts.Delete(k)
		return true
	})
}

// hot is the querier for the reads every request makes: prepared on SQLite, the pool itself on
// PostgreSQL.
func (s *Store) hot() querier {
	if s.prep != nil {
		return s.prep
	}
	return s.read
}

// hotRow reads the one row of query, a read every request makes, into scan: through rawReads
// (the lookups' pool) on SQLite, pgRaw on PostgreSQL. The row is valid during the call only.
// No row: scan is not called, and the error is sql.ErrNoRows.
func (s *Store) hotRow(ctx context.Context, query string, args []string, scan func(row interface{ Scan(...any) error }) error) error {
	if s.lookups != nil {
		return s.lookups.one(ctx, query, args, func(r rawRow) error { return scan(r) })
	}
	if s.pg != nil {
		return s.pg.one(ctx, query, args, func(r *pgRow) error { return scan(r) })
	}
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a
	}
	return scan(s.hot().QueryRowContext(ctx, query, vals...))
}
