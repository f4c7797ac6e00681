package store_test

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/order"
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

// TestStore_EmbedSourceDocumentOrder: a page's text reaches the model in document order (a
// block, then its children, then its next sibling), so "its first N text blocks" are the first
// N a reader sees, whatever the blocks' random ids.
func TestStore_EmbedSourceDocumentOrder(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		page := newNode(w.ID, "")
		keys, _ := order.NBetween("", "", 30)
		para := func(parent, pos, text string) *quire.Block {
			return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: parent, Position: pos,
				Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"` + text + `"}]}`), Version: 1,
				CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
		}
		var blocks []*quire.Block
		var want, wantBlocks []string
		for i, k := range keys {
			b := para(page.ID, k, fmt.Sprintf("top %02d", i))
			blocks = append(blocks, b)
			want = append(want, fmt.Sprintf("top %02d", i))
			wantBlocks = append(wantBlocks, b.ID)
			if i%10 == 3 { // two children, the second with a child of its own
				c1, c2 := para(b.ID, order.First, fmt.Sprintf("child %02d.1", i)), para(b.ID, "a1", fmt.Sprintf("child %02d.2", i))
				g := para(c2.ID, order.First, fmt.Sprintf("grandchild %02d", i))
				blocks = append(blocks, c1, c2, g)
				want = append(want, fmt.Sprintf("child %02d.1", i), fmt.Sprintf("child %02d.2", i), fmt.Sprintf("grandchild %02d", i))
				wantBlocks = append(wantBlocks, c1.ID, c2.ID, g.ID)
			}
		}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNode(ctx, page); err != nil {
				return err
			}
			return tx.InsertBlocks(ctx, blocks)
		})
		for _, limit := range []int{7, 25, 100} {
			src, ok, err := s.EmbedSource(ctx, page.ID, limit)
			if err != nil || !ok {
				t.Fatalf("EmbedSource: %v %v", ok, err)
			}
			w := want[:min(limit, len(want))]
			if !slices.Equal(src.Body, w) {
				t.Fatalf("limit %d: body = %q, want %q", limit, src.Body, w)
			}
			// Each entry names its block: semantic search answers a chunk with the block it starts at.
			if wb := wantBlocks[:len(w)]; !slices.Equal(src.BodyBlocks, wb) {
				t.Fatalf("limit %d: blocks = %q, want %q", limit, src.BodyBlocks, wb)
			}
		}
	})
}

// TestStore_TermHits checks the keyword signal of semantic search: a term is found in a node's
// title or in any of its blocks, whatever the case, literally (% and _ are not patterns), and
// only in that node.
func TestStore_TermHits(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		a, b := newNode(w.ID, ""), newNode(w.ID, "")
		a.Title, a.TitlePlain = []byte(`[{"plain_text":"Quarterly Report"}]`), "Quarterly Report"
		b.Title, b.TitlePlain = []byte(`[{"plain_text":"Other"}]`), "Other"
		var blocks []*quire.Block
		keys, _ := order.NBetween("", "", 60)
		para := func(page *quire.Node, pos, text string) {
			blocks = append(blocks, &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID,
				Position: pos, Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"` + text + `"}]}`),
				Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"})
		}
		for i, k := range keys[:50] { // the hits of a are in its last blocks
			para(a, k, fmt.Sprintf("filler %d", i))
		}
		para(a, keys[50], "BUDGET 100% approved")
		para(a, keys[51], "snake a_c")
		para(b, keys[0], "abc 1000 budge")
		mustTx(t, s, func(tx *store.Tx) error {
			for _, n := range []*quire.Node{a, b} {
				if err := tx.InsertNode(ctx, n); err != nil {
					return err
				}
			}
			return tx.InsertBlocks(ctx, blocks)
		})
		terms := []string{"quarterly", "Budget", "100%", "a_c", "absent"}
		got, err := s.TermHits(ctx, []string{a.ID, b.ID, quire.NewID()}, terms)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]bool{
			a.ID: {true, true, true, true, false},
			b.ID: {false, false, false, false, false},
		}
		if len(got) != len(want) {
			t.Fatalf("TermHits = %v, want %v (a missing node has no entry)", got, want)
		}
		for id, w := range want {
			if !slices.Equal(got[id], w) {
				t.Errorf("TermHits[%s] = %v, want %v for %q", id, got[id], w, terms)
			}
		}
		if got, err := s.TermHits(ctx, []string{a.ID}, nil); err != nil || len(got) != 0 {
			t.Errorf("TermHits without terms = %v, %v; want empty", got, err)
		}
	})
}
