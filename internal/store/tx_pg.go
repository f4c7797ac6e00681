package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/quire-dev/quire/internal/sqlq"
)

// A write transaction on PostgreSQL runs on a connection held for it (sql.Conn), without
// database/sql's Tx, so that its BEGIN and COMMIT travel with its statements instead of alone.
//
// Why (docs/performance.md, "PostgreSQL append, fifteenth pass"): database/sql's BeginTx sends
// BEGIN and waits for its answer before the first statement, and its Commit always sends a
// COMMIT of its own; so the commit's pipeline (commitWithEvents) ended with a BEGIN that left
// an empty transaction for that COMMIT to end, a round trip on the answer's path. Each round
// trip costs Quire a write, a read, a park in the network poller and a wake-up. Here:
//
//   - BEGIN is sent ahead of the transaction's first statement that goes below database/sql
//     (exchange, execBound, a pgx batch: one write, one Sync, one answer), or alone just before
//     its first statement through database/sql (beginAlone), which is what BeginTx did. No
//     statement of the transaction is ever sent before its BEGIN.
//   - COMMIT ends the commit's pipeline (after the deferred statements and the events') and is
//     the transaction's last message; its answer is read and its tag checked (a transaction
//     that failed earlier answers COMMIT with ROLLBACK, which is an error here as in pgx's Tx).
//   - Whatever way fn or the commit fails (a statement's error, a cancelled context, a panic),
//     releaseConn rolls back whatever is still open before the connection goes back to the
//     pool, and closes it instead when it cannot be sure the connection is idle and outside
//     any transaction. pgx's ResetSession refuses such a connection too.

// pgBegin is whether a PostgreSQL transaction's BEGIN is sent yet.
type pgBegin struct {
	sent bool
	err  error // BEGIN sent alone failed: the transaction has no statement after it
}

// ended is a context already done: a statement run under it sends nothing.
var ended = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// rollbackWait bounds the ROLLBACK releaseConn sends; a connection that does not answer in
// time is closed.
const rollbackWait = 5 * time.Second

// inTxOnConn is InTx on PostgreSQL.
func (s *Store) inTxOnConn(ctx context.Context, fn func(tx *Tx) error) (err error) {
	done, err := s.writeTurn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer done()
	// The transaction outlives its client by up to writeGrace (detachWrite says why).
	ctx, end := detachWrite(ctx)
	defer end()
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer releaseConn(ctx, conn) // also when fn panics
	tx := &Tx{tx: &txConn{q: conn, ctx: ctx, pg: &pgBegin{}}, conn: conn, engine: s.engine}
	if s.pg != nil {
		tx.observe = s.pg.observe
	}
	if err = fn(tx); err != nil {
		return tx.tx.beginFailed(err)
	}
	if err = tx.beforeCommit(ctx); err != nil {
		return tx.tx.beginFailed(err)
	}
	committed, err := tx.flushEvents(ctx, true)
	if err != nil {
		return tx.tx.beginFailed(err)
	}
	if !committed {
		if err = tx.commitPipeline(ctx, "", nil); err != nil {
			return err
		}
	}
	s.committed(tx)
	return nil
}

// beginFailed is err, or the failure of the BEGIN sent alone that it follows from.
func (c *txConn) beginFailed(err error) error {
	if c.pg != nil && c.pg.err != nil {
		return c.pg.err
	}
	return err
}

// beginAlone sends BEGIN by itself when the transaction has not begun, before a statement that
// goes through database/sql (PostgreSQL; on SQLite, database/sql's Tx began it).
func (c *txConn) beginAlone(ctx context.Context) error {
	b := c.pg
	if b == nil || b.sent {
		if b != nil {
			return b.err
		}
		return nil
	}
	b.sent = true
	if _, err := c.q.ExecContext(ctx, "BEGIN"); err != nil {
		b.err = fmt.Errorf("begin: %w", err)
	}
	return b.err
}

// beginAhead tells a statement sent below database/sql whether to send BEGIN ahead of it in the
// same write; it counts BEGIN as sent from then on, whatever the statement's fate.
func (c *txConn) beginAhead() (bool, error) {
	b := c.pg
	if b == nil || b.sent {
		if b != nil {
			return false, b.err
		}
		return false, nil
	}
	b.sent = true
	return true, nil
}

