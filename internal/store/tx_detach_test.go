package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// openConns is how many connections the store's pools hold open.
func openConns(s *store.Store) int {
	n := 0
	for _, p := range s.PoolStats() {
		n += p.OpenConnections
	}
	return n
}

// TestInTx_ClientGone: a write whose request is cancelled in the middle (its client went away).
// On PostgreSQL the write goes on and commits, both a statement sent after the cancellation and
// one the cancellation met on the server, and its connection stays open in the pool (pgx closes
// a connection whose statement's context is cancelled, so before detachWrite the write was
// rolled back and the pool lost the connection). On SQLite the write is rolled back, as before.
func TestInTx_ClientGone(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		bg := context.Background()
		pg := s.Engine() == store.Postgres
		head := func(ctx context.Context, tx *store.Tx, ws string) error {
			return tx.ExecForTest(ctx, `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, 0, 0)`, ws)
		}
		if err := s.InTx(bg, func(tx *store.Tx) error { return head(bg, tx, "warm") }); err != nil {
			t.Fatal(err)
		}
		before := openConns(s)
		ctx, cancel := context.WithCancel(bg)
		err := s.InTx(ctx, func(tx *store.Tx) error {
			if err := head(ctx, tx, "gone-before"); err != nil {
				return err
			}
			if pg { // cancelled while the server runs the statement
				time.AfterFunc(50*time.Millisecond, cancel)
				if err := tx.ExecForTest(ctx, `SELECT pg_sleep(0.3)`); err != nil {
					return err
				}
			}
			cancel()
			return head(ctx, tx, "gone-after")
		})
		rows, rerr := s.RowsForTest(bg, `SELECT workspace_id FROM event_heads WHERE workspace_id LIKE 'gone-%' ORDER BY workspace_id`)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if !pg {
			if err == nil || len(rows) != 0 {
				t.Fatalf("SQLite: InTx = %v, rows %v; want an error and nothing written", err, rows)
			}
			return
		}
		if err != nil || !slices.Equal(rows, []string{"gone-after", "gone-before"}) {
			t.Fatalf("InTx = %v, rows %v; want the write committed whole", err, rows)
		}
		if after := openConns(s); after != before {
			t.Fatalf("open connections %d after the write, %d before; want the write's kept", after, before)
		}
	})
}

// TestInTx_ClientGoneGraceEnds: a PostgreSQL write still waiting writeGrace after its request
// was cancelled (here for a row lock another write holds) is cancelled then, writes nothing, and
// returns; the write holding the lock is not disturbed.
func TestInTx_ClientGoneGraceEnds(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if s.Engine() != store.Postgres {
			t.Skip("SQLite runs one write at a time; no write waits for another's row lock")
		}
		const grace = 300 * time.Millisecond
		defer store.SetWriteGraceForTest(grace)()
		bg := context.Background()
		if err := s.InTx(bg, func(tx *store.Tx) error {
			return tx.ExecForTest(bg, `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ('held', 0, 0)`)
		}); err != nil {
			t.Fatal(err)
		}
		locked, release, holder := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			holder <- s.InTx(bg, func(tx *store.Tx) error {
				if err := tx.ExecForTest(bg, `UPDATE event_heads SET seq = 1 WHERE workspace_id = 'held'`); err != nil {
					return err
				}
				close(locked)
				<-release
				return nil
			})
		}()
		<-locked
		var once sync.Once
		free := func() { once.Do(func() { close(release) }) }
		time.AfterFunc(3*time.Second, free) // a write that is never cancelled gets the lock then
		ctx, cancel := context.WithCancel(bg)
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `UPDATE event_heads SET seq = 2 WHERE workspace_id = 'held'`)
		})
		took := time.Since(start)
		free()
		if herr := <-holder; herr != nil {
			t.Fatalf("the lock's holder: %v", herr)
		}
		if err == nil || took < 100*time.Millisecond+grace || took > 3*time.Second {
			t.Fatalf("waiting write = %v after %v; want an error once the grace (%v) after the cancellation (100ms) is over", err, took, grace)
		}
		rows, err := s.RowsForTest(bg, `SELECT seq FROM event_heads WHERE workspace_id = 'held'`)
		if err != nil || !slices.Equal(rows, []string{"1"}) {
			t.Fatalf("seq = %v, %v; want 1 (the holder's write, not the cancelled one)", rows, err)
		}
	})
}
