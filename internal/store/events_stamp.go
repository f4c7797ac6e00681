package store

import (
	"context"
	"fmt"
)

// stampEvents gives workspace ws's committed provisional events (PostgreSQL, flushEvents) their
// positions in the feed, after its head, and returns once they are durable. Every reader of the
// feed calls it before reading (Events, EventHead, the sweep; the webhook worker reads through
// Events), so a write acknowledged before a read is in that read. SQLite gives positions at the
// write: nothing to do.
//
// Why it keeps the feed's promises:
//   - Only committed events are numbered: a provisional event is seen by this transaction's
//     statement only once its write has committed, and PostgreSQL makes a commit visible only
//     after its commit record is flushed. An event whose write is still running is numbered by a
//     later read, after everything numbered now; one whose write rolls back never was.
//   - Stampers of a workspace take its head row's lock, so they number one after another, each
//     after the last position the one before gave; each stamper commits all its positions at
//     once. A reader that has seen position n has seen every position below n, and never later
//     finds a new event below n. Several servers on one database stamp under the same lock.
//   - A position never changes once read: the stamper commits (synchronously, so durably) before
//     its caller reads.
//   - Within a stamp, events go in the order of their provisional keys, drawn by each write's
//     last statement while it holds the row locks of what it changed. Of two writes of one
//     entity, the later waited for the earlier's commit before drawing its key, so their events
//     are numbered in commit order, in one stamp or in two.
//
// The check for provisional events is one probe of the primary key on the read pool; only when
// it finds one does a write transaction follow (two statements and a COMMIT).
func (s *Store) stampEvents(ctx context.Context, ws string) error {
	if s.engine != Postgres {
		return nil
	}
	var pending bool
	err := s.read.QueryRowContext(ctx, stampProbe, ws).Scan(&pending)
	if err != nil || !pending {
		return err
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stamp events: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit: nothing to undo
	// The lock first, in its own statement: under READ COMMITTED the numbering statement then
	// takes its snapshot after the previous stamper committed, and sees its positions.
	var head int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, 0, 0)
		ON CONFLICT (workspace_id) DO UPDATE SET seq = event_heads.seq RETURNING seq`, ws).Scan(&head); err != nil {
		return fmt.Errorf("stamp events: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stampSQL, ws, head); err != nil {
		return fmt.Errorf("stamp events: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("stamp events: %w", err)
	}
	return nil
}

// stampProbe asks whether workspace $1 has events without a position: a range of the primary
// key, which holds the negative positions before every numbered one.
const stampProbe = `SELECT EXISTS (SELECT 1 FROM events WHERE workspace_id = $1 AND seq < 0)`

// stampSQL numbers workspace $1's visible provisional events after its head $2, in the order
// of their provisional keys (-key ascending: the order the sequence gave them, and within a
// statement the order recorded), and moves the head to the last.
const stampSQL = `WITH p AS (
		SELECT seq AS old, $2::bigint + row_number() OVER (ORDER BY seq DESC) AS new
		FROM events WHERE workspace_id = $1 AND seq < 0),
	u AS (UPDATE events e SET seq = p.new FROM p WHERE e.workspace_id = $1 AND e.seq = p.old RETURNING p.new)
	UPDATE event_heads SET seq = COALESCE((SELECT max(new) FROM u), seq) WHERE workspace_id = $1`

// NumberProvisionalEvents gives every provisional event the transaction sees its position after
// its workspace's head, in the order stampEvents gives them, on either engine. A restore runs
// it before it commits: a backup of a PostgreSQL store may hold events written but not yet
// read, which SQLite, giving positions at the write, would otherwise never number. A backup
// taken while nobody read the feed can hold an hour of them (the sweep numbers the rest), so
// each workspace's are numbered by one statement (numberSQL), not one statement an event.
func (tx *Tx) NumberProvisionalEvents(ctx context.Context) error {
	rows, err := tx.tx.QueryContext(ctx, `SELECT DISTINCT workspace_id FROM events WHERE seq < 0`)
	wss, err := scanAll(rows, err, func(r interface{ Scan(...any) error }) (string, error) {
		var ws string
		return ws, r.Scan(&ws)
	})
	if err != nil {
		return err
	}
	for _, ws := range wss {
		var head int64
		if err := tx.tx.QueryRowContext(ctx, headSQL, ws, 0).Scan(&head); err != nil {
			return err
		}
		res, err := tx.tx.ExecContext(ctx, numberSQL, ws, head)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if err := tx.tx.QueryRowContext(ctx, headSQL, ws, n).Scan(&head); err != nil {
			return err
		}
	}
	return nil
}

// numberSQL numbers workspace $1's provisional events after position $2 in stampSQL's order,
// in one statement whose text both engines take (SQLite has no UPDATE in a WITH, so the head
// is moved by the caller). The new positions are all above the head and the old ones below
// zero, so no two rows share a key at any point of the update.
const numberSQL = `UPDATE events SET seq = p.new
	FROM (SELECT seq AS old, $2 + row_number() OVER (ORDER BY seq DESC) AS new
		FROM events WHERE workspace_id = $1 AND seq < 0) AS p
	WHERE events.workspace_id = $1 AND events.seq = p.old`
