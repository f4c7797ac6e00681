package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// inTurns runs writers a and b so that on SQLite they share one COMMIT: a begins and holds the
// write turn until b queues behind it. On PostgreSQL they are two transactions side by side.
// It returns each one's answer (a panic is answered as an error naming it) and the settings
// keys the read pool saw the moment a answered.
func inTurns(t *testing.T, s *store.Store, ctxA, ctxB context.Context, a, b func(tx *store.Tx) error) (errA, errB error, seenA []string) {
	t.Helper()
	run := func(ctx context.Context, fn func(tx *store.Tx) error, err *error, done chan struct{}) {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				*err = fmt.Errorf("panicked: %v", p)
			}
		}()
		*err = s.InTx(ctx, fn)
	}
	started, hold := make(chan struct{}), make(chan struct{})
	doneA, doneB := make(chan struct{}), make(chan struct{})
	doneRunA := make(chan struct{})
	go func() {
		run(ctxA, func(tx *store.Tx) error { close(started); <-hold; return a(tx) }, &errA, doneRunA)
		seenA = settingsIn(t, s, "a", "b", "c", "d")
		close(doneA)
	}()
	<-started
	go run(ctxB, b, &errB, doneB)
	if grouped, _ := s.GroupsForTest(); grouped {
		for deadline := time.Now().Add(10 * time.Second); s.WritersWaitingForTest() != 1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the second writer never queued")
			}
		}
	}
	close(hold)
	<-doneA
	<-doneB
	return errA, errB, seenA
}

// setting writes settings row key in tx.
func setting(ctx context.Context, tx *store.Tx, key string) error {
	return tx.ExecForTest(ctx, `INSERT INTO settings (key, value) VALUES ($1, 'v')`, key)
}

// settingsIn returns which of keys the settings table holds, as the read pool sees it.
func settingsIn(t *testing.T, s *store.Store, keys ...string) []string {
	t.Helper()
	var got []string
	for _, k := range keys {
		rows, err := s.RowsForTest(ctx, `SELECT key FROM settings WHERE key = $1`, k)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rows...)
	}
	return got
}

// commitsSince checks, on SQLite, that want group COMMITs ran since before.
func commitsSince(t *testing.T, s *store.Store, before, want int64) {
	t.Helper()
	if grouped, n := s.GroupsForTest(); grouped && n-before != want {
		t.Errorf("COMMITs run = %d, want %d (one for the group)", n-before, want)
	}
}

// TestInTx_GroupMemberFails: a writer that fails in a shared transaction (its function errs, a
// statement of it fails, it panics) has its own work rolled back and answers its error; the
// writer before it in the group is committed, and answered only once its work is committed.
func TestInTx_GroupMemberFails(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		b    func(ctx context.Context, tx *store.Tx) error
		want string
	}{
		{"returns an error", func(ctx context.Context, tx *store.Tx) error {
			if err := setting(ctx, tx, "b"); err != nil {
				return err
			}
			return boom
		}, "boom"},
		{"a statement fails", func(ctx context.Context, tx *store.Tx) error {
			if err := setting(ctx, tx, "b"); err != nil {
				return err
			}
			return setting(ctx, tx, "b") // again: a unique violation
		}, "constraint"},
		{"panics", func(ctx context.Context, tx *store.Tx) error {
			if err := setting(ctx, tx, "b"); err != nil {
				return err
			}
			panic("boom")
		}, "panicked: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
				_, before := s.GroupsForTest()
				errA, errB, seenA := inTurns(t, s, ctx, ctx, func(tx *store.Tx) error { return setting(ctx, tx, "a") },
					func(tx *store.Tx) error { return tc.b(ctx, tx) })
				if errA != nil || errB == nil || !strings.Contains(strings.ToLower(errB.Error()), tc.want) {
					t.Fatalf("answers = %v, %v; want nil and %q", errA, errB, tc.want)
				}
				if diff := cmp.Diff([]string{"a"}, seenA); diff != "" {
					t.Errorf("settings when the first answered (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{"a"}, settingsIn(t, s, "a", "b")); diff != "" {
					t.Errorf("settings (-want +got):\n%s", diff)
				}
				commitsSince(t, s, before, 1)
				if err := s.InTx(ctx, func(tx *store.Tx) error { return setting(ctx, tx, "c") }); err != nil {
					t.Fatalf("a write after the group: %v", err)
				}
			})
		})
	}
}

