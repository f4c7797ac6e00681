package store_test

import (
	"fmt"
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

// TestChildrenArena: a listing copies its rows' texts and contents into shared chunks and
// shares a type, creator or editor equal to the previous row's. Listed over two pages of 101
// and the rest (chunk boundaries crossed, a content larger than a chunk), each block is still
// the block Block reads, whatever its neighbours: runs of one type and creator broken by others
// and resumed, editors alternating. A listed content is capped: appending to it leaves the
// other blocks as they were.
func TestChildrenArena(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, ada := seed(t, s)
		bob := &quire.User{ID: quire.NewID(), WorkspaceID: ws.ID, Name: "Bob", Email: "bob@example.com", CreatedMs: 1}
		if err := s.CreateUser(ctx, bob); err != nil {
			t.Fatal(err)
		}
		page := quire.NewID()
		users := []string{ada.ID, ada.ID, bob.ID, ada.ID, bob.ID, bob.ID, ada.ID}
		types := []string{"paragraph", "paragraph", "to_do", "paragraph", "heading_1", "heading_1", "quote"}
		var bs []*quire.Block
		for i := range 250 {
			text := strings.Repeat(string(rune('a'+i%26)), 1+(i*397)%3000)
			if i == 150 {
				text = strings.Repeat("z", 40_000) // beyond a chunk
			}
			b := &quire.Block{ID: quire.NewID(), WorkspaceID: ws.ID, PageID: page, ParentID: page,
				Position: fmt.Sprintf("p%04d", i), Type: types[i%len(types)], Version: 1,
				Content:   []byte(`{"rich_text":[{"type":"text","text":{"content":"` + text + `"}}]}`),
				CreatedMs: 1_700_000_000_000 + int64(i), CreatedBy: users[i%len(users)]}
			b.EditedMs, b.EditedBy = b.CreatedMs, b.CreatedBy
			if i%3 == 0 {
				b.EditedMs, b.EditedBy = b.CreatedMs+5, users[(i+2)%len(users)]
			}
			if i%10 == 9 {
				b.Type, b.Content = "divider", []byte(`{}`) // a short one between long ones
			}
			bs = append(bs, b)
		}
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertBlocks(ctx, bs) })

		var got []*quire.Block
		var after *store.ChildKey
		for len(got) < len(bs) {
			list, err := s.Children(ctx, page, after, 101)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) == 0 {
				t.Fatalf("listing stopped after %d of %d blocks", len(got), len(bs))
			}
			last := list[len(list)-1]
			after = &store.ChildKey{Position: last.Position, ID: last.ID}
			got = append(got, list...)
		}
		for _, b := range got {
			_ = append(b.Content, `,"more"`...) // writes nothing of the listing's
		}
		for i, b := range bs {
			want, err := s.Block(ctx, ws.ID, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			want.WorkspaceID, want.PageID, want.Version = "", "", 0
			if diff := cmp.Diff(want, got[i]); diff != "" {
				t.Fatalf("block %d (-Block +Children):\n%s", i, diff)
			}
		}
	})
}
