package store_test

import (
	"fmt"
	"testing"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestInsertBlocksTouching (both engines): what InsertBlocksTouching answers and writes is what
// InsertBlocks then TouchPageCounting did: the blocks written with has_children as given by
// their children among them and their parent's settled, the page's version taken, the count of
// children after the start (others' included), hidden for a page in trash and not_found (and
// nothing written) for a missing page; for one INSERT (the pipeline on PostgreSQL) and for
// more than 100 blocks (the calls one after the other).
func TestInsertBlocksTouching(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		page := newNode(w.ID, "")
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, page) })
		tree := func(lo string, n int) []*quire.Block {
			keys, _ := order.NBetween(lo, "", n)
			bs := make([]*quire.Block, 0, n+1)
			for i := range n {
				bs = append(bs, &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID, Position: keys[i],
					Type: "paragraph", Content: []byte(fmt.Sprintf(`{"rich_text":[{"plain_text":"touch %d"}]}`, i)),
					Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"})
			}
			// A child of the first, among them: its parent's has_children is written true.
			bs = append(bs, &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: bs[0].ID, Position: "a",
				Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"child"}]}`),
				Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"})
			return bs
		}
		var version int64
		scanOne(t, s, `SELECT version FROM nodes WHERE id = '`+page.ID+`'`, &version)
		total := 0
		for _, n := range []int{3, 99, 150} { // 4 and 100 rows: one INSERT; 151: two
			var lo string
			var first *quire.Block
			mustTx(t, s, func(tx *store.Tx) error {
				var err error
				if lo, err = tx.LastChildPosition(ctx, page.ID); err != nil {
					return err
				}
				bs := tree(lo, n)
				first = bs[0]
				hidden, after, err := tx.InsertBlocksTouching(ctx, bs, w.ID, page.ID, 7, "v", page.ID, lo)
				if err == nil && (hidden || after != n) {
					t.Errorf("%d blocks: hidden %v, %d children after the start; want visible, %d", n, hidden, after, n)
				}
				return err
			})
			total += n
			var got, kids int
			var has bool
			var v int64
			var by string
			scanOne(t, s, `SELECT count(*) FROM blocks WHERE page_id = '`+page.ID+`' AND parent_id = '`+page.ID+`'`, &got)
			scanOne(t, s, `SELECT has_children FROM blocks WHERE id = '`+first.ID+`'`, &has)
			scanOne(t, s, `SELECT count(*) FROM blocks WHERE parent_id = '`+first.ID+`'`, &kids)
			scanOne(t, s, `SELECT version, edited_by FROM nodes WHERE id = '`+page.ID+`'`, &v, &by)
			version++
			if got != total || !has || kids != 1 || v != version || by != "v" {
				t.Fatalf("after %d blocks: %d on the page, first has children %v (%d), page version %d by %q; want %d, true (1), %d by v",
					n, got, has, kids, v, by, total, version)
			}
		}
		err := s.InTx(ctx, func(tx *store.Tx) error {
			_, _, err := tx.InsertBlocksTouching(ctx, tree("", 2), w.ID, quire.NewID(), 8, "u", page.ID, "")
			return err
		})
		var got int
		scanOne(t, s, `SELECT count(*) FROM blocks WHERE page_id = '`+page.ID+`'`, &got)
		if !quire.IsCode(err, quire.CodeNotFound) || got != total+3 {
			t.Fatalf("a missing page: %v, %d blocks; want not_found, %d", err, got, total+3)
		}
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `UPDATE nodes SET in_trash = TRUE WHERE id = $1`, page.ID)
		})
		mustTx(t, s, func(tx *store.Tx) error {
			lo, err := tx.LastChildPosition(ctx, page.ID)
			if err != nil {
				return err
			}
			hidden, _, err := tx.InsertBlocksTouching(ctx, tree(lo, 2), w.ID, page.ID, 9, "u", page.ID, lo)
			if err == nil && !hidden {
				t.Errorf("a page in trash: not hidden")
			}
			return err
		})
	})
}
