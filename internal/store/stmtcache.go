package store

import (
	"context"
	"database/sql"
	"strings"
)

// maxCachedStmts bounds the statements one transaction keeps prepared: enough for the few
// statements a batch repeats, while a transaction of many distinct texts (multi-row inserts of
// varying widths) does not hold them all.
const maxCachedStmts = 64

// txConn is a write transaction that, on SQLite, prepares each statement text once and reuses it
// for the rest of the transaction. modernc.org/sqlite compiles a statement on every call, and a
// batch of record writes repeats a handful of statements a hundred times each: preparing them
// was a fifth of a 100-operation mutation batch's CPU. PostgreSQL's driver (pgx) already keeps
// prepared statements per connection, so there the calls pass straight through. The prepared
// statements close with the transaction.
//
// QueryContext is left uncached: a cached statement run again while its earlier rows are still
// being read (a nested walk) would reset them. Exec and QueryRow finish before they return
// (a Row is scanned at once).
type txConn struct {
	*sql.Tx
	stmts map[string]*sql.Stmt // nil: no caching
}

func newTxConn(tx *sql.Tx, engine Engine) *txConn {
	c := &txConn{Tx: tx}
	if engine == SQLite {
		c.stmts = map[string]*sql.Stmt{}
	}
	return c
}

// stmt returns query prepared in the transaction, or nil to run it unprepared: when not
// caching, when the cache is full, for a text of several statements (Prepare would keep only
// the first), or when preparing fails (the unprepared call then reports the error).
func (c *txConn) stmt(ctx context.Context, query string) *sql.Stmt {
	if c.stmts == nil {
		return nil
	}
	if st, ok := c.stmts[query]; ok {
		return st
	}
	if len(c.stmts) >= maxCachedStmts || strings.Contains(query, ";") {
		return nil
	}
	st, err := c.Tx.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.stmts[query] = st
	return st
}

// ExecContext is sql.Tx.ExecContext through the statement cache.
func (c *txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.Tx.ExecContext(ctx, query, args...)
}

// QueryRowContext is sql.Tx.QueryRowContext through the statement cache.
func (c *txConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.Tx.QueryRowContext(ctx, query, args...)
}
