package store_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestMigrateHasChildren: migration 00025 sets the stored has_children of the blocks written
// before it: true for a block with a child out of trash, false for one whose only child is in
// trash and for one with none; the migration down and up again gives the same.
func TestMigrateHasChildren(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, u := seed(t, s)
		if err := s.MigrateForTest(ctx, 24); err != nil {
			t.Fatal(err)
		}
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.Exec(ctx, `INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type, content, in_trash,
				created_ms, created_by, edited_ms, edited_by) VALUES
				('a', $1, 'pg', 'pg', 'a', 'toggle', '{}', FALSE, 1, $2, 1, $2),
				('a1', $1, 'pg', 'a', 'a', 'paragraph', '{}', FALSE, 1, $2, 1, $2),
				('a2', $1, 'pg', 'a', 'b', 'paragraph', '{}', TRUE, 1, $2, 1, $2),
				('b', $1, 'pg', 'pg', 'b', 'toggle', '{}', FALSE, 1, $2, 1, $2),
				('b1', $1, 'pg', 'b', 'a', 'paragraph', '{}', TRUE, 1, $2, 1, $2),
				('c', $1, 'pg', 'pg', 'c', 'paragraph', '{}', FALSE, 1, $2, 1, $2)`, ws.ID, u.ID)
		})
		want := []string{"a|1", "a1|0", "a2|0", "b|0", "b1|0", "c|0"}
		for _, down := range []bool{false, true} {
			if down {
				if err := s.MigrateForTest(ctx, 24); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
				t.Fatal(err)
			}
			got, err := s.RowsForTest(ctx, `SELECT id, CASE WHEN has_children THEN 1 ELSE 0 END FROM blocks ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("has_children after 00025 (down first: %v) (-want +got):\n%s", down, diff)
			}
		}
		if drift, err := s.ChildrenDrift(ctx); err != nil || len(drift) > 0 {
			t.Fatalf("ChildrenDrift = %v, %v", drift, err)
		}
	})
}

// TestUpdateBlockMoves: a block moved by UpdateBlock settles both parents, the one it left
// (now childless) and the one it joined; trashed and restored in place, its parent; a stale
// version is a conflict and moves nothing.
func TestUpdateBlockMoves(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, u := seed(t, s)
		blk := func(id, parent string) *quire.Block {
			return &quire.Block{ID: id, WorkspaceID: ws.ID, PageID: "pg", ParentID: parent, Position: "a" + id, Type: "toggle",
				Content: []byte(`{}`), Version: 1, CreatedBy: u.ID, EditedBy: u.ID}
		}
		a, b, c := quire.NewID(), quire.NewID(), quire.NewID()
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.InsertBlocks(ctx, []*quire.Block{blk(a, "pg"), blk(b, "pg"), blk(c, a)})
		})
		flags := func() []string {
			got, err := s.RowsForTest(ctx, `SELECT CASE WHEN has_children THEN 1 ELSE 0 END FROM blocks WHERE id IN ($1, $2) ORDER BY id = $1 DESC`, a, b)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if diff := cmp.Diff([]string{"1", "0"}, flags()); diff != "" {
			t.Fatalf("a, b before the move (-want +got):\n%s", diff)
		}
		var stale *quire.Block
		mustTx(t, s, func(tx *store.Tx) error {
			cur, err := tx.Block(ctx, ws.ID, c)
			if err != nil {
				return err
			}
			stale = cur
			moved := *cur
			moved.ParentID = b
			return tx.UpdateBlock(ctx, &moved)
		})
		if diff := cmp.Diff([]string{"0", "1"}, flags()); diff != "" {
			t.Fatalf("a, b after the move (-want +got):\n%s", diff)
		}
		// Trash and restore in place settle the parent; an edit of the content keeps the flags.
		for _, step := range []struct {
			name         string
			change       func(b *quire.Block)
			wantA, wantB string
		}{
			{"trashed", func(b *quire.Block) { b.InTrash = true }, "0", "0"},
			{"restored", func(b *quire.Block) { b.InTrash = false }, "0", "1"},
			{"edited", func(b *quire.Block) { b.Content = []byte(`{"x":1}`) }, "0", "1"},
		} {
			mustTx(t, s, func(tx *store.Tx) error {
				cur, err := tx.Block(ctx, ws.ID, c)
				if err != nil {
					return err
				}
				step.change(cur)
				return tx.UpdateBlock(ctx, cur)
			})
			if diff := cmp.Diff([]string{step.wantA, step.wantB}, flags()); diff != "" {
				t.Fatalf("a, b after c is %s (-want +got):\n%s", step.name, diff)
			}
		}
		err := s.InTx(ctx, func(tx *store.Tx) error { stale.ParentID = a; return tx.UpdateBlock(ctx, stale) })
		if !quire.IsCode(err, quire.CodeConflict) {
			t.Fatalf("UpdateBlock with a stale version = %v, want conflict", err)
		}
		if drift, err := s.ChildrenDrift(ctx); err != nil || len(drift) > 0 {
			t.Fatalf("ChildrenDrift = %v, %v", drift, err)
		}
	})
}
