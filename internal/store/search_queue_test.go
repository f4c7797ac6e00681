package store_test

import (
	"math"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// queueByWriter is the migration after which SQLite's writers of search entries queue their
// nodes themselves, without the per-row trigger search_docs_queue_ai.
const queueByWriter = 39

// TestSearchQueueByWriter_Migration moves a store with content forward past 00039 and back: on
// SQLite the per-row queueing trigger goes and comes back, and either way a new page, its blocks
// and an edit of one of them queue the page (TestSearchIndex_EveryWrite checks every writer on
// the current schema); an append past the window queues nothing.
func TestSearchQueueByWriter_Migration(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		// 00039's PostgreSQL twin changes nothing, and this store's insert of blocks needs
		// PostgreSQL's 00040: there the store stays migrated and the writes are checked all the same.
		down := int64(queueByWriter - 1)
		if s.Engine() == store.Postgres {
			down = math.MaxInt64
		}
		if err := s.MigrateForTest(ctx, down); err != nil {
			t.Fatal(err)
		}
		w, _ := seed(t, s)
		trigger := func() bool {
			t.Helper()
			if s.Engine() != store.SQLite {
				return false
			}
			rows, err := s.RowsForTest(ctx, `SELECT name FROM sqlite_master WHERE type = 'trigger' AND name = 'search_docs_queue_ai'`)
			if err != nil {
				t.Fatal(err)
			}
			return len(rows) == 1
		}
		// writes makes a page of n paragraphs and edits the first; each of the three
		// transactions must queue the page.
		writes := func(name string, n int) (page *quire.Node) {
			t.Helper()
			page = newNode(w.ID, "")
			page.TitlePlain = name
			keys, _ := order.NBetween("", "", n)
			var bs []*quire.Block
			for i := range n {
				bs = append(bs, &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID,
					Position: keys[i], Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"word ` + name + `"}]}`),
					Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"})
			}
			for i, fn := range []func(tx *store.Tx) error{
				func(tx *store.Tx) error { return tx.InsertNode(ctx, page) },
				func(tx *store.Tx) error { return tx.InsertBlocks(ctx, bs) },
				func(tx *store.Tx) error {
					b, err := tx.Block(ctx, w.ID, bs[0].ID)
					if err != nil {
						return err
					}
					b.Content = []byte(`{"rich_text":[{"plain_text":"edited"}]}`)
					return tx.UpdateBlock(ctx, b)
				},
			} {
				drainQueue(t, s)
				mustTx(t, s, fn)
				if got := pendingNodes(t, s); !slices.Equal(got, []string{page.ID}) {
					t.Errorf("%s, write %d: queued %q; want the page", name, i, got)
				}
			}
			return page
		}
		before := writes("before", 3)
		if trigger() != (s.Engine() == store.SQLite) {
			t.Fatalf("before 00039: search_docs_queue_ai present = %v", trigger())
		}
		if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
		if trigger() {
			t.Fatal("after 00039: search_docs_queue_ai still present")
		}
		writes("after", 3)
		full := writes("full", 200)
		// An append at the end of a page past the window writes no queue row; the page made
		// before the migration has 3 entries, so an append to it queues it.
		for _, tc := range []struct {
			page *quire.Node
			want []string
		}{{full, nil}, {before, []string{before.ID}}} {
			drainQueue(t, s)
			mustTx(t, s, func(tx *store.Tx) error {
				q, err := tx.BeginAppend(ctx, tc.page.ID, 200)
				if err != nil {
					return err
				}
				last, err := tx.LastChildPosition(ctx, tc.page.ID)
				if err != nil {
					return err
				}
				key, _ := order.NBetween(last, "", 1)
				err = tx.InsertBlocks(ctx, []*quire.Block{{ID: quire.NewID(), WorkspaceID: w.ID, PageID: tc.page.ID,
					ParentID: tc.page.ID, Position: key[0], Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"more"}]}`),
					Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}})
				if err != nil {
					return err
				}
				if _, err := tx.TouchPage(ctx, w.ID, tc.page.ID, 2, "u"); err != nil {
					return err
				}
				return tx.EndAppend(ctx, q)
			})
			if got := pendingNodes(t, s); !slices.Equal(got, tc.want) {
				t.Errorf("append to %s: queued %q; want %q", tc.page.TitlePlain, got, tc.want)
			}
		}
		if err := s.MigrateForTest(ctx, down); err != nil {
			t.Fatal(err)
		}
		if trigger() != (s.Engine() == store.SQLite) {
			t.Fatalf("after migrating down: search_docs_queue_ai present = %v", trigger())
		}
		writes("down again", 3)
	})
}

// drainQueue empties the embedding queue and its log.
func drainQueue(t *testing.T, s *store.Store) {
	t.Helper()
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.Exec(ctx, `DELETE FROM embed_queue`); err != nil {
			return err
		}
		return tx.Exec(ctx, `DELETE FROM embed_log`)
	})
}

// pendingNodes is every node waiting for the indexer, in the queue or its log, sorted.
func pendingNodes(t *testing.T, s *store.Store) []string {
	t.Helper()
	rows, err := s.RowsForTest(ctx, `SELECT node_id FROM embed_pending ORDER BY node_id`)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
