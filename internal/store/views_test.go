package store_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func newView(ws, db, pos, kind string) *quire.View {
	return &quire.View{ID: quire.NewID(), WorkspaceID: ws, DatabaseID: db, Position: pos, Name: kind, Type: kind,
		Spec: []byte(`{"type":"` + kind + `","name":"` + kind + `","config":{}}`), Version: 1,
		CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
}

// TestStore_ViewsKeyset: the views of a database in (position, id) order, kinds filtered,
// trashed views left out, pages walked with keys; the last position counts trashed views.
func TestStore_ViewsKeyset(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		db, other := quire.NewID(), quire.NewID()
		var want []string
		var trashed *quire.View
		mustTx(t, s, func(tx *store.Tx) error {
			pos := ""
			for i := 0; i < 9; i++ {
				next, err := order.Between(pos, "")
				if err != nil {
					return err
				}
				pos = next
				kind := "table"
				if i == 4 {
					kind = "chart" // not a V2 kind
				}
				v := newView(w.ID, db, pos, kind)
				if i == 8 {
					v.InTrash, trashed = true, v
				} else if kind != "chart" {
					want = append(want, v.ID)
				}
				if err := tx.InsertView(ctx, v); err != nil {
					return err
				}
			}
			last, err := tx.LastViewPosition(ctx, db)
			if err != nil || last != pos {
				t.Errorf("LastViewPosition = %q, %v; want %q (the trashed view's)", last, err, pos)
			}
			return tx.InsertView(ctx, newView(w.ID, other, order.First, "table"))
		})
		kinds := []string{"table", "board"}
		for _, size := range []int{1, 3, 100} {
			var got []string
			var after *store.ViewKey
			for {
				vs, err := s.Views(ctx, db, kinds, after, size)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range vs {
					got = append(got, v.ID)
				}
				if len(vs) < size {
					break
				}
				last := vs[len(vs)-1]
				after = &store.ViewKey{Position: last.Position, ID: last.ID}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("walk of %d (-want +got):\n%s", size, diff)
			}
		}
		// A trashed view still reads by id; another database's id does not find it.
		if v, err := s.View(ctx, w.ID, db, trashed.ID); err != nil || !v.InTrash {
			t.Fatalf("trashed view = %+v, %v", v, err)
		}
		if _, err := s.View(ctx, w.ID, other, trashed.ID); !quire.IsCode(err, quire.CodeNotFound) {
			t.Fatalf("view under another database: %v, want not_found", err)
		}
	})
}

// TestStore_UpdateViewVersionCheck: an update against a stale version changes nothing.
func TestStore_UpdateViewVersionCheck(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		db := quire.NewID()
		v := newView(w.ID, db, order.First, "board")
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertView(ctx, v) })
		stale := *v
		v.Name = "first"
		mustTx(t, s, func(tx *store.Tx) error { return tx.UpdateView(ctx, v) })
		stale.Name = "second"
		err := s.InTx(ctx, func(tx *store.Tx) error { return tx.UpdateView(ctx, &stale) })
		if !quire.IsCode(err, quire.CodeConflict) {
			t.Fatalf("stale update: %v, want conflict", err)
		}
		got, err := s.View(ctx, w.ID, db, v.ID)
		if err != nil || got.Name != "first" || got.Version != 2 {
			t.Fatalf("view = %+v, %v; want first at version 2", got, err)
		}
	})
}

// TestStore_MissingRecords: ids that are not records of the database, across batches.
func TestStore_MissingRecords(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		dbNode := newNode(w.ID, "")
		dbNode.Object, dbNode.PageType = quire.ObjectDatabase, quire.PageTypeDatabase
		var ids []string
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNode(ctx, dbNode); err != nil {
				return err
			}
			for i := 0; i < 1100; i++ {
				r := newNode(w.ID, "")
				r.ParentType, r.ParentID = quire.ParentDatabase, dbNode.ID
				if i == 10 {
					r.InTrash = true // a record in trash is still a record
				}
				if err := tx.InsertNode(ctx, r); err != nil {
					return err
				}
				ids = append(ids, r.ID)
			}
			return nil
		})
		page := newNode(w.ID, dbNode.ID) // a page under the database's id as a page parent: not a record
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, page) })
		stranger := quire.NewID()
		query := append(append([]string{}, ids...), page.ID, stranger)
		query[600], query[1050] = stranger, page.ID
		var missing []string
		mustTx(t, s, func(tx *store.Tx) error {
			var err error
			missing, err = tx.MissingRecords(ctx, dbNode.ID, query)
			return err
		})
		if diff := cmp.Diff([]string{stranger, page.ID, page.ID, stranger}, missing); diff != "" {
			t.Fatalf("missing (-want +got):\n%s", diff)
		}
	})
}