// TestInTx_GroupMemberCancelled: a writer whose request is cancelled while it works in a shared
// transaction keeps nothing and answers the cancellation, and one cancelled while it waits for
// its turn answers at once; the writer before it is committed either way.
func TestInTx_GroupMemberCancelled(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctxB, cancel := context.WithCancel(ctx)
		errA, errB, _ := inTurns(t, s, ctx, ctxB, func(tx *store.Tx) error { return setting(ctx, tx, "a") },
			func(tx *store.Tx) error {
				cancel()
				return setting(ctxB, tx, "b")
			})
		if errA != nil || !errors.Is(errB, context.Canceled) {
			t.Fatalf("answers = %v, %v; want nil and context.Canceled", errA, errB)
		}
		if diff := cmp.Diff([]string{"a"}, settingsIn(t, s, "a", "b")); diff != "" {
			t.Errorf("settings (-want +got):\n%s", diff)
		}

		// Cancelled while a statement of it runs: SQLite would roll the whole shared transaction
		// back if the statement were interrupted, so it runs to its end and the writer then
		// answers the cancellation.
		ctxL, cancel := context.WithCancel(ctx)
		errA, errB, _ = inTurns(t, s, ctx, ctxL, func(tx *store.Tx) error { return setting(ctx, tx, "l") },
			func(tx *store.Tx) error {
				time.AfterFunc(20*time.Millisecond, cancel)
				return tx.ExecForTest(ctxL, `INSERT INTO settings (key, value)
					WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 300000)
					SELECT 'long' || x, 'v' FROM n`)
			})
		if errA != nil || !errors.Is(errB, context.Canceled) {
			t.Fatalf("answers = %v, %v; want nil and context.Canceled", errA, errB)
		}
		if diff := cmp.Diff([]string{"l"}, settingsIn(t, s, "l", "long1", "long300000")); diff != "" {
			t.Errorf("settings (-want +got):\n%s", diff)
		}

		// Cancelled while it waits for the turn (on PostgreSQL, while it works).
		ctxD, cancel := context.WithCancel(ctx)
		started, hold, doneC, doneD := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
		var errC, errD error
		go func() {
			defer close(doneC)
			errC = s.InTx(ctx, func(tx *store.Tx) error { close(started); <-hold; return setting(ctx, tx, "c") })
		}()
		<-started
		go func() {
			defer close(doneD)
			errD = s.InTx(ctxD, func(tx *store.Tx) error { <-ctxD.Done(); return setting(ctxD, tx, "d") })
		}()
		if grouped, _ := s.GroupsForTest(); grouped {
			for s.WritersWaitingForTest() != 1 {
				time.Sleep(time.Millisecond)
			}
		}
		cancel()
		<-doneD // answered while the writer before it still holds the turn
		close(hold)
		<-doneC
		if errC != nil || !errors.Is(errD, context.Canceled) {
			t.Fatalf("answers = %v, %v; want nil and context.Canceled", errC, errD)
		}
		if diff := cmp.Diff([]string{"c"}, settingsIn(t, s, "c", "d")); diff != "" {
			t.Errorf("settings (-want +got):\n%s", diff)
		}
	})
}

// TestInTx_GroupIdempotency: each writer's idempotency claim is marked committed with its own
// work in the shared transaction, a failed writer's is left pending (so its retry runs afresh),
// and the committed one's stored answer is what a replay of its key finds.
func TestInTx_GroupIdempotency(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		now := quire.NowMillis()
		claim := func(key string) context.Context {
			c, rec, err := s.ClaimIdempotency(ctx, "tok", key, "hash-"+key, now, now-60_000, now-86_400_000)
			if err != nil || c == nil {
				t.Fatalf("claim %s = %v, %v, %v", key, c, rec, err)
			}
			return store.WithIdempotencyClaim(ctx, c)
		}
		ctxA, ctxB := claim("ka"), claim("kb")
		errA, errB, _ := inTurns(t, s, ctxA, ctxB, func(tx *store.Tx) error { return setting(ctx, tx, "a") },
			func(tx *store.Tx) error { return errors.New("boom") })
		if errA != nil || errB == nil {
			t.Fatalf("answers = %v, %v; want nil and boom", errA, errB)
		}
		state := func(key string) string {
			rec, err := s.IdempotencyRecord(ctx, "tok", key)
			if err != nil {
				t.Fatal(err)
			}
			return rec.State
		}
		if a, b := state("ka"), state("kb"); a != store.IdemCommitted || b != store.IdemPending {
			t.Errorf("claims = %s, %s; want committed, pending", a, b)
		}
		c, _, _ := s.ClaimIdempotency(ctx, "tok", "ka", "hash-ka", now, now-60_000, now-86_400_000)
		if c != nil {
			t.Fatalf("a committed key was claimed again")
		}
	})
}

