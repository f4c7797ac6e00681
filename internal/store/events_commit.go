package store

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/quire-dev/quire/internal/quire"
)

// commitWithHead writes evs, the last events of workspace ws (eventsPerStatement at most), and
// commits, in one round trip on PostgreSQL: the head's statement, COMMIT and a BEGIN go to the
// server as one pipeline (pgx's batch, one Sync) on the transaction's connection.
//
// Why (docs/performance.md "PostgreSQL append, ninth pass"): the head's row lock is held until
// the transaction ends, so every writer of a workspace waits for the one holding it. Sent apart,
// the head's answer went back to Quire and the COMMIT came after it, and the lock stayed held
// for that round trip and for the scheduling of both processes around it, as long as the COMMIT
// itself on a busy machine; 16 connections appending to one workspace spent most of their time
// waiting on that lock. In one pipeline the server runs COMMIT as soon as the head's statement
// ends, and the lock is held for the statement, the WAL's flush and nothing else.
//
// The COMMIT answers once its WAL is flushed, as before: the write is acknowledged only when
// durable. If the head's statement fails, the server skips the rest of the pipeline and the
// transaction is rolled back by InTx as any failed write. The BEGIN leaves the connection in an
// empty transaction for database/sql's Commit, which always sends a COMMIT: ending that empty
// transaction writes nothing and waits on no flush, where a COMMIT outside any transaction
// would put a warning in PostgreSQL's log at every write.
func (tx *Tx) commitWithHead(ctx context.Context, ws string, evs []*quire.Event) error {
	q, args, err := tx.eventValues(evs, 4, true)
	if err != nil {
		return err
	}
	query := headEventsSQL(q)
	if tx.observe != nil {
		tx.observe(query)
	}
	var last int64
	err = tx.conn.Raw(func(dc any) error {
		conn, err := pgxConn(dc)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(query, append([]any{ws, int64(len(evs)), evs[0].CreatedMs}, args...)...).QueryRow(func(r pgx.Row) error {
			return r.Scan(&last)
		})
		b.Queue("COMMIT")
		b.Queue("BEGIN")
		return conn.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	setSeqs(evs, last)
	// The write is committed: a failure to end the empty transaction (a connection lost just
	// now) loses nothing, and database/sql then drops the connection.
	if err := tx.tx.Commit(); err != nil {
		slog.Warn("ending the empty transaction after a commit failed", "err", err)
	}
	return nil
}
