package store_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestStore_MindMapTree lays down a mind map of a root, a chain r → a → b → c and a leaf z,
// and checks each read and write the edits are made of.
func TestStore_MindMapTree(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, u := seed(t, s)
		page := newNode(ws.ID, "")
		page.PageType, page.CreatedBy, page.EditedBy = quire.PageTypeMindMap, u.ID, u.ID
		id := map[string]string{}
		for _, k := range []string{"r", "a", "b", "c", "z"} {
			id[k] = quire.NewID()
		}
		rows := []*quire.MindMapNode{
			{ID: id["r"], Position: "a0", Text: "r", Color: "default"},
			{ID: id["a"], ParentID: id["r"], Position: "a0", Text: "a", Color: "red", Collapsed: true},
			{ID: id["z"], ParentID: id["r"], Position: "a1", Text: "z", Color: "default"},
			{ID: id["b"], ParentID: id["a"], Position: "a0", Text: "b", Color: "default"},
			{ID: id["c"], ParentID: id["b"], Position: "a0", Text: "c", Color: "default"},
		}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNode(ctx, page); err != nil {
				return err
			}
			if err := tx.InsertMindMap(ctx, &quire.MindMap{ID: page.ID, RootID: id["r"], Settings: []byte(`{}`), NodeCount: 5}); err != nil {
				return err
			}
			return tx.InsertMindMapNodes(ctx, page.ID, rows)
		})

		n, m, nodes, err := s.MindMapSnapshot(ctx, ws.ID, page.ID)
		if err != nil || n.ID != page.ID || m.RootID != id["r"] || m.NodeCount != 5 {
			t.Fatalf("snapshot: %v %+v %v", err, m, n)
		}
		byID := map[string]quire.MindMapNode{}
		for _, r := range nodes {
			byID[r.ID] = *r
		}
		for _, r := range rows {
			if diff := cmp.Diff(*r, byID[r.ID]); diff != "" {
				t.Errorf("node %s read back (-wrote +read):\n%s", r.Text, diff)
			}
		}
		if _, _, err := s.MindMapHead(ctx, ws.ID, quire.NewID()); !quire.IsCode(err, quire.CodeNotFound) {
			t.Errorf("head of an unknown map: %v", err)
		}

		mustTx(t, s, func(tx *store.Tx) error {
			for _, tc := range []struct {
				from, probe string
				depth       int
				through     bool
			}{{"c", "a", 4, true}, {"c", "z", 4, false}, {"r", "r", 1, true}, {"z", "a", 2, false}} {
				d, th, err := tx.MindMapAncestry(ctx, page.ID, id[tc.from], id[tc.probe])
				if err != nil || d != tc.depth || th != tc.through {
					t.Errorf("ancestry of %s probing %s = %d, %v, %v; want %d, %v", tc.from, tc.probe, d, th, err, tc.depth, tc.through)
				}
			}
			for _, tc := range []struct {
				at     string
				limit  int
				height int
			}{{"r", 100, 4}, {"a", 100, 3}, {"z", 100, 1}, {"r", 2, 3}} {
				h, err := tx.MindMapSubtreeHeight(ctx, page.ID, id[tc.at], tc.limit)
				if err != nil || h != tc.height {
					t.Errorf("height of %s within %d = %d, %v; want %d", tc.at, tc.limit, h, err, tc.height)
				}
			}
			first, last, err := tx.MindMapChildBounds(ctx, page.ID, id["r"])
			if err != nil || first != "a0" || last != "a1" {
				t.Errorf("child bounds of r = %q, %q, %v", first, last, err)
			}
			next, err := tx.NextMindMapSibling(ctx, page.ID, id["r"], "a0")
			if err != nil || next != "a1" {
				t.Errorf("sibling after a0 = %q, %v", next, err)
			}
			k, err := tx.DeleteMindMapSubtree(ctx, page.ID, id["a"])
			if err != nil || k != 3 {
				t.Errorf("deleted %d, %v; want a, b and c", k, err)
			}
			if _, err := tx.MindMapNode(ctx, page.ID, id["c"]); !quire.IsCode(err, quire.CodeNotFound) {
				t.Errorf("c after deleting a: %v", err)
			}
			z, err := tx.MindMapNode(ctx, page.ID, id["z"])
			if err != nil {
				return err
			}
			z.Text, z.Position = "z!", "Zz"
			return tx.UpdateMindMapNode(ctx, page.ID, z)
		})
		_, _, nodes, err = s.MindMapSnapshot(ctx, ws.ID, page.ID)
		var got []string
		for _, r := range nodes {
			got = append(got, r.Text+"@"+r.Position)
		}
		slices.Sort(got)
		if err != nil || !slices.Equal(got, []string{"r@a0", "z!@Zz"}) {
			t.Errorf("after the edits: %v, %v", got, err)
		}
	})
}

// TestMigration_MindMapBackfill runs the backfill statements of 00004_mindmaps.sql again over a
// mind-map page that has no nodes, as pages made before it had: the page gets a root that reads
// like its title.
func TestMigration_MindMapBackfill(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		src, err := os.ReadFile("migrations/" + string(s.Engine()) + "/00004_mindmaps.sql")
		if err != nil {
			t.Fatal(err)
		}
		up := strings.Split(strings.Split(string(src), "-- +goose Down")[0], ";")
		ws, u := seed(t, s)
		page := newNode(ws.ID, "")
		page.PageType, page.TitlePlain, page.CreatedBy, page.EditedBy = quire.PageTypeMindMap, "Old map", u.ID, u.ID
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNode(ctx, page); err != nil {
				return err
			}
			for _, stmt := range up {
				if strings.Contains(stmt, "INSERT INTO") {
					if err := tx.ExecForTest(ctx, stmt); err != nil {
						return err
					}
				}
			}
			return nil
		})
		_, m, nodes, err := s.MindMapSnapshot(ctx, ws.ID, page.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != 1 || m.NodeCount != 1 || m.RootID != nodes[0].ID || !quire.ValidID(m.RootID) ||
			nodes[0].Text != "Old map" || nodes[0].ParentID != "" || string(m.Settings) != `{"layout":"right","theme":"default"}` {
			t.Fatalf("backfilled: %+v %+v", m, nodes)
		}
	})
}
