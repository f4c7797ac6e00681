package store_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// pageWithBlock writes a page titled title with one paragraph of text, returning both.
func pageWithBlock(t *testing.T, s *store.Store, ws, user, title, text string) (*quire.Node, *quire.Block) {
	t.Helper()
	p := newNode(ws, "")
	p.TitlePlain = title
	b := &quire.Block{ID: quire.NewID(), WorkspaceID: ws, PageID: p.ID, ParentID: p.ID, Position: "a0",
		Type: "paragraph", Content: []byte(`{"rich_text":` + rich(text) + `}`), Version: 1, CreatedBy: user, EditedBy: user}
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.InsertNode(ctx, p); err != nil {
			return err
		}
		return tx.InsertBlocks(ctx, []*quire.Block{b})
	})
	return p, b
}

// maxRid is the highest rid of search_docs on SQLite (PostgreSQL's entries have none: 0).
func maxRid(t *testing.T, s *store.Store) int64 {
	t.Helper()
	if s.Engine() != store.SQLite {
		return 0
	}
	v, err := s.RowsForTest(ctx, `SELECT COALESCE(MAX(rid), 0) FROM search_docs`)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.ParseInt(v[0], 10, 64)
	return n
}

// indexWhole indexes the entries above SQLite's FTS5 mark, as the upkeep does, and checks both
// trigram indexes against search_docs (FTS5's integrity-check, rank 1).
func indexWhole(t *testing.T, s *store.Store) {
	t.Helper()
	if s.Engine() != store.SQLite {
		return
	}
	if _, err := s.IndexSearch(ctx); err != nil {
		t.Fatal(err)
	}
	for _, fts := range []string{"search_fts", "search_title_fts"} {
		err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.Exec(ctx, `INSERT INTO `+fts+` (`+fts+`, rank) VALUES ('integrity-check', 1)`)
		})
		if err != nil {
			t.Errorf("%s: %v", fts, err)
		}
	}
	if n := unindexed(t, s); n != 0 {
		t.Errorf("%d entries left above the mark", n)
	}
}

// TestSearchEntryNodes_RidsNeverReused (issue 15): SQLite's keyword search keeps the node of
// every FTS5 match by its rid (search.EntryNodes), which is exact only because a rid is never
// given to another entry (migration 00033). The last entry is deleted after a search kept its
// node, and a page whose title holds the word is written: its title's entry takes a new rid,
// not the freed one (which SQLite gave again before, and which the search would have taken for
// the old page's block), and the search answers the new page alone, before and after the
// indexing. PostgreSQL answers the same.
func TestSearchEntryNodes_RidsNeverReused(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, u := seed(t, s)
		a, block := pageWithBlock(t, s, w.ID, u.ID, "Garden", "quokka lantern")
		if _, err := s.IndexSearch(ctx); err != nil {
			t.Fatal(err)
		}
		checkFound(t, s, w.ID, "before", map[string][]string{"quokka": {a.ID}})
		freed := maxRid(t, s)
		mustTx(t, s, func(tx *store.Tx) error {
			cur, err := tx.Block(ctx, w.ID, block.ID)
			if err != nil {
				return err
			}
			cur.InTrash = true // its entry, the last one, goes
			return tx.UpdateBlock(ctx, cur)
		})
		if s.Engine() == store.SQLite && maxRid(t, s) >= freed {
			t.Fatalf("the block's entry (rid %d) is still the last", freed)
		}
		b, _ := pageWithBlock(t, s, w.ID, u.ID, "Quokka notes", "kettle")
		if got := maxRid(t, s); s.Engine() == store.SQLite && got <= freed+1 {
			t.Errorf("the new page's entries end at rid %d: the freed rid %d was given again", got, freed)
		}
		checkFound(t, s, w.ID, "after (the new page's title)", map[string][]string{"quokka": {b.ID}})
		indexWhole(t, s)
		checkFound(t, s, w.ID, "after indexing", map[string][]string{"quokka": {b.ID}})
	})
}

