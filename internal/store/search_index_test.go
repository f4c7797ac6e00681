package store_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// The search entries the sources say there should be: every node's title, the text of every
// content block not in trash (each engine's own definition, as in 00006_search.sql), every
// mind-map node's text.
var wantEntries = map[store.Engine]string{
	store.SQLite: `SELECT id, id, 'title', title_plain FROM nodes
		UNION ALL
		SELECT id, page_id, 'body', t FROM (
			SELECT b.id, b.page_id, (SELECT group_concat(value, ' ') FROM json_tree(b.content)
				WHERE key IN ('plain_text', 'expression') AND type = 'text') AS t
			FROM blocks b WHERE b.in_trash = FALSE AND b.type NOT IN ('child_page', 'child_database'))
		WHERE t <> ''
		UNION ALL
		SELECT mind_map_id || ':' || id, mind_map_id, 'body', text FROM mind_map_nodes WHERE text <> ''`,
	store.Postgres: `SELECT id, id, 'title', title_plain FROM nodes
		UNION ALL
		SELECT id, page_id, 'body', t FROM (
			SELECT id, page_id, quire_content_text(content) AS t FROM blocks
			WHERE NOT in_trash AND type NOT IN ('child_page', 'child_database')) AS b
		WHERE t <> ''
		UNION ALL
		SELECT mind_map_id || ':' || id, mind_map_id, 'body', text FROM mind_map_nodes WHERE text <> ''`,
}

// checkIndex fails unless search_docs holds exactly the entries the sources say, the FTS5 index
// agrees with search_docs (SQLite), and the embedding queue holds exactly the nodes queued.
func checkIndex(t *testing.T, s *store.Store, step string, queued ...string) {
	t.Helper()
	want, err := s.RowsForTest(ctx, wantEntries[s.Engine()])
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.RowsForTest(ctx, `SELECT ref, node_id, field, text FROM search_docs`)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: search_docs (-sources +stored):\n%s", step, diff)
	}
	if s.Engine() == store.SQLite {
		// The entries above the indexes' mark first (00027): rank 1 compares the index with
		// every row of search_docs. Where the mark table is not there yet (fromV9), nothing is.
		if v, err := s.RowsForTest(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'search_fts_mark'`); err != nil || v[0] == "1" {
			if _, err := s.IndexSearch(ctx); err != nil {
				t.Fatalf("%s: index the entries above the mark: %v", step, err)
			}
		}
		// rank 1: compare the index with the rows of search_docs, not only with itself.
		err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.Exec(ctx, `INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)`)
		})
		if err != nil {
			t.Errorf("%s: FTS5 index: %v", step, err)
		}
		// The titles' index reads the titles alone from 00015 on (before, it named all of
		// search_docs as its content, so only its own consistency could be checked).
		if v, err := s.RowsForTest(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'search_title_text'`); err != nil || v[0] == "1" {
			err = s.InTx(ctx, func(tx *store.Tx) error {
				return tx.Exec(ctx, `INSERT INTO search_title_fts (search_title_fts, rank) VALUES ('integrity-check', 1)`)
			})
			if err != nil {
				t.Errorf("%s: FTS5 title index: %v", step, err)
			}
		}
	}
	// Queued: in embed_queue, or in its log not yet folded (00022 on, embed_pending); before
	// 00022 (the fromV9 steps) in embed_queue alone.
	q, err := s.RowsForTest(ctx, `SELECT node_id FROM embed_pending`)
	if err != nil {
		q, err = s.RowsForTest(ctx, `SELECT node_id FROM embed_queue`)
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(q)
	queued = slices.Clone(queued)
	slices.Sort(queued)
	if diff := cmp.Diff(queued, q, cmpNilEmpty); diff != "" {
		t.Errorf("%s: queued for embedding (-want +got):\n%s", step, diff)
	}
}

var cmpNilEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

// titleHits is how many title entries the titles' own index finds for term (SQLite; on
// PostgreSQL the titles are matched on nodes).
func titleHits(t *testing.T, s *store.Store, term string) int {
	t.Helper()
	if s.Engine() != store.SQLite {
		return -1
	}
	rows, err := s.RowsForTest(ctx, `SELECT count(*) FROM search_title_fts WHERE search_title_fts MATCH $1`, `"`+term+`"`)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(rows[0], &n)
	return n
}

