package store_test

import (
	"context"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestEvents_HeadFailureRollsBackWrite: when the outbox's statement fails (here the position it
// takes is already used: on SQLite the head's next one, on PostgreSQL the next provisional key,
// migration 00037), nothing of the write is kept, on PostgreSQL where that statement goes to the
// server in one pipeline with COMMIT (events_commit.go) as on SQLite; the store's connections
// then serve the next write, whose event is then at position 1 of the feed.
func TestEvents_HeadFailureRollsBackWrite(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		squatSeq, pg := 1, s.Engine() == store.Postgres
		if pg {
			squatSeq = -(1000 + 128 + 1) // the first event of the statement after setval(…, 1000)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.ExecForTest(ctx, q, args...) }); err != nil {
				t.Fatal(err)
			}
		}
		exec(`INSERT INTO events (workspace_id, seq, id, type, entity_type, entity_id, parent_type, parent_id,
			reach_id, user_id, bot_id, data, created_ms) VALUES ($1, $2, 'squatter', 'page.created', 'page', 'x', 'workspace', '', 'x', '', '', '{}', 0)`,
			ws.ID, squatSeq)
		if pg { // the squatter is a committed provisional event: its head row as a write makes it
			exec(`INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, 0, 0)`, ws.ID)
		}
		write := func() error {
			if pg {
				exec(`SELECT setval('events_provisional', 1000)`)
			}
			return s.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.ExecForTest(ctx, `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ('other', 5, 0)`); err != nil {
					return err
				}
				tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				return nil
			})
		}
		for range 3 { // more than once: a connection left in a failed state would fail the next
			if err := write(); err == nil {
				t.Fatal("write whose event takes a used position: no error")
			}
		}
		rows, err := s.RowsForTest(ctx, `SELECT workspace_id, seq FROM event_heads WHERE workspace_id = 'other' OR seq <> 0`)
		if err != nil || len(rows) != 0 {
			t.Fatalf("heads after the failed writes = %v, %v; want none (the write's own row rolled back too)", rows, err)
		}
		exec(`DELETE FROM events WHERE id = 'squatter'`)
		if err := write(); err != nil {
			t.Fatalf("write once the position is free: %v", err)
		}
		evs, err := s.Events(ctx, ws.ID, 0, 10, store.EventFilter{})
		if err != nil || len(evs) != 1 || evs[0].Seq != 1 {
			t.Fatalf("events = %+v, %v; want one at position 1", evs, err)
		}
	})
}

// TestEvents_CommitEndsTransaction: on PostgreSQL a write with events commits in the pipeline
// with its head and leaves its connection in an empty transaction that database/sql's Commit
// ends; no pooled connection may stay inside a transaction after the writes return, and every
// write is visible to another connection as soon as InTx returns.
func TestEvents_CommitEndsTransaction(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if s.Engine() != store.Postgres {
			t.Skip("PostgreSQL's pipeline")
		}
		ctx := context.Background()
		ws, _ := seed(t, s)
		for i := range 20 {
			if err := s.InTx(ctx, func(tx *store.Tx) error {
				tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if last, _, err := s.EventHead(ctx, ws.ID); err != nil || last != int64(i+1) {
				t.Fatalf("head after write %d = %d, %v; want %d", i+1, last, err, i+1)
			}
		}
		rows, err := s.RowsForTest(ctx, `SELECT state FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`)
		if err != nil || len(rows) != 0 {
			t.Fatalf("connections inside a transaction after the writes: %v, %v", rows, err)
		}
	})
}
