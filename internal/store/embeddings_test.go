package store_test

import (
	"os"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// fillEmbedQueue queues n nodes in one statement; every tenth waits until notBefore, the others
// are due.
func fillEmbedQueue(t *testing.T, s *store.Store, n int, notBefore int64) {
	t.Helper()
	err := s.InTx(ctx, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `WITH RECURSIVE c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $1)
			INSERT INTO embed_queue (node_id, queued_ms, not_before)
			SELECT 'node-' || CAST(x AS TEXT), x, CASE WHEN x % 10 = 0 THEN CAST($2 AS BIGINT) ELSE 0 END FROM c`, n, notBefore)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestStore_EmbedQueueDepth(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		now := quire.NowMillis()
		fillEmbedQueue(t, s, 40, now+60_000)
		for _, c := range []struct {
			name              string
			at                int64
			limit             int
			wantDue, wantWait int64
		}{
			{"now", now, 1000, 36, 4},
			{"counts stop at the limit", now, 3, 3, 3},
			{"after the backoff", now + 120_000, 1000, 40, 0},
		} {
			due, waiting, err := s.EmbedQueueDepth(ctx, c.at, c.limit)
			if err != nil || due != c.wantDue || waiting != c.wantWait {
				t.Errorf("%s: due %d, waiting %d, %v; want %d and %d", c.name, due, waiting, err, c.wantDue, c.wantWait)
			}
		}
		// A claim leases its jobs: they wait until the lease ends.
		jobs, err := s.ClaimEmbedJobs(ctx, now, 60_000, 5)
		if err != nil || len(jobs) != 5 {
			t.Fatalf("claim: %d jobs, %v", len(jobs), err)
		}
		if due, waiting, err := s.EmbedQueueDepth(ctx, now, 1000); err != nil || due != 31 || waiting != 9 {
			t.Fatalf("after claiming 5: due %d, waiting %d, %v; want 31 and 9", due, waiting, err)
		}
	})
}

// TestStore_EmbedQueueDepthLong times the metrics query on a queue of a million nodes: it reads
// at most limit index entries per count, not the whole queue. QUIRE_LONG=1 go test
// ./internal/store -run EmbedQueueDepthLong -v
func TestStore_EmbedQueueDepthLong(t *testing.T) {
	if os.Getenv("QUIRE_LONG") != "1" {
		t.Skip("a million queued nodes; set QUIRE_LONG=1")
	}
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		const n, limit = 1_000_000, 10_000
		now := quire.NowMillis()
		fillEmbedQueue(t, s, n, now+60_000)
		for _, c := range []struct {
			name  string
			at    int64
			limit int
		}{{"limit 10000 (the metrics')", now, limit}, {"limit 100000", now, 100_000}, {"unbounded", now, 2 * n}} {
			best := time.Hour
			var due, waiting int64
			for range 3 {
				start := time.Now()
				var err error
				if due, waiting, err = s.EmbedQueueDepth(ctx, c.at, c.limit); err != nil {
					t.Fatal(err)
				}
				best = min(best, time.Since(start))
			}
			t.Logf("%s: %s: due %d, waiting %d in %s", s.Engine(), c.name, due, waiting, best)
			if c.limit == limit && (due != limit || waiting != limit || best > 250*time.Millisecond) {
				t.Errorf("limit %d: due %d, waiting %d in %s", limit, due, waiting, best)
			}
		}
	})
}