func rich(texts ...string) string {
	out := "["
	for i, s := range texts {
		if i > 0 {
			out += ","
		}
		out += `{"type":"text","text":{"content":"` + s + `","link":null},"plain_text":"` + s + `","href":null}`
	}
	return out + "]"
}

// TestSearchIndex_EveryWrite makes every kind of write the services make to titles, blocks and
// mind-map nodes, and checks after each that the search entries, the FTS5 index and the
// embedding queue are exactly what the sources say. fromV9 lays the first writes down under
// migration 00009 and migrates to the current schema in the middle.
func TestSearchIndex_EveryWrite(t *testing.T) {
	for _, fromV9 := range []bool{false, true} {
		t.Run(fmt.Sprintf("fromV9=%v", fromV9), func(t *testing.T) {
			testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
				testEveryWrite(t, s, fromV9)
			})
		})
	}
}

func testEveryWrite(t *testing.T, s *store.Store, fromV9 bool) {
	ws, u := seed(t, s)
	if fromV9 {
		if err := s.MigrateForTest(ctx, 9); err != nil {
			t.Fatal(err)
		}
	}
	migrated := false // past 00022: the queue has its log
	step := func(name string, fn func(tx *store.Tx) error, queued ...string) {
		t.Helper()
		mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, `DELETE FROM embed_queue`) })
		if !fromV9 || migrated {
			mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, `DELETE FROM embed_log`) })
		}
		mustTx(t, s, fn)
		checkIndex(t, s, name, queued...)
	}
	p, q, child, mm := newNode(ws.ID, ""), newNode(ws.ID, ""), newNode(ws.ID, ""), newNode(ws.ID, "")
	p.TitlePlain, q.TitlePlain, child.TitlePlain, mm.TitlePlain = "Quarterly plan", "Notes", "Child page", "Map"
	child.ParentType, child.ParentID = quire.ParentPage, p.ID
	mm.PageType = quire.PageTypeMindMap
	root, leaf := quire.NewID(), quire.NewID()
	step("create pages and a mind map", func(tx *store.Tx) error {
		for _, n := range []*quire.Node{p, q, child, mm} {
			if err := tx.InsertNode(ctx, n); err != nil {
				return err
			}
		}
		if err := tx.InsertMindMap(ctx, &quire.MindMap{ID: mm.ID, RootID: root, Settings: []byte(`{}`), NodeCount: 2}); err != nil {
			return err
		}
		return tx.InsertMindMapNodes(ctx, mm.ID, []*quire.MindMapNode{
			{ID: root, Position: "a0", Text: "hub", Color: "default"},
			{ID: leaf, ParentID: root, Position: "a0", Text: "spoke", Color: "default"}})
	}, p.ID, q.ID, child.ID, mm.ID)

	blk := func(page, parent, typ, content string, inTrash bool) *quire.Block {
		return &quire.Block{ID: quire.NewID(), WorkspaceID: ws.ID, PageID: page, ParentID: parent, Position: "a0",
			Type: typ, Content: []byte(content), InTrash: inTrash, Version: 1, CreatedBy: u.ID, EditedBy: u.ID}
	}
	para := blk(p.ID, p.ID, "paragraph", `{"rich_text":`+rich("alpha one", "beta")+`,"color":"default"}`, false)
	code := blk(p.ID, p.ID, "code", `{"caption":`+rich("delta")+`,"rich_text":`+rich("gamma")+`,"language":"go"}`, false)
	eq := blk(p.ID, p.ID, "equation", `{"expression":"E = mc^2"}`, false)
	childBlock := blk(p.ID, p.ID, "child_page", `{"title":"Child page"}`, false)
	childBlock.ID = child.ID
	trashed := blk(p.ID, p.ID, "paragraph", `{"rich_text":`+rich("hidden")+`}`, true)
	empty := blk(p.ID, p.ID, "paragraph", `{"rich_text":[]}`, false)
	blanks := blk(p.ID, p.ID, "paragraph", `{"rich_text":`+rich("", "")+`}`, false)
	item := blk(p.ID, p.ID, "bulleted_list_item", `{"rich_text":`+rich("item")+`}`, false)
	nested := blk(p.ID, item.ID, "paragraph", `{"rich_text":`+rich("nested")+`}`, false)
	// Under 00009 the store's own insert (which writes the entries before the blocks) does not
	// apply; a plain INSERT does, and after 00010 the trigger still indexes rows written that way.
	shapes := []*quire.Block{para, code, eq, childBlock, trashed, empty, blanks, item, nested}
	if fromV9 {
		step("insert blocks of every shape by SQL", func(tx *store.Tx) error { return rawInsert(tx, shapes...) }, p.ID)
	} else {
		step("append blocks of every shape", func(tx *store.Tx) error { return tx.InsertBlocks(ctx, shapes) }, p.ID)
	}

	if fromV9 {
		// Under 00009 a change to a child_page block deleted its page's title entry; 00012
		// brings such titles back.
		// By SQL: the store's method also settles has_children, a column of 00025.
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.Exec(ctx, `UPDATE blocks SET content = $2, version = version + 1, edited_ms = 3 WHERE id = $1`,
				child.ID, `{"title":"Child page, synced"}`)
		})
		if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
		migrated = true
		checkIndex(t, s, "migrated to the current schema", p.ID, child.ID)
	}

	step("append to another page", func(tx *store.Tx) error {
		return tx.InsertBlocks(ctx, []*quire.Block{blk(q.ID, q.ID, "paragraph", `{"rich_text":`+rich("epsilon")+`}`, false)})
	}, q.ID)
	step("insert blocks by SQL, then index them", func(tx *store.Tx) error {
		// A bulk load's way (a restore's): the rows, then one statement for their entries.
		bs := []*quire.Block{blk(q.ID, q.ID, "quote", `{"rich_text":`+rich("eta", "theta")+`}`, false),
			blk(q.ID, q.ID, "paragraph", `{"rich_text":`+rich("iota")+`}`, true),
			blk(q.ID, q.ID, "child_database", `{"title":"iota"}`, false)}
		if s.Engine() == store.SQLite { // PostgreSQL refuses the JSON
			bs = append(bs, blk(q.ID, q.ID, "paragraph", `{"rich_text":[{"plain_text":"lone \ud800 surrogate"}]}`, false))
		}
		if err := rawInsert(tx, bs...); err != nil {
			return err
		}
		return tx.IndexBlocks(ctx)
	}, q.ID)
	step("append what Go leaves to the trigger", func(tx *store.Tx) error {
		bs := []*quire.Block{
			blk(q.ID, q.ID, "paragraph", `{"rich_text":[{"plain_text":"pair \ud83d\ude00 and \u00e9"}]}`, false),
			blk(q.ID, q.ID, "divider", `{}`, false)}
		if s.Engine() == store.SQLite { // PostgreSQL refuses the JSON
			bs = append(bs, blk(q.ID, q.ID, "paragraph", `{"rich_text":[{"plain_text":"lone \ud800 surrogate"}]}`, false))
		}
		return tx.InsertBlocks(ctx, bs)
	}, q.ID)
	update := func(b *quire.Block, change func(b *quire.Block)) func(tx *store.Tx) error {
		return func(tx *store.Tx) error {
			cur, err := tx.Block(ctx, ws.ID, b.ID)
			if err != nil {
				return err
			}
			change(cur)
			return tx.UpdateBlock(ctx, cur)
		}
	}
	step("give an empty block its first text", update(empty, func(b *quire.Block) { b.Content = []byte(`{"rich_text":` + rich("kappa") + `}`) }), p.ID)
	step("edit a block", update(para, func(b *quire.Block) { b.Content = []byte(`{"rich_text":` + rich("zeta") + `}`) }), p.ID)
	step("trash a block", update(code, func(b *quire.Block) { b.InTrash = true }), p.ID)
	step("restore a block", update(code, func(b *quire.Block) { b.InTrash = false }), p.ID)
	step("restore a block made in trash", update(trashed, func(b *quire.Block) { b.InTrash = false }), p.ID)
	step("move a block to another page", update(eq, func(b *quire.Block) { b.PageID, b.ParentID = q.ID, q.ID }), p.ID, q.ID)
	step("touch a block", func(tx *store.Tx) error { return tx.TouchBlock(ctx, item.ID, 5, u.ID) })
	step("replace a page's content", func(tx *store.Tx) error { return tx.TrashContent(ctx, q.ID, 6, u.ID) }, q.ID)

	if titleHits(t, s, "Quarterly") != 1 && s.Engine() == store.SQLite {
		t.Errorf("title index misses %q", "Quarterly")
	}
	step("rename a page", func(tx *store.Tx) error {
		n, err := tx.Node(ctx, ws.ID, p.ID)
		if err != nil {
			return err
		}
		n.TitlePlain = "Yearly plan"
		return tx.UpdateNode(ctx, n)
	}, p.ID)
	if got := [2]int{titleHits(t, s, "Quarterly"), titleHits(t, s, "Yearly")}; s.Engine() == store.SQLite && got != [2]int{0, 1} {
		t.Errorf("title index after the rename: old, new = %v, want [0 1]", got)
	}
	step("rename one of two records in one statement (a mutation batch)", func(tx *store.Tx) error {
		var edits []store.RecordEdit
		for _, id := range []string{p.ID, q.ID} {
			n, err := tx.Node(ctx, ws.ID, id)
			if err != nil {
				return err
			}
			edits = append(edits, store.RecordEdit{Node: n, From: n.Version})
			n.Version++
		}
		edits[0].Node.TitlePlain = "Decade plan"
		return tx.UpdateRecordNodes(ctx, edits)
	}, p.ID)
	if got := [2]int{titleHits(t, s, "Yearly"), titleHits(t, s, "Decade")}; s.Engine() == store.SQLite && got != [2]int{0, 1} {
		t.Errorf("title index after the batch rename: old, new = %v, want [0 1]", got)
	}
	step("sync a child page block", func(tx *store.Tx) error {
		return tx.SyncChildPageBlock(ctx, child.ID, []byte(`{"title":"Renamed child"}`), true, true, 7, u.ID)
	})
	step("detach a child page block", func(tx *store.Tx) error { return tx.DetachChildPageBlock(ctx, child.ID) })
	step("edit a mind-map node", func(tx *store.Tx) error {
		n, err := tx.MindMapNode(ctx, mm.ID, leaf)
		if err != nil {
			return err
		}
		n.Text = "rim"
		return tx.UpdateMindMapNode(ctx, mm.ID, n)
	}, mm.ID)
	blank := quire.NewID()
	step("add a mind-map node without text", func(tx *store.Tx) error {
		return tx.InsertMindMapNodes(ctx, mm.ID, []*quire.MindMapNode{{ID: blank, ParentID: root, Position: "a1", Text: "", Color: "default"}})
	})
	step("give a mind-map node its first text", func(tx *store.Tx) error {
		n, err := tx.MindMapNode(ctx, mm.ID, blank)
		if err != nil {
			return err
		}
		n.Text = "axle"
		return tx.UpdateMindMapNode(ctx, mm.ID, n)
	}, mm.ID)
	step("add a mind-map node with text", func(tx *store.Tx) error {
		return tx.InsertMindMapNodes(ctx, mm.ID, []*quire.MindMapNode{{ID: quire.NewID(), ParentID: root, Position: "a2", Text: "hubcap", Color: "default"}})
	}, mm.ID)
	step("delete a mind-map subtree", func(tx *store.Tx) error {
		_, err := tx.DeleteMindMapSubtree(ctx, mm.ID, leaf)
		return err
	}, mm.ID)
}

// rawInsert writes blocks with a plain INSERT, as a bulk load or an older server would.
func rawInsert(tx *store.Tx, bs ...*quire.Block) error {
	for _, b := range bs {
		err := tx.Exec(ctx, `INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type, content, in_trash,
			version, created_ms, created_by, edited_ms, edited_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, 0, $9, 0, $9)`,
			b.ID, b.WorkspaceID, b.PageID, b.ParentID, b.Position, b.Type, string(b.Content), b.InTrash, b.CreatedBy)
		if err != nil {
			return err
		}
	}
	return nil
}
