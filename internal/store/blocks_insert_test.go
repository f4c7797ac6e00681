package store_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestInsertBlocks_EveryColumn writes blocks through both shapes of InsertBlocks' statement on
// PostgreSQL (one on SQLite) —
// blocks that share their page, author, times, version and trash state (bound once), and
// blocks that differ in each of those (bound per row) — in batches over the 100-row bound, and
// reads every column back: a column bound to the wrong row or parameter shows.
func TestInsertBlocks_EveryColumn(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		page, other := newNode(w.ID, ""), newNode(w.ID, "")
		keys, _ := order.NBetween("", "", 130)
		block := func(i int, pageID string) *quire.Block {
			return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: pageID, ParentID: pageID, Position: keys[i],
				Type: "paragraph", Content: fmt.Appendf(nil, `{"rich_text":[{"plain_text":"p%d"}]}`, i), Version: 1,
				CreatedMs: 10, CreatedBy: "ada", EditedMs: 20, EditedBy: "bob"}
		}
		var shared []*quire.Block // 130 alike: two statements, of 100 and 30 rows
		for i := range keys {
			shared = append(shared, block(i, page.ID))
		}
		varied := make([]*quire.Block, 9) // each differs from the first in one shared column
		for i := range varied {
			varied[i] = block(i, other.ID)
		}
		varied[1].InTrash = true
		varied[2].Version = 3
		varied[3].CreatedMs = 11
		varied[4].CreatedBy = "cy"
		varied[5].EditedMs = 21
		varied[6].EditedBy = "di"
		varied[7].Type, varied[7].Content = "divider", []byte(`{}`)
		varied[8].ParentID = varied[0].ID // a child: its parent then has children
		mustTx(t, s, func(tx *store.Tx) error {
			for _, n := range []*quire.Node{page, other} {
				if err := tx.InsertNode(ctx, n); err != nil {
					return err
				}
			}
			if err := tx.InsertBlocks(ctx, shared); err != nil {
				return err
			}
			return tx.InsertBlocks(ctx, varied)
		})
		for _, b := range append(shared, varied...) {
			got, err := s.Block(ctx, w.ID, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(b, got); diff != "" {
				t.Fatalf("block %s read back (-written +read):\n%s", b.ID, diff)
			}
		}
		if !varied[0].HasChildren {
			t.Errorf("a block whose child was inserted with it: HasChildren false")
		}
	})
}
