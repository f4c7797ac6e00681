package store

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/quire-dev/quire/internal/quire"
)

// commitWithEvents writes evs, the last events of one workspace (eventsPerStatement at most),
// under provisional positions, and commits, in one round trip on PostgreSQL: the statements
// deferred to the commit (deferToCommit), the events' statement, COMMIT and a BEGIN go to the
// server as one pipeline (pgx's batch, one Sync) on the transaction's connection. Each
// statement of the pipeline runs after the one before has ended, on a snapshot of its own, as
// it would have alone.
//
// Why (docs/performance.md "PostgreSQL append, ninth pass" and "eleventh pass"): a round trip
// less for every write. The events' statement takes no lock shared by the workspace's writers
// (their positions are given after commit, stampEvents), so the COMMITs of a workspace's
// writers wait for the WAL's flush together.
//
// The COMMIT answers once its WAL is flushed: the write is acknowledged only when durable, and
// PostgreSQL makes a transaction visible only after its commit record is flushed. If a deferred
// statement or the events' statement fails, the server skips the rest of the pipeline and the transaction is rolled back
// by InTx as any failed write. The BEGIN leaves the connection in an empty transaction for
// database/sql's Commit, which always sends a COMMIT: ending that empty transaction writes
// nothing and waits on no flush, where a COMMIT outside any transaction would put a warning in
// PostgreSQL's log at every write.
func (tx *Tx) commitWithEvents(ctx context.Context, evs []*quire.Event) error {
	query, args, err := tx.provisionalEvents(evs)
	if err != nil {
		return err
	}
	if tx.observe != nil {
		for _, d := range tx.atCommit {
			tx.observe(d.query)
		}
		tx.observe(query)
	}
	err = tx.conn.Raw(func(dc any) error {
		conn, err := pgxConn(dc)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		for _, d := range tx.atCommit {
			b.Queue(d.query, d.args...)
		}
		b.Queue(query, args...)
		b.Queue("COMMIT")
		b.Queue("BEGIN")
		return conn.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	// The write is committed: a failure to end the empty transaction (a connection lost just
	// now) loses nothing, and database/sql then drops the connection.
	if err := tx.tx.Commit(); err != nil {
		slog.Warn("ending the empty transaction after a commit failed", "err", err)
	}
	return nil
}

// deferredStmt is a statement whose result nothing in the transaction reads (PostgreSQL).
type deferredStmt struct {
	query string
	args  []any
}

// deferToCommit runs query at the end of the transaction instead of now: in the commit's
// pipeline (commitWithEvents), or just before a plain commit (runDeferred). Its writes are
// part of the transaction as any other's; only statements whose result nothing reads, and
// that must or may run after every other statement of the transaction, are deferred:
// settling has_children (settleChildrenAtCommit) and taking back an append's queueing of its
// page (EndAppend). Each was a round trip of an append of its own ("PostgreSQL append,
// fourteenth pass" in docs/performance.md).
func (tx *Tx) deferToCommit(query string, args ...any) {
	tx.atCommit = append(tx.atCommit, deferredStmt{query: query, args: args})
}

// runDeferred runs the deferred statements one by one, for a commit without a pipeline.
func (tx *Tx) runDeferred(ctx context.Context) error {
	for _, d := range tx.atCommit {
		if _, err := tx.tx.ExecContext(ctx, d.query, d.args...); err != nil {
			return err
		}
	}
	tx.atCommit = nil
	return nil
}
