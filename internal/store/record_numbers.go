package store

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
)

// A batch that only creates records of a database without dual relations (a seeding, an
// import) does not need the database's row to itself for most of its transaction: nothing it
// writes before numbering its records depends on another writer's records. On PostgreSQL it
// holds the database's row FOR SHARE instead (SharedNode), which every schema change, trash and
// other record writer (FOR UPDATE, UPDATE) still waits for, and takes the database's numbering
// lock (LockRecordNumbers) only to read the next number and write the number rows, just before
// COMMIT. So the nodes rows of several batches, with their indexes, search entries and trigger
// work, are written side by side, and only the numbering goes one batch at a time
// (docs/performance.md, "PostgreSQL search and seeding, sixteenth pass"). A transaction that
// holds the row FOR SHARE must never ask for it FOR UPDATE (two such would wait for each other).

// SharedNode is LockedNode with the row held shared: node id of workspace ws, read once no
// writer that locks it exclusively is running, and kept so until the transaction ends. shared
// is true on PostgreSQL; on SQLite, whose one writer needs no row locks, it is false and the
// caller numbers as under LockedNode.
func (tx *Tx) SharedNode(ctx context.Context, ws, id string) (n *quire.Node, shared bool, err error) {
	if tx.engine != Postgres {
		n, err = tx.LockedNode(ctx, ws, id)
		return n, false, err
	}
	n, err = tx.nodeLocking(ctx, ws, id, " FOR SHARE")
	return n, err == nil, err
}

// LockRecordNumbers holds database db's numbering lock until the transaction ends: a writer
// that holds the database's row only FOR SHARE takes it before NextRecordNumber, so that two
// such writers never give out the same numbers. A writer that holds the row FOR UPDATE needs
// none (no shared holder runs beside it). PostgreSQL only; SQLite has one writer.
func (tx *Tx) LockRecordNumbers(ctx context.Context, db string) error {
	if tx.engine != Postgres {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "numbers:"+db)
	return err
}