// TestSearchEntryNodesPlans (issue 15): a lone word whose phrase is the whole test is looked up
// in FTS5 alone; the first search reads its matches' nodes from search_docs by the primary key
// (never a scan, never the entries' node index), and the next one, with the nodes kept, reads
// no row of search_docs but those above the indexes' mark. Both answer the same.
func TestSearchEntryNodesPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if s.Engine() != store.SQLite {
			t.Skip("FTS5's rowids and the kept nodes are SQLite's")
		}
		ws, _ := seed(t, s)
		seedWordPages(t, s, ws.ID)
		q := search.Query{Workspace: ws.ID, Terms: []string{"pudefa"}, Limit: 10, Tuning: search.Tuning{Probe: -1}}
		var answers [2][]string
		var plans [2][]string
		for i := range answers {
			res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
				// The entries' rows (search_docs d), less the read of those above the mark.
				if strings.Contains(query, "search_docs d") && !strings.Contains(query, "search_fts_mark") {
					plans[i] = append(plans[i], explainPlan(t, s, query, args))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				answers[i] = append(answers[i], r.Node.ID)
			}
		}
		if len(answers[0]) != 10 || answers[0][0] != "p598" || !slices.Equal(answers[0], answers[1]) {
			t.Errorf("answers %v then %v, want the same ten from p598", answers[0], answers[1])
		}
		first := strings.Join(plans[0], "\n")
		if !strings.Contains(first, "SEARCH d USING INTEGER PRIMARY KEY (rowid=?)") {
			t.Errorf("the first search did not read its matches' nodes by rid:\n%s", first)
		}
		for _, bad := range []string{"SCAN d", "search_docs_node", "SCAN search_docs"} {
			if strings.Contains(first, bad) {
				t.Errorf("the first search reads entries one by one (%s):\n%s", bad, first)
			}
		}
		if len(plans[1]) != 0 {
			t.Errorf("the second search read search_docs again:\n%s", strings.Join(plans[1], "\n---\n"))
		}
	})
}

// TestSearchDocsRidsKept_Migration: a store at the schema before migration 00033 whose last
// entry was deleted (so the FTS5 mark is above every rid left) migrates forward with its rids,
// its index whole, and a sequence that starts above the mark: a page written after it is
// found from the tail, then indexed by the upkeep's batch (there is no trigger left to index an
// insert at or below the mark, and none is needed). The insert triggers are gone.
func TestSearchDocsRidsKept_Migration(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		v := store.RidsKeptVersionForTest()
		if v == 0 {
			t.Fatal("no *_search_docs_rids_kept.sql migration")
		}
		// 00033's PostgreSQL twin changes nothing, and this store's insert of blocks needs
		// PostgreSQL's 00040: there the store stays migrated and is checked all the same.
		if s.Engine() == store.Postgres {
			v = math.MaxInt64
		}
		if err := s.MigrateForTest(ctx, v-1); err != nil {
			t.Fatal(err)
		}
		w, u := seed(t, s)
		a, _ := pageWithBlock(t, s, w.ID, u.ID, "Garden", "amber kettle")
		_, last := pageWithBlock(t, s, w.ID, u.ID, "Kitchen", "cobalt teapot")
		if _, err := s.IndexSearch(ctx); err != nil {
			t.Fatal(err)
		}
		mark := maxRid(t, s)
		mustTx(t, s, func(tx *store.Tx) error {
			cur, err := tx.Block(ctx, w.ID, last.ID)
			if err != nil {
				return err
			}
			cur.InTrash = true
			return tx.UpdateBlock(ctx, cur)
		})
		entries := `SELECT ref FROM search_docs ORDER BY ref`
		if s.Engine() == store.SQLite {
			entries = `SELECT rid || ' ' || ref FROM search_docs ORDER BY rid`
		}
		before, err := s.RowsForTest(ctx, entries)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
		after, err := s.RowsForTest(ctx, entries)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(before, after) {
			t.Errorf("entries or rids changed by the migration:\nbefore %v\nafter  %v", before, after)
		}
		b, _ := pageWithBlock(t, s, w.ID, u.ID, "Pantry", "amber compass")
		if s.Engine() == store.SQLite {
			v, err := s.RowsForTest(ctx, `SELECT MIN(rid) FROM search_docs WHERE node_id = $1`, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			if rid, _ := strconv.ParseInt(v[0], 10, 64); rid <= mark {
				t.Errorf("the new page's first entry has rid %d, at or below the mark %d", rid, mark)
			}
			gone, err := s.RowsForTest(ctx, `SELECT name FROM sqlite_master WHERE name IN ('search_docs_ai', 'search_title_ai')`)
			if err != nil || len(gone) != 0 {
				t.Errorf("insert triggers left: %v, %v", gone, err)
			}
		}
		want := map[string][]string{"amber": {a.ID, b.ID}, "cobalt": nil}
		slices.Sort(want["amber"])
		checkFound(t, s, w.ID, "from the tail", want)
		indexWhole(t, s)
		checkFound(t, s, w.ID, "after indexing", want)
	})
}
