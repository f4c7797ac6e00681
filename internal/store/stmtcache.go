package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// maxCachedStmts bounds the statements one transaction keeps prepared: enough for the few
// statements a batch repeats, while a transaction of many distinct texts (multi-row inserts of
// varying widths) does not hold them all.
const maxCachedStmts = 64

// maxKeptStmts bounds the statements the SQLite write connection keeps prepared between
// transactions (stmtCache).
const maxKeptStmts = 128

// txConn is a write transaction that, on SQLite, prepares each statement text once and reuses it
// for the rest of the transaction. modernc.org/sqlite compiles a statement on every call, and a
// batch of record writes repeats a handful of statements a hundred times each: preparing them
// was a fifth of a 100-operation mutation batch's CPU. PostgreSQL's driver (pgx) already keeps
// prepared statements per connection, so there the calls pass straight through. The prepared
// statements close with the transaction, except those the store keeps (stmtCache).
//
// QueryContext is left uncached: a cached statement run again while its earlier rows are still
// being read (a nested walk) would reset them. Exec and QueryRow finish before they return
// (a Row is scanned at once).
type txConn struct {
	q     querier              // the transaction's statements: sqlTx on SQLite, the held connection on PostgreSQL
	sqlTx *sql.Tx              // SQLite's database/sql transaction; nil on PostgreSQL (tx_pg.go)
	stmts map[string]*sql.Stmt // nil: no caching
	kept  *stmtCache
	ctx   context.Context // PostgreSQL: the transaction's own context, run under by every statement (detachWrite)
	pg    *pgBegin        // PostgreSQL: whether BEGIN is sent yet (tx_pg.go)
}

// within is the context a statement of the transaction runs under: on PostgreSQL the
// transaction's, which a request's cancellation reaches only after writeGrace; else ctx.
func (c *txConn) within(ctx context.Context) context.Context {
	if c.ctx != nil {
		return c.ctx
	}
	return ctx
}

func newTxConn(tx *sql.Tx, kept *stmtCache) *txConn {
	c := &txConn{q: tx, sqlTx: tx, kept: kept}
	if kept != nil {
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
	var st *sql.Stmt
	if kept := c.kept.get(query); kept != nil {
		st = c.sqlTx.StmtContext(ctx, kept)
	} else {
		var err error
		if st, err = c.sqlTx.PrepareContext(ctx, query); err != nil {
			return nil
		}
		c.kept.want(query)
	}
	c.stmts[query] = st
	return st
}

// ExecContext is sql.Tx.ExecContext through the statement cache (SQLite), the connection's on
// PostgreSQL once the transaction has begun.
func (c *txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = c.within(ctx)
	if err := c.beginAlone(ctx); err != nil {
		return nil, err
	}
	if st := c.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.q.ExecContext(ctx, query, args...)
}

// QueryRowContext is sql.Tx.QueryRowContext through the statement cache (SQLite), the
// connection's on PostgreSQL once the transaction has begun.
func (c *txConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	ctx = c.within(ctx)
	if err := c.beginAlone(ctx); err != nil {
		return c.q.QueryRowContext(ended, query, args...) // sends nothing: its Scan fails; InTx reports err
	}
	if st := c.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.q.QueryRowContext(ctx, query, args...)
}

// QueryContext is sql.Tx.QueryContext, never cached (above).
func (c *txConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx = c.within(ctx)
	if err := c.beginAlone(ctx); err != nil {
		return nil, err
	}
	return c.q.QueryContext(ctx, query, args...)
}

// execUncached runs query in the transaction without the statement cache.
func (c *txConn) execUncached(ctx context.Context, query string, args ...any) (sql.Result, error) {
	ctx = c.within(ctx)
	if err := c.beginAlone(ctx); err != nil {
		return nil, err
	}
	return c.q.ExecContext(ctx, query, args...)
}

// stmtCache keeps statements prepared on SQLite's single write connection from one transaction
// to the next. Compiling them again in every transaction was a tenth of a 100-block append's
// CPU: the append's multi-row INSERT alone compiles the search triggers it fires. A transaction
// uses a kept statement through Tx.StmtContext, which finds it already prepared on the
// connection. A text first seen inside a transaction is prepared there as before and noted; the
// next transaction prepares the noted texts on the pool before it begins, because the pool's
// only connection is busy while a transaction runs.
type stmtCache struct {
	db     *sql.DB
	mu     sync.Mutex
	kept   map[string]*keptStmt
	wanted map[string]bool // noted texts, to keep at the next transaction
	tick   uint64
}

type keptStmt struct {
	stmt *sql.Stmt
	used uint64 // tick of the last use, to let the least recently used go when full
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, kept: map[string]*keptStmt{}, wanted: map[string]bool{}}
}

// get returns the kept statement for query, or nil.
func (k *stmtCache) get(query string) *sql.Stmt {
	k.mu.Lock()
	defer k.mu.Unlock()
	e, ok := k.kept[query]
	if !ok {
		return nil
	}
	k.tick++
	e.used = k.tick
	return e.stmt
}

// want notes query to be kept.
func (k *stmtCache) want(query string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.wanted) < maxKeptStmts {
		k.wanted[query] = true
	}
}

// prepare prepares the noted texts on the pool (the write connection must be free: call it
// outside a transaction), making room by closing the least recently used. A text that fails to
// prepare is dropped; the transaction that uses it reports the error.
func (k *stmtCache) prepare(ctx context.Context) {
	k.mu.Lock()
	wanted := k.wanted
	k.wanted = map[string]bool{}
	k.mu.Unlock()
	for query := range wanted {
		st, err := k.db.PrepareContext(ctx, query)
		if err != nil {
			continue
		}
		k.mu.Lock()
		if _, dup := k.kept[query]; dup {
			k.mu.Unlock()
			st.Close()
			continue
		}
		if len(k.kept) >= maxKeptStmts {
			k.evictLocked()
		}
		k.tick++
		k.kept[query] = &keptStmt{stmt: st, used: k.tick}
		k.mu.Unlock()
	}
}

// evictLocked closes the least recently used kept statement. A transaction still using it keeps
// its own handle: database/sql closes the statement once that is released.
func (k *stmtCache) evictLocked() {
	var oldest string
	var least uint64
	for q, e := range k.kept {
		if oldest == "" || e.used < least {
			oldest, least = q, e.used
		}
	}
	if e := k.kept[oldest]; e != nil {
		e.stmt.Close()
		delete(k.kept, oldest)
	}
}

// pending reports whether texts wait to be prepared.
func (k *stmtCache) pending() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.wanted) > 0
}

// close closes every kept statement.
func (k *stmtCache) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for q, e := range k.kept {
		e.stmt.Close()
		delete(k.kept, q)
	}
}
