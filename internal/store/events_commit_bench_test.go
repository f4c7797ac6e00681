package store_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// BenchmarkEventsCommitConcurrent has 16 writers record one event each per transaction in one
// workspace, the smallest write with an event: how many such writes a workspace lets through
// per second, with next to no CPU spent beside the commit. On PostgreSQL with fsync on
// (QUIRE_TEST_DATABASE_URL at a durable cluster) it shows whether the writers take turns for
// each other's flush (docs/performance.md, "PostgreSQL append, tenth pass" and "eleventh
// pass"). stamp-ms is the first read of the feed after them (EventHead), which on PostgreSQL
// numbers all of them (store/events_stamp.go).
func BenchmarkEventsCommitConcurrent(b *testing.B) {
	s := testdb.Postgres(b)
	w := &quire.Workspace{ID: quire.NewID(), Name: "Acme", CreatedMs: quire.NowMillis()}
	if err := s.CreateWorkspace(ctx, w); err != nil {
		b.Fatal(err)
	}
	write := func() error {
		return s.InTx(ctx, func(tx *store.Tx) error {
			tx.Record(event(w.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
			return nil
		})
	}
	for range 32 {
		if err := write(); err != nil {
			b.Fatal(err)
		}
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := write(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
	b.StopTimer()
	t0 := time.Now()
	if _, _, err := s.EventHead(ctx, w.ID); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, "stamp-ms")
}

// BenchmarkEventsReadAfterWrite writes one event and then reads the feed after it, as a
// client of GET /v2/events that follows every write does: on PostgreSQL the read numbers the
// event first (a probe, then a short transaction of two statements and a COMMIT), so
// read-ms is what the numbering adds to a read that finds something new.
func BenchmarkEventsReadAfterWrite(b *testing.B) {
	s := testdb.Postgres(b)
	w := &quire.Workspace{ID: quire.NewID(), Name: "Acme", CreatedMs: quire.NowMillis()}
	if err := s.CreateWorkspace(ctx, w); err != nil {
		b.Fatal(err)
	}
	var after int64
	var reading time.Duration
	for b.Loop() {
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			tx.Record(event(w.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		evs, err := s.Events(ctx, w.ID, after, 100, store.EventFilter{})
		reading += time.Since(t0)
		if err != nil || len(evs) != 1 {
			b.Fatalf("read after a write = %d events, %v", len(evs), err)
		}
		after = evs[0].Seq
	}
	b.ReportMetric(float64(reading.Microseconds())/1000/float64(b.N), "read-ms")
}
