package store_test

import (
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestStore_EmbedLogFold follows a page through the queue and its log (migration 00022): on
// PostgreSQL a write adds to embed_log and leaves embed_queue's rows unlocked and unchanged; the
// page counts as waiting either way, the claim folds it into one job, and a write after the
// claim queues it again even when the indexer saves its vectors first.
func TestStore_EmbedLogFold(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		page := newNode(w.ID, "")
		page.TitlePlain = "Plan"
		keys, _ := order.NBetween("", "", 3)
		para := func(pos, text string) *quire.Block {
			return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID, Position: pos,
				Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"` + text + `"}]}`), Version: 1,
				CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
		}
		mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, `DELETE FROM embed_queue`) })
		// Two statements that index the page: the node's title, then two blocks.
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNode(ctx, page); err != nil {
				return err
			}
			return tx.InsertBlocks(ctx, []*quire.Block{para(keys[0], "alpha"), para(keys[1], "beta")})
		})
		queue, err := s.RowsForTest(ctx, `SELECT node_id FROM embed_queue`)
		if err != nil {
			t.Fatal(err)
		}
		logged, err := s.RowsForTest(ctx, `SELECT node_id FROM embed_log`)
		if err != nil {
			t.Fatal(err)
		}
		wantQueue, wantLog := 0, 2 // PostgreSQL: one log row per statement, the queue untouched
		if s.Engine() == store.SQLite {
			wantQueue, wantLog = 1, 0
		}
		if len(queue) != wantQueue || len(logged) != wantLog {
			t.Fatalf("after the write: queue %q, log %q; want %d and %d rows", queue, logged, wantQueue, wantLog)
		}
		wantPending(t, s, 1)

		now := quire.NowMillis()
		jobs, err := s.ClaimEmbedJobs(ctx, now, 60_000, 10)
		if err != nil || len(jobs) != 1 || jobs[0].NodeID != page.ID {
			t.Fatalf("ClaimEmbedJobs = %+v, %v; want the page once", jobs, err)
		}
		if logged, err := s.RowsForTest(ctx, `SELECT node_id FROM embed_log`); err != nil || len(logged) != 0 {
			t.Fatalf("log after the claim = %q, %v; want folded", logged, err)
		}
		// Claimed: hidden from another indexer until the lease ends.
		if again, err := s.ClaimEmbedJobs(ctx, now, 60_000, 10); err != nil || len(again) != 0 {
			t.Fatalf("second claim = %+v, %v; want nothing under the lease", again, err)
		}

		time.Sleep(2 * time.Millisecond) // a later queued_ms than the claimed job's
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertBlocks(ctx, []*quire.Block{para(keys[2], "gamma")}) })
		// What a backup carries: the claimed page queued afresh by the write, lease dropped.
		if folded, err := s.RowsForTest(ctx, `SELECT node_id FROM embed_queue_folded WHERE attempts = 0 AND not_before = 0`); err != nil ||
			len(folded) != 1 || folded[0] != page.ID {
			t.Fatalf("embed_queue_folded = %q, %v; want the page due", folded, err)
		}
		if due, waiting, err := s.EmbedQueueDepth(ctx, quire.NowMillis(), 100); err != nil || due != 1 || waiting != 0 {
			t.Fatalf("EmbedQueueDepth of a claimed page written again = %d due, %d waiting, %v; want it due once", due, waiting, err)
		}
		if err := s.SaveEmbeddings(ctx, jobs[0], "", "test-model", nil); err != nil {
			t.Fatal(err)
		}
		wantPending(t, s, 1)
		jobs, err = s.ClaimEmbedJobs(ctx, quire.NowMillis(), 60_000, 10)
		if err != nil || len(jobs) != 1 || jobs[0].NodeID != page.ID {
			t.Fatalf("claim after a write during the job = %+v, %v; want the page again", jobs, err)
		}
		if err := s.SaveEmbeddings(ctx, jobs[0], "", "test-model", nil); err != nil {
			t.Fatal(err)
		}
		wantPending(t, s, 0)
	})
}

// wantPending fails unless n nodes wait to be embedded, by both counts the metrics read.
func wantPending(t *testing.T, s *store.Store, n int64) {
	t.Helper()
	if got, err := s.EmbedQueueLength(ctx); err != nil || got != n {
		t.Fatalf("EmbedQueueLength = %d, %v; want %d", got, err, n)
	}
	if due, waiting, err := s.EmbedQueueDepth(ctx, quire.NowMillis(), 100); err != nil || due+waiting != n {
		t.Fatalf("EmbedQueueDepth = %d due, %d waiting, %v; want %d in all", due, waiting, err, n)
	}
}