// sendBegin queues BEGIN (the unnamed statement: Parse, Bind, Execute) in fe's buffer, ahead of
// a statement and the one Sync that ends both. Its answers (ParseComplete, BindComplete,
// CommandComplete) are read and passed over by receive; an error in it skips the statement.
func sendBegin(fe *pgproto3.Frontend) {
	fe.SendParse(&pgproto3.Parse{Query: "BEGIN"})
	fe.SendBind(&pgproto3.Bind{})
	fe.SendExecute(&pgproto3.Execute{})
}

// batchBegin queues BEGIN first in b when the transaction has not begun.
func (c *txConn) batchBegin(b *pgx.Batch) error {
	begin, err := c.beginAhead()
	if begin {
		b.Queue("BEGIN")
	}
	return err
}

// commitPipeline ends the transaction in one round trip: the statements deferred to the commit
// (deferToCommit), then the events' statement query with args when there is one, then COMMIT,
// as one pipeline (pgx's batch, one Sync). Each statement runs after the one before has ended,
// on a snapshot of its own, as it would have alone; a failure skips the rest, COMMIT included,
// and the transaction is rolled back (releaseConn). A transaction that never began wrote
// nothing and sends nothing.
func (tx *Tx) commitPipeline(ctx context.Context, query string, args []any) error {
	if !tx.tx.pg.sent && len(tx.atCommit) == 0 && query == "" {
		return nil
	}
	if tx.observe != nil {
		for _, d := range tx.atCommit {
			tx.observe(d.query)
		}
		if query != "" {
			tx.observe(query)
		}
	}
	b := &pgx.Batch{}
	if err := tx.tx.batchBegin(b); err != nil {
		return err
	}
	for _, d := range tx.atCommit {
		b.Queue(d.query, d.args...)
	}
	if query != "" {
		b.Queue(query, args...)
	}
	b.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error {
		if ct.String() != "COMMIT" {
			return fmt.Errorf("store: COMMIT answered %q: %w", ct.String(), pgx.ErrTxCommitRollback)
		}
		return nil
	})
	err := tx.onConn(nil, func(conn *pgx.Conn) error {
		return conn.SendBatch(tx.tx.within(ctx), b).Close()
	})
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	tx.atCommit = nil
	return nil
}

// releaseConn hands conn back to the pool once it is idle outside any transaction: a transaction
// still open (fn or the commit failed, or panicked) is rolled back first. A connection that
// is closed, busy, or does not end up idle after the ROLLBACK is closed instead: database/sql
// drops a connection whose Raw function says driver.ErrBadConn.
func releaseConn(ctx context.Context, conn *sql.Conn) {
	_ = conn.Raw(func(dc any) error {
		c, err := pgxConn(dc)
		if err != nil {
			return err
		}
		pc := c.PgConn()
		if pc.IsClosed() || pc.IsBusy() {
			return driver.ErrBadConn
		}
		if pc.TxStatus() == 'I' {
			return nil
		}
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackWait)
		defer cancel()
		if err := pc.Exec(rctx, "ROLLBACK").Close(); err != nil || pc.TxStatus() != 'I' {
			return driver.ErrBadConn
		}
		return nil
	})
	conn.Close()
}

// queryRow reads the one row of query in the transaction into scan, or answers sql.ErrNoRows.
// On PostgreSQL it goes below database/sql (exchange on the transaction's connection), with
// BEGIN ahead of it when it is the transaction's first statement: the round trip BeginTx spent
// alone. Arguments exchange does not send as text go through database/sql.
func (tx *Tx) queryRow(ctx context.Context, query string, args []any, scan func(r sqlq.Scanner) error) error {
	params, text := textParams(args)
	if tx.conn == nil || !text {
		return scan(tx.tx.QueryRowContext(ctx, query, args...))
	}
	ctx = tx.tx.within(ctx)
	found := false
	err := tx.onConn([]string{query}, func(conn *pgx.Conn) error {
		return exchange(ctx, conn, tx.tx.beginAhead, query, params, func(r *pgRow) (bool, error) {
			found = true
			return false, scan(r)
		})
	})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	return err
}

// onConn runs fn on the pgx connection under the transaction's held connection (PostgreSQL),
// after telling the observer (tests) each statement fn is about to send: the preamble of every
// statement or pipeline the store writes below database/sql inside a transaction.
func (tx *Tx) onConn(queries []string, fn func(conn *pgx.Conn) error) error {
	if tx.observe != nil {
		for _, q := range queries {
			tx.observe(q)
		}
	}
	return tx.conn.Raw(func(dc any) error {
		conn, err := pgxConn(dc)
		if err != nil {
			return err
		}
		return fn(conn)
	})
}
