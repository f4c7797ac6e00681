package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/quire-dev/quire/internal/quire"
)

// Tx is one write transaction.
type Tx struct {
	tx       *txConn
	conn     *sql.Conn // the transaction's connection on PostgreSQL (events_commit.go); nil on SQLite
	observe  func(string)
	engine   Engine
	events   []quire.Event              // the outbox, written at commit (events.go)
	eventsOf map[string][]int           // entity id → indexes in events
	indexed  map[string]map[string]bool // database id → properties whose rows are kept (records_indexed.go)
	kids     map[string]struct{}        // parents whose has_children to settle (blocks_children.go)
	quiet    string                     // SQLite: a page whose new entries are not queued (embed_queue_append.go)
	atCommit []deferredStmt             // PostgreSQL: statements sent with the COMMIT (events_commit.go)
}

// querier is what both a *sql.DB and a *sql.Tx offer; read helpers take it so that they serve
// both a plain read and a read inside a write transaction.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// InTx runs fn in a write transaction and commits it when fn returns nil. When ctx carries an
// idempotency claim (WithIdempotencyClaim), the claim is marked committed in the same
// transaction, so a retry can never apply the effect a second time. On PostgreSQL the
// transaction runs on a held connection without database/sql's Tx (inTxOnConn, tx_pg.go).
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	if s.kept != nil && s.kept.pending() {
		s.kept.prepare(ctx)
	}
	if s.engine == Postgres {
		return s.inTxOnConn(ctx, fn)
	}
	sqlTx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = sqlTx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = sqlTx.Rollback()
		}
	}()
	tx := &Tx{tx: newTxConn(sqlTx, s.kept), engine: s.engine}
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.beforeCommit(ctx); err != nil {
		return err
	}
	if _, err = tx.flushEvents(ctx, false); err != nil {
		return err
	}
	if err = sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	s.committed(tx)
	return nil
}

// beforeCommit runs what every transaction does last before its events: has_children settled
// (deferred to the commit on PostgreSQL) and the idempotency claim marked.
func (tx *Tx) beforeCommit(ctx context.Context) error {
	if err := tx.settleChildrenAtCommit(ctx); err != nil {
		return err
	}
	if c := claimFrom(ctx); c != nil {
		return markCommitted(ctx, tx.tx, c)
	}
	return nil
}

// committed tells those who wait for writes that tx committed.
func (s *Store) committed(tx *Tx) {
	if len(tx.events) > 0 {
		s.events.ring()
	}
	if s.upkeep != nil {
		s.upkeep.wrote()
	}
	if s.pgUpkeep != nil {
		s.pgUpkeep.wrote()
	}
}

// readTx begins a read-only transaction whose statements all see one snapshot, fixed at its
// first statement, for a request that reads with several statements whose answers must agree
// (a search's tiers; a database query on PostgreSQL runs without one, QueryRecords says why). SQLite's read transaction is one
// snapshot already (WAL keeps showing it the moment it began). PostgreSQL's default, READ
// COMMITTED, takes a new snapshot at every statement, so there it is REPEATABLE READ: the same
// two round trips (BEGIN, COMMIT) as READ COMMITTED, and a read-only REPEATABLE READ transaction
// never fails to serialize. A read of one statement needs no transaction on either engine.
func (s *Store) readTx(ctx context.Context) (*sql.Tx, error) {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.engine == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	return s.read.BeginTx(ctx, opts)
}

// notFoundIf maps sql.ErrNoRows to a not_found error naming what.
func notFoundIf(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return quire.NotFound(what)
	}
	return err
}

// ExecForTest runs a statement in the transaction. Tests use it to lay down rows that the
// services of later layers would write.
func (tx *Tx) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := tx.tx.ExecContext(ctx, query, args...)
	return err
}

// Exec runs one statement, SQL text valid on both engines, in the transaction. For bulk loads
// (benchmark corpora) that the typed methods would make slow; the triggers index what it writes
// as they index every other write.
func (tx *Tx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := tx.tx.ExecContext(ctx, query, args...)
	return err
}