// TestInTx_GroupEvents: the events of each writer of a shared transaction are written once,
// each writer's in order, and a failed writer's not at all.
func TestInTx_GroupEvents(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		a, b, c := quire.NewID(), quire.NewID(), quire.NewID()
		_, before := s.GroupsForTest()
		errA, errB, _ := inTurns(t, s, ctx, ctx, func(tx *store.Tx) error {
			tx.Record(event(ws.ID, quire.EventPageCreated, a, quire.EventData{}))
			return nil
		}, func(tx *store.Tx) error {
			tx.Record(event(ws.ID, quire.EventPageCreated, b, quire.EventData{}))
			return nil
		})
		if errA != nil || errB != nil {
			t.Fatalf("answers = %v, %v", errA, errB)
		}
		commitsSince(t, s, before, 1)
		_, errB, _ = inTurns(t, s, ctx, ctx, func(tx *store.Tx) error {
			tx.Record(event(ws.ID, quire.EventPageCreated, c, quire.EventData{}))
			return nil
		}, func(tx *store.Tx) error {
			tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
			return errors.New("boom")
		})
		if errB == nil {
			t.Fatal("the failing writer answered nil")
		}
		evs, err := s.Events(ctx, ws.ID, 0, 100, store.EventFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range evs {
			got = append(got, fmt.Sprintf("%d %s", ev.Seq, ev.EntityID))
		}
		// The first pair committed side by side on PostgreSQL, in either order.
		want := []string{"1 " + a, "2 " + b, "3 " + c}
		if len(got) == 3 && got[0] == "1 "+b {
			want[0], want[1] = "1 "+b, "2 "+a
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

// TestInTx_GroupCommitFails: when the shared COMMIT fails, every writer of the group answers
// the error, none of their work or idempotency claims is kept, and the writer is usable after.
// SQLite only: the failure is a deferred foreign key, and PostgreSQL's writers do not share
// COMMITs.
func TestInTx_GroupCommitFails(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if grouped, _ := s.GroupsForTest(); !grouped {
			t.Skip("writers share COMMITs on SQLite only")
		}
		now := quire.NowMillis()
		claim := func(key string) context.Context {
			c, _, err := s.ClaimIdempotency(ctx, "tok", key, "h", now, now-60_000, now-86_400_000)
			if err != nil || c == nil {
				t.Fatalf("claim %s: %v", key, err)
			}
			return store.WithIdempotencyClaim(ctx, c)
		}
		errA, errB, _ := inTurns(t, s, claim("ka"), claim("kb"), func(tx *store.Tx) error { return setting(ctx, tx, "a") },
			func(tx *store.Tx) error {
				if err := tx.ExecForTest(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
					return err
				}
				return tx.ExecForTest(ctx, `INSERT INTO users (id, workspace_id, name, email, created_ms)
					VALUES ('u', 'no such workspace', 'U', 'u@example.com', 0)`)
			})
		if errA == nil || errB == nil || errA.Error() != errB.Error() || !strings.Contains(errA.Error(), "commit") {
			t.Fatalf("answers = %v, %v; want the COMMIT's error for both", errA, errB)
		}
		if got := settingsIn(t, s, "a"); len(got) != 0 {
			t.Errorf("settings = %v, want none", got)
		}
		for _, key := range []string{"ka", "kb"} {
			if rec, err := s.IdempotencyRecord(ctx, "tok", key); err != nil || rec.State != store.IdemPending {
				t.Errorf("claim %s = %+v, %v; want pending", key, rec, err)
			}
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error { return setting(ctx, tx, "c") }); err != nil {
			t.Fatalf("a write after the failed COMMIT: %v", err)
		}
		if diff := cmp.Diff([]string{"c"}, settingsIn(t, s, "a", "c")); diff != "" {
			t.Errorf("settings (-want +got):\n%s", diff)
		}
	})
}
