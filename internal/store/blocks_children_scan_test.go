package store_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestChildrenAsBlocks: a listed child is the block as Block reads it, but for what a listing
// leaves to its caller (workspace, page, version): in particular the editor and the edit time,
// which the listing reads as NULL when they equal the creator's, are right when they differ (an
// edit by another user, a later edit by the same one), has_children true and false, contents
// of every size; from the start and after a key, with a limit the SQLite statements have
// compiled in and one they have not.
func TestChildrenAsBlocks(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, ada := seed(t, s)
		bob := &quire.User{ID: quire.NewID(), WorkspaceID: ws.ID, Name: "Bob", Email: "bob@example.com", CreatedMs: 1}
		if err := s.CreateUser(ctx, bob); err != nil {
			t.Fatal(err)
		}
		page := quire.NewID()
		blk := func(pos, typ, content string, edited int64, by string) *quire.Block {
			return &quire.Block{ID: quire.NewID(), WorkspaceID: ws.ID, PageID: page, ParentID: page, Position: pos,
				Type: typ, Content: []byte(content), Version: 1, CreatedMs: 1_700_000_000_000, CreatedBy: ada.ID,
				EditedMs: edited, EditedBy: by}
		}
		long := `{"rich_text":[{"type":"text","text":{"content":"` + strings.Repeat("x", 9000) + `"}}]}`
		bs := []*quire.Block{
			blk("a", "paragraph", `{"rich_text":[]}`, 1_700_000_000_000, ada.ID),            // never edited
			blk("b", "toggle", `{"rich_text":[],"color":"red"}`, 1_700_000_000_000, bob.ID), // same time, another editor
			blk("c", "heading_1", `{"rich_text":[]}`, 1_700_000_500_000, ada.ID),            // edited later by its creator
			blk("d", "quote", long, 1_800_000_000_000, bob.ID),                              // both differ; a long content
			blk("e", "divider", `{}`, 1_700_000_000_000, ada.ID),
		}
		child := blk("a", "paragraph", `{"rich_text":[]}`, 1_700_000_000_000, ada.ID)
		child.ParentID = bs[1].ID // gives b has_children
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertBlocks(ctx, append(bs, child)) })

		var want []*quire.Block
		for _, b := range bs {
			got, err := s.Block(ctx, ws.ID, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			got.WorkspaceID, got.PageID, got.Version = "", "", 0
			want = append(want, got)
		}
		if !want[1].HasChildren || want[0].HasChildren {
			t.Fatalf("has_children of the toggle, the paragraph = %v, %v; want true, false", want[1].HasChildren, want[0].HasChildren)
		}
		for _, limit := range []int{21, 3} {
			first, err := s.Children(ctx, page, nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			last := first[len(first)-1]
			rest, err := s.Children(ctx, page, &store.ChildKey{Position: last.Position, ID: last.ID}, limit)
			if err != nil {
				t.Fatal(err)
			}
			got := append(first, rest...)
			if limit == 21 {
				got = first
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Children, limit %d (-Block +Children):\n%s", limit, diff)
			}
		}
	})
}
