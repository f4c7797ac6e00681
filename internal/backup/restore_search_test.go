package backup

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestRestore_BlocksSearchEntries: a restore writes the keyword entries of the blocks it loads
// (on SQLite no trigger does since 00034: restorer.indexBlocks), the same entries the store's
// own insert wrote, including a block whose JSON only SQLite reads (a lone surrogate), and
// none for a block in trash or a child page's block; the restored blocks are found by keyword
// search; and the embedding queue is the carried one, which the entries' own queueing must not
// have changed. Into an empty store and over the source itself (--force).
func TestRestore_BlocksSearchEntries(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, page := seedBlocks(t, s)
		entries := func(s *store.Store) []string {
			t.Helper()
			rows, err := s.RowsForTest(ctx, `SELECT ref, node_id, field, text FROM search_docs ORDER BY ref`)
			if err != nil {
				t.Fatal(err)
			}
			return rows
		}
		queue := func(s *store.Store) []string {
			t.Helper()
			rows, err := s.RowsForTest(ctx, `SELECT node_id, queued_ms, attempts, not_before FROM embed_queue_folded ORDER BY node_id`)
			if err != nil {
				t.Fatal(err)
			}
			return rows
		}
		want, wantQueue := entries(s), queue(s)
		if len(want) < 4 || len(wantQueue) != 2 {
			t.Fatalf("source: entries %q, queue %q; want two titles and the blocks' entries, both pages queued", want, wantQueue)
		}
		archive := backupOf(t, s)
		target := testdb.SQLite(t)
		if s.Engine() == store.Postgres {
			target = testdb.Postgres(t)
		}
		for _, c := range []struct {
			name  string
			st    *store.Store
			force bool
		}{{"empty store", target, false}, {"over the source (--force)", s, true}} {
			if _, err := Restore(ctx, c.st, archive, RestoreOptions{FilesDir: t.TempDir(), Force: c.force}); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if diff := cmp.Diff(want, entries(c.st)); diff != "" {
				t.Errorf("%s: search entries (-source +restored):\n%s", c.name, diff)
			}
			if diff := cmp.Diff(wantQueue, queue(c.st)); diff != "" {
				t.Errorf("%s: embedding queue (-carried +restored):\n%s", c.name, diff)
			}
			terms := map[string]int{"zebra": 1, "quagga": 0} // the second is in trash
			if s.Engine() == store.SQLite {
				terms["okapi"] = 1 // the block Go leaves to SQLite's reading of its JSON
			}
			for term, n := range terms {
				res, _, err := c.st.Search(ctx, search.Query{Workspace: ws, Terms: []string{term}, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				if len(res) != n || n == 1 && res[0].Node.ID != page {
					t.Errorf("%s: search %q found %d nodes; want %d (the page)", c.name, term, len(res), n)
				}
			}
		}
	})
}

// seedBlocks writes a workspace with a page holding blocks of each kind the search entries
// treat apart, and a child page, through the store's own insert; it returns the workspace and
// the page.
func seedBlocks(t *testing.T, s *store.Store) (ws, page string) {
	t.Helper()
	ctx := context.Background()
	w := &quire.Workspace{ID: quire.NewID(), Name: "Zoo", CreatedMs: 1}
	if err := s.CreateWorkspace(ctx, w); err != nil {
		t.Fatal(err)
	}
	node := func(title, parent string) *quire.Node {
		ptype := quire.ParentWorkspace
		if parent != "" {
			ptype = quire.ParentPage
		}
		return &quire.Node{ID: quire.NewID(), WorkspaceID: w.ID, Object: quire.ObjectPage, PageType: quire.PageTypePage,
			ParentType: ptype, ParentID: parent, Position: order.First, Title: []byte(`[]`), TitlePlain: title,
			Properties: []byte(`{}`), Description: []byte(`[]`), Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
	}
	p := node("Enclosures", "")
	child := node("Keepers", p.ID)
	blk := func(id, typ, content string, inTrash bool) *quire.Block {
		if id == "" {
			id = quire.NewID()
		}
		return &quire.Block{ID: id, WorkspaceID: w.ID, PageID: p.ID, ParentID: p.ID, Position: order.First, Type: typ,
			Content: []byte(content), InTrash: inTrash, Version: 1, CreatedBy: "u", EditedBy: "u"}
	}
	blocks := []*quire.Block{
		blk("", "paragraph", `{"rich_text":[{"plain_text":"zebra crossing"},{"plain_text":"stripes"}]}`, false),
		blk("", "equation", `{"expression":"e = mc^2"}`, false),
		blk("", "paragraph", `{"rich_text":[{"plain_text":"quagga herd"}]}`, true),
		blk("", "divider", `{}`, false),
		blk(child.ID, "child_page", `{"title":"Keepers"}`, false),
	}
	if s.Engine() == store.SQLite { // PostgreSQL refuses the JSON
		blocks = append(blocks, blk("", "paragraph", `{"rich_text":[{"plain_text":"okapi \ud800 lone"}]}`, false))
	}
	err := s.InTx(ctx, func(tx *store.Tx) error {
		for _, n := range []*quire.Node{p, child} {
			if err := tx.InsertNode(ctx, n); err != nil {
				return err
			}
		}
		return tx.InsertBlocks(ctx, blocks)
	})
	if err != nil {
		t.Fatal(err)
	}
	return w.ID, p.ID
}
