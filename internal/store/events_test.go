package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func event(ws, typ, entity string, data quire.EventData) quire.Event {
	return quire.Event{ID: quire.NewID(), Type: typ, WorkspaceID: ws, EntityType: quire.EventEntityPage, EntityID: entity,
		ParentType: quire.ParentWorkspace, ReachID: entity, BotID: "bot", Data: data}
}

// TestEvents_Outbox: events commit with their transaction, in one piece per resource, and a
// rolled-back transaction leaves none.
func TestEvents_Outbox(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		a, b := quire.NewID(), quire.NewID()
		err := s.InTx(ctx, func(tx *store.Tx) error {
			tx.Record(event(ws.ID, quire.EventPageContentUpdated, a, quire.EventData{BlockIDs: []string{"1", "2"}}))
			tx.Record(event(ws.ID, quire.EventPageCreated, b, quire.EventData{}))
			tx.Record(event(ws.ID, quire.EventPageContentUpdated, a, quire.EventData{BlockIDs: []string{"2", "3"}}))
			tx.Record(event(ws.ID, quire.EventPageContentUpdated, b, quire.EventData{BlockIDs: []string{"9"}})) // part of b's creation
			tx.Record(event(ws.ID, quire.EventPageMoved, a, quire.EventData{From: &quire.EventParent{Type: "workspace"}}))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		rolledBack := errors.New("refused")
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			tx.Record(event(ws.ID, quire.EventPageDeleted, a, quire.EventData{}))
			return rolledBack
		}); !errors.Is(err, rolledBack) {
			t.Fatal(err)
		}
		evs, err := s.Events(ctx, ws.ID, 0, 100, store.EventFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ev := range evs {
			got = append(got, fmt.Sprint(ev.Seq, " ", ev.Type, " ", ev.EntityID == a, " ", ev.Data.BlockIDs))
		}
		want := []string{"1 page.content_updated true [1 2 3]", "2 page.created false []", "3 page.moved true []"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
		if last, swept, err := s.EventHead(ctx, ws.ID); last != 3 || swept != 0 || err != nil {
			t.Fatalf("head = %d, %d, %v; want 3, 0", last, swept, err)
		}
		// Filters, and a position to resume after.
		evs, err = s.Events(ctx, ws.ID, 1, 100, store.EventFilter{Types: []string{quire.EventPageMoved, quire.EventPageCreated}, EntityID: a})
		if err != nil || len(evs) != 1 || evs[0].Seq != 3 {
			t.Fatalf("filtered = %+v, %v", evs, err)
		}
	})
}

