package store_test

import (
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestTouchPageCounting: the lock of an append's page and the count of the children after the
// append's start (one pipeline on PostgreSQL) count the blocks of another append to the page
// that committed while this one waited for the lock, so that the service moves its blocks after
// them; a page that is not there is not_found, one in trash is reported hidden.
func TestTouchPageCounting(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		page := newNode(w.ID, "")
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, page) })
		para := func(pos string) *quire.Block {
			return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID, Position: pos,
				Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"p"}]}`),
				Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
		}
		keys, _ := order.NBetween("", "", 3)
		type result struct {
			hidden bool
			n      int
			err    error
		}
		var got result
		if s.Engine() == store.Postgres {
			// The first append holds the page's lock until it is told to commit; the second
			// writes its block, then waits for the lock in TouchPageCounting.
			locked, commit, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
			go func() {
				done <- s.InTx(ctx, func(tx *store.Tx) error {
					if _, err := tx.TouchPage(ctx, w.ID, page.ID, 2, "u"); err != nil {
						return err
					}
					if err := tx.InsertBlocks(ctx, []*quire.Block{para(keys[0]), para(keys[1])}); err != nil {
						return err
					}
					close(locked)
					<-commit
					return nil
				})
			}()
			<-locked
			second := make(chan result, 1)
			go func() {
				var r result
				r.err = s.InTx(ctx, func(tx *store.Tx) error {
					if err := tx.InsertBlocks(ctx, []*quire.Block{para(keys[2])}); err != nil {
						return err
					}
					var err error
					r.hidden, r.n, err = tx.TouchPageCounting(ctx, w.ID, page.ID, 3, "u", page.ID, "")
					return err
				})
				second <- r
			}()
			time.Sleep(300 * time.Millisecond) // the second is waiting for the lock by now
			close(commit)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			got = <-second
		} else { // one writer: the appends run one after the other
			mustTx(t, s, func(tx *store.Tx) error { return tx.InsertBlocks(ctx, []*quire.Block{para(keys[0]), para(keys[1])}) })
			got.err = s.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.InsertBlocks(ctx, []*quire.Block{para(keys[2])}); err != nil {
					return err
				}
				var err error
				got.hidden, got.n, err = tx.TouchPageCounting(ctx, w.ID, page.ID, 3, "u", page.ID, "")
				return err
			})
		}
		if got.err != nil || got.hidden || got.n != 3 {
			t.Fatalf("TouchPageCounting after the other append committed = %v, %d, %v; want not hidden, 3 children", got.hidden, got.n, got.err)
		}
		err := s.InTx(ctx, func(tx *store.Tx) error {
			_, _, err := tx.TouchPageCounting(ctx, w.ID, quire.NewID(), 4, "u", page.ID, "")
			return err
		})
		if !quire.IsCode(err, quire.CodeNotFound) {
			t.Fatalf("TouchPageCounting of a missing page: %v; want not_found", err)
		}
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `UPDATE nodes SET in_trash = TRUE WHERE id = $1`, page.ID)
		})
		mustTx(t, s, func(tx *store.Tx) error {
			hidden, n, err := tx.TouchPageCounting(ctx, w.ID, page.ID, 5, "u", page.ID, keys[0])
			if err == nil && (!hidden || n != 2) {
				t.Errorf("TouchPageCounting of a page in trash = %v, %d; want hidden, 2 children after the first", hidden, n)
			}
			return err
		})
	})
}
