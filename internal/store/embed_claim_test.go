package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestClaimEmbedJobs_FirstQueued: a claim takes the first queued of the due jobs, whether never
// claimed (not_before 0) or due again (a lease that ran out, a backoff that ended), and none
// that waits; its choice reads the queue's ready index in order for the never-claimed ones and
// sorts only the few due again (docs/performance.md, "Seeding, eleventh pass": as one range it
// read and sorted every queued entry, 100,000 during a bulk import, inside its write).
func TestClaimEmbedJobs_FirstQueued(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		now := quire.NowMillis()
		// 3,000 jobs queued at 1…3000: every seventh due again (not_before in the past), every
		// tenth waiting (in the future), the others never claimed.
		err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `WITH RECURSIVE c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000)
				INSERT INTO embed_queue (node_id, queued_ms, not_before)
				SELECT 'node-' || CAST(x AS TEXT), x, CASE WHEN x % 10 = 0 THEN CAST($1 AS BIGINT) + 60000
					WHEN x % 7 = 0 THEN CAST($1 AS BIGINT) - 1000 - x ELSE 0 END FROM c`, now)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		pick := store.ClaimPickQueryForTest(s.Engine())
		for _, generic := range []bool{false, true} {
			if generic && s.Engine() == store.SQLite {
				continue
			}
			plan, err := s.PlanForTest(ctx, generic, pick, now, 16)
			if err != nil {
				t.Fatal(err)
			}
			if s.Engine() == store.Postgres {
				checkPostgresPlan(t, fmt.Sprintf("claim (generic %v)", generic), plan, []string{"embed_queue_ready"})
				continue
			}
			// One sort for the due-again entries, one for the two branches' firsts; none for
			// the never-claimed ones, read on the index by not_before = 0 in queued_ms order.
			if !strings.Contains(plan, "SEARCH embed_queue USING INDEX embed_queue_ready (not_before=?)") ||
				strings.Contains(plan, "SCAN embed_queue") || strings.Count(plan, "USE TEMP B-TREE") != 2 {
				t.Errorf("claim's plan:\n%s", plan)
			}
		}
		var due []string
		for x := 1; x <= 3000; x++ {
			if x%10 != 0 {
				due = append(due, fmt.Sprintf("node-%d", x))
			}
		}
		for round := range 3 {
			jobs, err := s.ClaimEmbedJobs(ctx, now, 60_000, 16)
			if err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(jobs, func(a, b store.EmbedJob) int { return int(a.QueuedMs - b.QueuedMs) })
			var got []string
			for _, j := range jobs {
				got = append(got, j.NodeID)
			}
			if want := due[16*round : 16*round+16]; !slices.Equal(got, want) {
				t.Errorf("claim %d = %v; want %v", round, got, want)
			}
		}
		// Claimed jobs wait out their lease: the next claim at the same time skips them.
		if due, _, err := s.EmbedQueueDepth(ctx, now, 10_000); err != nil || due != int64(2700-48) {
			t.Errorf("due after three claims = %d, %v; want %d", due, err, 2700-48)
		}
	})
}