// TestEvents_ManyInOneTransaction: a transaction that records more events than one statement
// writes, in two workspaces, gives each workspace's events consecutive positions in the order
// they were recorded, with every field stored.
func TestEvents_ManyInOneTransaction(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws1, _ := seed(t, s)
		ws2, _ := seed(t, s)
		// One event first, so the second transaction advances an existing head.
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			tx.Record(event(ws1.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{}
		err := s.InTx(ctx, func(tx *store.Tx) error {
			for i := range 250 {
				ws := []string{ws1.ID, ws2.ID}[i%3/2] // two thirds in ws1
				ev := event(ws, quire.EventPageCreated, quire.NewID(), quire.EventData{PropertyIDs: []string{fmt.Sprint(i)}})
				ev.UserID, ev.ParentType, ev.ParentID = "u", quire.ParentPage, "p"
				tx.Record(ev)
				want[ws] = append(want[ws], fmt.Sprintf("%s page.created u bot %s p [%d]", ev.EntityID, quire.ParentPage, i))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for ws, first := range map[string]int64{ws1.ID: 2, ws2.ID: 1} {
			evs, err := s.Events(ctx, ws, first-1, 200, store.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, ev := range evs {
				if ev.Seq != first+int64(i) || ev.WorkspaceID != ws || ev.CreatedMs == 0 {
					t.Fatalf("event %d: seq %d, workspace %s, created %d; want seq %d", i, ev.Seq, ev.WorkspaceID, ev.CreatedMs, first+int64(i))
				}
				got = append(got, fmt.Sprint(ev.EntityID, " ", ev.Type, " ", ev.UserID, " ", ev.BotID, " ", ev.ParentType, " ", ev.ParentID, " ", ev.Data.PropertyIDs))
			}
			if diff := cmp.Diff(want[ws], got); diff != "" {
				t.Fatalf("workspace events (-want +got):\n%s", diff)
			}
			if last, _, err := s.EventHead(ctx, ws); err != nil || last != first-1+int64(len(want[ws])) {
				t.Fatalf("head = %d, %v; want %d", last, err, first-1+int64(len(want[ws])))
			}
		}
	})
}

// TestEvents_CommitOrder: concurrent transactions that record events, each holding its
// position a random while before COMMIT, are read by a concurrent walker in position order
// with no position ever appearing behind one already read.
func TestEvents_CommitOrder(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		const writers, each = 16, 10
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					err := s.InTx(ctx, func(tx *store.Tx) error {
						// Work before the outbox is flushed: transactions overlap, and take
						// their positions in another order than they began.
						time.Sleep(time.Duration((w*7+i*3)%5) * time.Millisecond)
						tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
						return nil
					})
					if err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		var after int64
		seen := 0
		for finished := false; !finished; {
			select {
			case <-done:
				finished = true
			default:
			}
			evs, err := s.Events(ctx, ws.ID, after, 7, store.EventFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if ev.Seq != after+1 {
					t.Fatalf("read position %d after %d: a position was skipped or repeated", ev.Seq, after)
				}
				after = ev.Seq
				seen++
			}
			if len(evs) == 7 {
				finished = false // read on before deciding the walk is over
			}
		}
		if seen != writers*each {
			t.Fatalf("walked %d events, want %d", seen, writers*each)
		}
	})
}

func TestEvents_Sweep(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		for range 3 {
			if err := s.InTx(ctx, func(tx *store.Tx) error {
				tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.SweepEvents(ctx, 0); n != 0 || err != nil {
			t.Fatalf("sweep of nothing old = %d, %v", n, err)
		}
		if n, err := s.SweepEvents(ctx, time.Now().Add(time.Minute).UnixMilli()); n != 3 || err != nil {
			t.Fatalf("sweep = %d, %v; want 3", n, err)
		}
		if last, swept, err := s.EventHead(ctx, ws.ID); last != 3 || swept != 3 || err != nil {
			t.Fatalf("head = %d, %d, %v; want 3, 3", last, swept, err)
		}
	})
}

// TestEvents_SweepInBatches: a backlog larger than one sweep transaction's bound is deleted
// over several, each event exactly once, and the head records the whole sweep.
func TestEvents_SweepInBatches(t *testing.T) {
	defer store.SweepBatchForTest(store.SweepBatchForTest(2))
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			for range 5 {
				tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.SweepEvents(ctx, time.Now().Add(time.Minute).UnixMilli()); n != 5 || err != nil {
			t.Fatalf("sweep = %d, %v; want 5", n, err)
		}
		if last, swept, err := s.EventHead(ctx, ws.ID); last != 5 || swept != 5 || err != nil {
			t.Fatalf("head = %d, %d, %v; want 5, 5", last, swept, err)
		}
	})
}

// TestEvents_SweepStopsAtFirstNew: the sweep deletes each workspace's events up to its first
// one not older than the cut and no further, records how far it went, and a second sweep with
// the same cut finds nothing (it walks the feed from where the first stopped, migration 00020).
func TestEvents_SweepStopsAtFirstNew(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws1, _ := seed(t, s)
		ws2, _ := seed(t, s)
		record := func(ws string, n int) {
			t.Helper()
			if err := s.InTx(ctx, func(tx *store.Tx) error {
				for range n {
					tx.Record(event(ws, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		record(ws1.ID, 2)
		record(ws2.ID, 1)
		time.Sleep(5 * time.Millisecond)
		cut := time.Now().UnixMilli()
		time.Sleep(5 * time.Millisecond)
		record(ws1.ID, 2)
		sweep := func(beforeMs, want int64) {
			t.Helper()
			if n, err := s.SweepEvents(ctx, beforeMs); n != want || err != nil {
				t.Fatalf("sweep = %d, %v; want %d", n, err, want)
			}
		}
		head := func(ws string, wantLast, wantSwept int64) {
			t.Helper()
			if last, swept, err := s.EventHead(ctx, ws); last != wantLast || swept != wantSwept || err != nil {
				t.Fatalf("head of %s = %d, %d, %v; want %d, %d", ws, last, swept, err, wantLast, wantSwept)
			}
		}
		sweep(cut, 3)
		head(ws1.ID, 4, 2)
		head(ws2.ID, 1, 1)
		evs, err := s.Events(ctx, ws1.ID, 0, 10, store.EventFilter{})
		if err != nil || len(evs) != 2 || evs[0].Seq != 3 || evs[1].Seq != 4 {
			t.Fatalf("events left = %+v, %v; want positions 3 and 4", evs, err)
		}
		sweep(cut, 0)
		sweep(time.Now().Add(time.Minute).UnixMilli(), 2)
		head(ws1.ID, 4, 4)
		sweep(time.Now().Add(time.Minute).UnixMilli(), 0)
	})
}
