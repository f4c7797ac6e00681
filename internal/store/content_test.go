package store_test

import (
	"testing"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func newNode(ws, parent string) *quire.Node {
	ptype := quire.ParentWorkspace
	if parent != "" {
		ptype = quire.ParentPage
	}
	return &quire.Node{ID: quire.NewID(), WorkspaceID: ws, Object: quire.ObjectPage, PageType: quire.PageTypePage,
		ParentType: ptype, ParentID: parent, Position: order.First, Title: []byte(`[]`), Properties: []byte(`{}`),
		Description: []byte(`[]`), Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
}

func TestStore_TrashedUnderAndDescendants(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		a := newNode(w.ID, "")
		b := newNode(w.ID, a.ID)
		c := newNode(w.ID, b.ID)
		d := newNode(w.ID, c.ID)
		mustTx(t, s, func(tx *store.Tx) error {
			for _, n := range []*quire.Node{a, b, c, d} {
				if err := tx.InsertNode(ctx, n); err != nil {
					return err
				}
			}
			return nil
		})
		under := func(id string) bool {
			n, err := s.Node(ctx, w.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return n.TrashedUnder
		}
		// Trash b: c and d are hidden, a and b themselves are not "under" trash.
		mustTx(t, s, func(tx *store.Tx) error {
			n, _ := tx.Node(ctx, w.ID, b.ID)
			n.InTrash = true
			if err := tx.UpdateNode(ctx, n); err != nil {
				return err
			}
			return tx.RefreshTrashedUnder(ctx, b.ID)
		})
		if under(a.ID) || under(b.ID) || !under(c.ID) || !under(d.ID) {
			t.Fatalf("after trashing b: a=%v b=%v c=%v d=%v", under(a.ID), under(b.ID), under(c.ID), under(d.ID))
		}
		// Trash c too, then restore b: d stays hidden under c.
		mustTx(t, s, func(tx *store.Tx) error {
			n, _ := tx.Node(ctx, w.ID, c.ID)
			n.InTrash = true
			if err := tx.UpdateNode(ctx, n); err != nil {
				return err
			}
			if err := tx.RefreshTrashedUnder(ctx, c.ID); err != nil {
				return err
			}
			n, _ = tx.Node(ctx, w.ID, b.ID)
			n.InTrash = false
			if err := tx.UpdateNode(ctx, n); err != nil {
				return err
			}
			return tx.RefreshTrashedUnder(ctx, b.ID)
		})
		if under(c.ID) || !under(d.ID) {
			t.Fatalf("after restoring b: c=%v d=%v; want false, true", under(c.ID), under(d.ID))
		}
		mustTx(t, s, func(tx *store.Tx) error {
			for _, tc := range []struct {
				id, anc string
				want    bool
			}{{d.ID, a.ID, true}, {d.ID, c.ID, true}, {a.ID, d.ID, false}, {a.ID, a.ID, false}} {
				got, err := tx.IsDescendant(ctx, tc.id, tc.anc)
				if err != nil || got != tc.want {
					t.Errorf("IsDescendant(%s, %s) = %v, %v; want %v", tc.id, tc.anc, got, err, tc.want)
				}
			}
			return nil
		})
	})
}

func TestStore_UpdateNodeVersionCheck(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		n := newNode(w.ID, "")
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, n) })
		stale := *n
		mustTx(t, s, func(tx *store.Tx) error { n.TitlePlain = "one"; return tx.UpdateNode(ctx, n) })
		err := s.InTx(ctx, func(tx *store.Tx) error { stale.TitlePlain = "two"; return tx.UpdateNode(ctx, &stale) })
		if !quire.IsCode(err, quire.CodeConflict) {
			t.Fatalf("stale update: %v, want conflict", err)
		}
		got, _ := s.Node(ctx, w.ID, n.ID)
		if got.TitlePlain != "one" || got.Version != 2 {
			t.Fatalf("node = %q v%d, want one v2", got.TitlePlain, got.Version)
		}
	})
}

func TestStore_ChildrenKeyset(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		page := newNode(w.ID, "")
		keys, _ := order.NBetween("", "", 250)
		var blocks []*quire.Block
		for i, k := range keys {
			blocks = append(blocks, &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID,
				Position: k, Type: "paragraph", Content: []byte(`{"rich_text":[]}`), InTrash: i%50 == 7, Version: 1,
				CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"})
		}
		child := &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: blocks[0].ID, Position: order.First,
			Type: "paragraph", Content: []byte(`{}`), Version: 1, CreatedBy: "u", EditedBy: "u"}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNode(ctx, page); err != nil {
				return err
			}
			return tx.InsertBlocks(ctx, append(blocks, child))
		})
		var got []*quire.Block
		var after *store.ChildKey
		for {
			batch, err := s.Children(ctx, page.ID, after, 40)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, batch...)
			if len(batch) < 40 {
				break
			}
			last := batch[len(batch)-1]
			after = &store.ChildKey{Position: last.Position, ID: last.ID}
		}
		if len(got) != 245 { // 250 less the 5 in trash
			t.Fatalf("walked %d children, want 245", len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i-1].Position >= got[i].Position {
				t.Fatalf("out of order at %d: %q, %q", i, got[i-1].Position, got[i].Position)
			}
		}
		if !got[0].HasChildren || got[1].HasChildren {
			t.Fatalf("has_children: first %v (want true), second %v (want false)", got[0].HasChildren, got[1].HasChildren)
		}
		if string(got[0].Content) != `{"rich_text":[]}` {
			t.Fatalf("content = %s", got[0].Content)
		}
	})
}

func mustTx(t *testing.T, s *store.Store, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := s.InTx(ctx, fn); err != nil {
		t.Fatal(err)
	}
}
