package store_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// feedIDs reads workspace ws's whole feed and returns its events' ids in position order,
// failing unless the positions run from first with no gap or repeat.
func feedIDs(t *testing.T, s *store.Store, ws string, first int64) []string {
	t.Helper()
	evs, err := s.Events(context.Background(), ws, first-1, 1000, store.EventFilter{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(evs))
	for i, ev := range evs {
		if ev.Seq != first+int64(i) {
			t.Fatalf("event %d at position %d; want %d", i, ev.Seq, first+int64(i))
		}
		ids[i] = ev.ID
	}
	return ids
}

// recordOne commits a write of one event of entity in workspace ws and returns the event's id.
func recordOne(t *testing.T, s *store.Store, ws, entity string) string {
	t.Helper()
	ev := event(ws, quire.EventPageCreated, entity, quire.EventData{})
	if err := s.InTx(context.Background(), func(tx *store.Tx) error { tx.Record(ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return ev.ID
}

// TestEvents_HeldWriteNumberedAfter (PostgreSQL, where a write's events take their positions
// after it commits, store/events_stamp.go): a write whose events are written but whose
// transaction is still open has no position and does not hold back a later write that
// committed; once it commits, its event is numbered after those already read, which keep their
// positions. A write rolled back after writing its events leaves nothing in the feed.
func TestEvents_HeldWriteNumberedAfter(t *testing.T) {
	s := testdb.Postgres(t)
	ctx := context.Background()
	ws, _ := seed(t, s)
	first := recordOne(t, s, ws.ID, "first") // the head row exists: a new one waits for its creator
	hold := func(ev quire.Event, result error) (flushed chan struct{}, release chan struct{}, done chan error) {
		flushed, release, done = make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			done <- s.InTx(ctx, func(tx *store.Tx) error {
				tx.Record(ev)
				err := tx.FlushEventsForTest(ctx)
				close(flushed)
				<-release
				return errors.Join(err, result)
			})
		}()
		<-flushed
		return flushed, release, done
	}
	held := event(ws.ID, quire.EventPageCreated, "held", quire.EventData{})
	_, release, done := hold(held, nil)
	later := recordOne(t, s, ws.ID, "later")
	if got, want := feedIDs(t, s, ws.ID, 1), []string{first, later}; !slices.Equal(got, want) {
		t.Fatalf("feed while a write is open = %v; want %v (the open write's event without a position)", got, want)
	}
	if last, _, err := s.EventHead(ctx, ws.ID); last != 2 || err != nil {
		t.Fatalf("head while a write is open = %d, %v; want 2", last, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := feedIDs(t, s, ws.ID, 1), []string{first, later, held.ID}; !slices.Equal(got, want) {
		t.Fatalf("feed once the write committed = %v; want %v", got, want)
	}

	refused := errors.New("refused")
	rolled := event(ws.ID, quire.EventPageCreated, "rolled", quire.EventData{})
	_, release, done = hold(rolled, refused)
	close(release)
	if err := <-done; !errors.Is(err, refused) {
		t.Fatalf("rolled-back write = %v; want %v", err, refused)
	}
	last := recordOne(t, s, ws.ID, "last")
	if got, want := feedIDs(t, s, ws.ID, 1), []string{first, later, held.ID, last}; !slices.Equal(got, want) {
		t.Fatalf("feed after a rolled-back write = %v; want %v", got, want)
	}
	if rows, err := s.RowsForTest(ctx, `SELECT id FROM events WHERE seq < 0`); err != nil || len(rows) != 0 {
		t.Fatalf("events without a position = %v, %v; want none", rows, err)
	}
}

// TestEvents_ConcurrentStampers (PostgreSQL): writers on two stores of one database (two
// servers) write to one workspace while a reader on each store walks the feed, each numbering
// what it finds. Both walks see the positions run with no gap or repeat, every event exactly
// once, each writer's events in the order it wrote them, and the same event at each position.
func TestEvents_ConcurrentStampers(t *testing.T) {
	url := testdb.PostgresURL(t)
	var stores [2]*store.Store
	for i := range stores {
		s, err := store.Open(context.Background(), store.Config{DatabaseURL: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	ctx := context.Background()
	ws, _ := seed(t, stores[0])
	const writers, each = 8, 12
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			s := stores[w%2]
			for i := range each {
				err := s.InTx(ctx, func(tx *store.Tx) error {
					time.Sleep(time.Duration((w*5+i*3)%4) * time.Millisecond)
					for j := range 1 + (w+i)%3 { // one to three events a write
						tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(),
							quire.EventData{PropertyIDs: []string{fmt.Sprint(w), fmt.Sprint(i*10 + j)}}))
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	walks := make([][]quire.Event, 2)
	var readers sync.WaitGroup
	for r := range walks {
		readers.Go(func() {
			var after int64
			for finished := false; !finished; {
				select {
				case <-done:
					finished = true
				default:
				}
				evs, err := stores[r].Events(ctx, ws.ID, after, 5, store.EventFilter{})
				if err != nil {
					t.Error(err)
					return
				}
				for _, ev := range evs {
					if ev.Seq != after+1 {
						t.Errorf("reader %d: position %d after %d: a position was skipped or repeated", r, ev.Seq, after)
						return
					}
					after = ev.Seq
					walks[r] = append(walks[r], ev)
				}
				if len(evs) == 5 {
					finished = false // read on before deciding the walk is over
				}
			}
		})
	}
	readers.Wait()
	if t.Failed() {
		return
	}
	want := 0
	for w := range writers {
		for i := range each {
			want += 1 + (w+i)%3
		}
	}
	for r, walk := range walks {
		if len(walk) != want {
			t.Fatalf("reader %d walked %d events, want %d", r, len(walk), want)
		}
		seen := map[string]bool{}
		lastOf := map[string]int{}
		for _, ev := range walk {
			if seen[ev.ID] {
				t.Fatalf("reader %d: event %s twice", r, ev.ID)
			}
			seen[ev.ID] = true
			w, n := ev.Data.PropertyIDs[0], 0
			fmt.Sscan(ev.Data.PropertyIDs[1], &n)
			if prev, ok := lastOf[w]; ok && n <= prev {
				t.Fatalf("reader %d: writer %s's event %d after its event %d", r, w, n, prev)
			}
			lastOf[w] = n
		}
	}
	for i := range walks[0] {
		if walks[0][i].ID != walks[1][i].ID {
			t.Fatalf("position %d: event %s for one reader, %s for the other", walks[0][i].Seq, walks[0][i].ID, walks[1][i].ID)
		}
	}
}

// TestEvents_SweepAndWebhooksSeeUnread: events that no reader has numbered yet (on
// PostgreSQL) are swept like any other, and make a webhook due.
func TestEvents_SweepAndWebhooksSeeUnread(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		recordOne(t, s, ws.ID, "a")
		if _, _, err := s.EventHead(ctx, ws.ID); err != nil { // numbers the first
			t.Fatal(err)
		}
		wh := &quire.Webhook{ID: quire.NewID(), WorkspaceID: ws.ID, URL: "http://127.0.0.1:9/", Secret: "s",
			Status: quire.WebhookActive, Position: 1, CreatedMs: quire.NowMillis()}
		if err := s.CreateWebhook(ctx, wh); err != nil {
			t.Fatal(err)
		}
		if _, ok, _, err := s.WebhookDue(ctx); ok || err != nil {
			t.Fatalf("webhook due with nothing after its position = %v, %v", ok, err)
		}
		recordOne(t, s, ws.ID, "b")
		if _, ok, _, err := s.WebhookDue(ctx); !ok || err != nil {
			t.Fatalf("webhook due after a write nobody read = %v, %v; want due", ok, err)
		}
		ids, err := s.ClaimWebhooks(ctx, "owner", quire.NowMillis(), 60_000, 1)
		if err != nil || len(ids) != 1 {
			t.Fatalf("claim = %v, %v; want the webhook", ids, err)
		}
		evs, err := s.Events(ctx, ws.ID, wh.Position, 10, store.EventFilter{})
		if err != nil || len(evs) != 1 || evs[0].Seq != 2 || evs[0].EntityID != "b" {
			t.Fatalf("the worker's read = %+v, %v; want b at position 2", evs, err)
		}
		recordOne(t, s, ws.ID, "c")
		if n, err := s.SweepEvents(ctx, time.Now().Add(time.Minute).UnixMilli()); n != 3 || err != nil {
			t.Fatalf("sweep = %d, %v; want 3", n, err)
		}
		if last, swept, err := s.EventHead(ctx, ws.ID); last != 3 || swept != 3 || err != nil {
			t.Fatalf("head = %d, %d, %v; want 3, 3", last, swept, err)
		}
	})
}

// TestEvents_MigrationKeepsPositions: a store whose events were numbered at the write (before
// migration 00037) keeps their positions, and new events follow them.
func TestEvents_MigrationKeepsPositions(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		if err := s.MigrateForTest(ctx, 36); err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			for i := range 3 {
				if err := tx.ExecForTest(ctx, `INSERT INTO events (workspace_id, seq, id, type, entity_type, entity_id, parent_type,
					parent_id, reach_id, user_id, bot_id, data, created_ms) VALUES ($1, $2, $3, 'page.created', 'page', 'x', 'workspace', '', 'x', '', '', '{}', 1)`,
					ws.ID, i+1, fmt.Sprint("old", i+1)); err != nil {
					return err
				}
			}
			return tx.ExecForTest(ctx, `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, 3, 0)`, ws.ID)
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
		a, b := recordOne(t, s, ws.ID, "a"), recordOne(t, s, ws.ID, "b")
		if got, want := feedIDs(t, s, ws.ID, 1), []string{"old1", "old2", "old3", a, b}; !slices.Equal(got, want) {
			t.Fatalf("feed after the migration = %v; want %v", got, want)
		}
	})
}

// TestEvents_NumberProvisionalEvents: a restore numbers the events a PostgreSQL store had not
// numbered yet, after each workspace's head and in their provisional order, on either engine.
func TestEvents_NumberProvisionalEvents(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws1, _ := seed(t, s)
		ws2, _ := seed(t, s)
		recordOne(t, s, ws1.ID, "x")
		if _, _, err := s.EventHead(ctx, ws1.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			var rows []struct {
				ws  string
				seq int
			}
			for _, r := range []struct {
				ws  string
				seq int
			}{{ws1.ID, -329}, {ws1.ID, -201}, {ws2.ID, -130}, {ws1.ID, -202}} {
				rows = append(rows, r)
			}
			// Many of one workspace, inserted out of order: one statement numbers them all.
			for i := range 300 {
				rows = append(rows, struct {
					ws  string
					seq int
				}{ws2.ID, -1000 - (i*7)%300})
			}
			for _, r := range rows {
				if err := tx.ExecForTest(ctx, `INSERT INTO events (workspace_id, seq, id, type, entity_type, entity_id, parent_type,
					parent_id, reach_id, user_id, bot_id, data, created_ms) VALUES ($1, $2, $3, 'page.created', 'page', 'x', 'workspace', '', 'x', '', '', '{}', 1)`,
					r.ws, r.seq, fmt.Sprint("p", -r.seq)); err != nil {
					return err
				}
			}
			return tx.NumberProvisionalEvents(ctx)
		}); err != nil {
			t.Fatal(err)
		}
		if got := feedIDs(t, s, ws1.ID, 2); !slices.Equal(got, []string{"p201", "p202", "p329"}) {
			t.Fatalf("workspace 1 after position 1 = %v", got)
		}
		want2 := []string{"p130"}
		for i := range 300 {
			want2 = append(want2, fmt.Sprint("p", 1000+i))
		}
		if got := feedIDs(t, s, ws2.ID, 1); !slices.Equal(got, want2) {
			t.Fatalf("workspace 2 = %v", got)
		}
		if last, _, err := s.EventHead(ctx, ws2.ID); last != 301 || err != nil {
			t.Fatalf("head of workspace 2 = %d, %v; want 301", last, err)
		}
		if last, _, err := s.EventHead(ctx, ws1.ID); last != 4 || err != nil {
			t.Fatalf("head of workspace 1 = %d, %v; want 4", last, err)
		}
	})
}
