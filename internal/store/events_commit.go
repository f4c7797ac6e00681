package store

import (
	"context"
	"github.com/quire-dev/quire/internal/quire"
)

// commitWithEvents writes evs, the last events of one workspace (eventsPerStatement at most),
// under provisional positions, and commits, in one round trip on PostgreSQL: the statements
// deferred to the commit (deferToCommit), the events' statement and COMMIT go to the server as
// one pipeline (commitPipeline).
//
// Why (docs/performance.md "PostgreSQL append, ninth pass" and "eleventh pass"): a round trip
// less for every write. The events' statement takes no lock shared by the workspace's writers
// (their positions are given after commit, stampEvents), so the COMMITs of a workspace's
// writers wait for the WAL's flush together.
//
// The COMMIT answers once its WAL is flushed: the write is acknowledged only when durable, and
// PostgreSQL makes a transaction visible only after its commit record is flushed. If a deferred
// statement or the events' statement fails, the server skips the rest of the pipeline and the
// transaction is rolled back as any failed write (releaseConn).
func (tx *Tx) commitWithEvents(ctx context.Context, evs []*quire.Event) error {
	query, args, err := tx.provisionalEvents(evs)
	if err != nil {
		return err
	}
	return tx.commitPipeline(ctx, query, args)
}

// deferredStmt is a statement whose result nothing in the transaction reads (PostgreSQL).
type deferredStmt struct {
	query string
	args  []any
}

// deferToCommit runs query at the end of the transaction instead of now: in the commit's
// pipeline (commitPipeline), with or without events. Its writes are
// part of the transaction as any other's; only statements whose result nothing reads, and
// that must or may run after every other statement of the transaction, are deferred:
// settling has_children (settleChildrenAtCommit) and taking back an append's queueing of its
// page (EndAppend). Each was a round trip of an append of its own ("PostgreSQL append,
// fourteenth pass" in docs/performance.md).
func (tx *Tx) deferToCommit(query string, args ...any) {
	tx.atCommit = append(tx.atCommit, deferredStmt{query: query, args: args})
}
