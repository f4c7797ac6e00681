package store_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// tailWrites lays down two pages, p with blocks indexed into SQLite's trigram indexes, then
// writes that stay above their mark (migration 00027; the background loop is kept from
// indexing): a new page q with blocks, and before any indexing, edits, a trash and a rename of
// both unindexed entries and indexed ones. It returns what each term must find.
func tailWrites(t *testing.T, s *store.Store) (ws string, want map[string][]string) {
	t.Helper()
	w, u := seed(t, s)
	p, q := newNode(w.ID, ""), newNode(w.ID, "")
	p.TitlePlain, q.TitlePlain = "Garden journal", "Kitchen notes"
	para := func(page *quire.Node, text string) *quire.Block {
		return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID, Position: "a0",
			Type: "paragraph", Content: []byte(`{"rich_text":` + rich(text) + `}`), Version: 1, CreatedBy: u.ID, EditedBy: u.ID}
	}
	old, keep := para(p, "ivory lantern"), para(p, "amber kettle")
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.InsertNode(ctx, p); err != nil {
			return err
		}
		return tx.InsertBlocks(ctx, []*quire.Block{old, keep})
	})
	if _, err := s.IndexSearch(ctx); err != nil {
		t.Fatal(err)
	}
	fresh, gone, edited := para(q, "cobalt teapot zq"), para(q, "scarlet violin"), para(q, "olive mirror")
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.InsertNode(ctx, q); err != nil {
			return err
		}
		return tx.InsertBlocks(ctx, []*quire.Block{fresh, gone, edited})
	})
	change := func(b *quire.Block, fn func(b *quire.Block)) {
		mustTx(t, s, func(tx *store.Tx) error {
			cur, err := tx.Block(ctx, w.ID, b.ID)
			if err != nil {
				return err
			}
			fn(cur)
			return tx.UpdateBlock(ctx, cur)
		})
	}
	change(edited, func(b *quire.Block) { b.Content = []byte(`{"rich_text":` + rich("umber compass") + `}`) })
	change(gone, func(b *quire.Block) { b.InTrash = true })
	change(old, func(b *quire.Block) { b.Content = []byte(`{"rich_text":` + rich("silver harbor") + `}`) })
	for id, title := range map[string]string{q.ID: "Pantry notes", p.ID: "Orchard journal"} {
		mustTx(t, s, func(tx *store.Tx) error {
			n, err := tx.Node(ctx, w.ID, id)
			if err != nil {
				return err
			}
			n.TitlePlain = title
			return tx.UpdateNode(ctx, n)
		})
	}
	return w.ID, map[string][]string{
		"cobalt": {q.ID}, "TEAPOT": {q.ID}, "zq": {q.ID}, "umber compass": {q.ID}, "pantry": {q.ID}, "notes": {q.ID},
		"silver": {p.ID}, "amber": {p.ID}, "orchard": {p.ID}, "journal": {p.ID},
		"scarlet": nil, "olive": nil, "ivory": nil, "kitchen": nil, "garden": nil,
	}
}

// unindexed counts the entries above the trigram indexes' mark (SQLite).
func unindexed(t *testing.T, s *store.Store) int {
	t.Helper()
	rows, err := s.RowsForTest(ctx, `SELECT count(*) FROM search_docs WHERE rid > (SELECT rid FROM search_fts_mark)`)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkFound fails unless each term finds exactly its nodes.
func checkFound(t *testing.T, s *store.Store, ws, step string, want map[string][]string) {
	t.Helper()
	for term, ids := range want {
		res, _, err := s.Search(ctx, search.Query{Workspace: ws, Terms: []string{term}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Node.ID)
		}
		slices.Sort(got)
		if diff := cmp.Diff(ids, got); diff != "" {
			t.Errorf("%s: search %q (-want +got):\n%s", step, term, diff)
		}
	}
}

// checkFTS fails unless both trigram indexes agree with the entries they hold (SQLite).
func checkFTS(t *testing.T, s *store.Store, step string) {
	t.Helper()
	if s.Engine() != store.SQLite {
		return
	}
	for _, fts := range []string{"search_fts", "search_title_fts"} {
		err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.Exec(ctx, `INSERT INTO `+fts+` (`+fts+`, rank) VALUES ('integrity-check', 1)`)
		})
		if err != nil {
			t.Errorf("%s: %s: %v", step, fts, err)
		}
	}
}

// TestSearchTail: a keyword search finds what was written and not yet indexed, and nothing
// that was edited away, trashed or renamed before the indexing; after it, the indexes are
// whole and the answers are the same.
func TestSearchTail(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		store.SkipBackgroundIndexForTest(t)
		ws, want := tailWrites(t, s)
		// q's title, fresh and edited's entry, old's new entry (an edit writes the entry anew).
		if s.Engine() == store.SQLite && unindexed(t, s) != 4 {
			t.Fatalf("%d entries above the mark, want 4", unindexed(t, s))
		}
		checkFound(t, s, ws, "before indexing", want)
		n, err := s.IndexSearch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Engine() == store.SQLite && (n != 4 || unindexed(t, s) != 0) {
			t.Errorf("indexed %d, %d left above the mark; want 4, 0", n, unindexed(t, s))
		}
		checkFTS(t, s, "after indexing")
		checkFound(t, s, ws, "after indexing", want)
	})
}

// TestSearchTail_Background: the upkeep loop indexes what writes left above the mark, by itself.
func TestSearchTail_Background(t *testing.T) {
	s := testdb.SQLite(t)
	ws, want := tailWrites(t, s)
	eventually(t, "the entries indexed", func() bool { return unindexed(t, s) == 0 })
	checkFTS(t, s, "after the loop")
	checkFound(t, s, ws, "after the loop", want)
}

// TestSearchTail_Crash: entries above the mark when the store closes without indexing them (as
// a crash leaves them) are found after it opens again, and indexed once.
func TestSearchTail_Crash(t *testing.T) {
	store.SkipBackgroundIndexForTest(t)
	for _, engine := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(engine), func(t *testing.T) {
			cfg := store.Config{Dir: t.TempDir()}
			if engine == store.Postgres {
				cfg = store.Config{DatabaseURL: testdb.PostgresURL(t)}
			}
			s, err := store.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ws, want := tailWrites(t, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s, err = store.Open(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			checkFound(t, s, ws, "reopened", want)
			if _, err := s.IndexSearch(ctx); err != nil {
				t.Fatal(err)
			}
			checkFTS(t, s, "reopened and indexed")
			checkFound(t, s, ws, "reopened and indexed", want)
		})
	}
}

// TestSearchTailPlans pins the reads of the entries above the mark to search_docs' primary key
// from the mark on, never a scan of the entries: a search's (one for both trigram indexes it
// asks) and the background indexer's. SQLite alone: PostgreSQL has no mark and runs neither.
func TestSearchTailPlans(t *testing.T) {
	s := testdb.SQLite(t)
	store.SkipBackgroundIndexForTest(t)
	ws, _ := tailWrites(t, s)
	var plans []string
	_, _, err := s.SearchTraceForTest(ctx, search.Query{Workspace: ws, Terms: []string{"cobalt"}, Limit: 10}, func(query string, args []any) {
		if strings.Contains(query, "search_fts_mark") {
			plans = append(plans, explainPlan(t, s, query, args))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 {
		t.Fatalf("%d reads of the entries above the mark, want 1 (titles and blocks)", len(plans))
	}
	plans = append(plans, explainPlan(t, s, store.NextIndexBatchForTest, []any{500}))
	for i, plan := range plans {
		if !strings.Contains(plan, "USING INTEGER PRIMARY KEY (rowid>?)") {
			t.Errorf("read %d does not seek the primary key from the mark:\n%s", i, plan)
		}
		for _, bad := range []string{"SCAN d", "SCAN search_docs", "search_docs_node"} {
			if strings.Contains(plan, bad) {
				t.Errorf("read %d has %q:\n%s", i, bad, plan)
			}
		}
	}
}

// TestSearchTail_OtherServer: a second store on the same database (another server) finds what
// the first wrote before either indexed it, and after the second indexed it.
func TestSearchTail_OtherServer(t *testing.T) {
	store.SkipBackgroundIndexForTest(t)
	for _, engine := range []store.Engine{store.SQLite, store.Postgres} {
		t.Run(string(engine), func(t *testing.T) {
			cfg := store.Config{Dir: t.TempDir()}
			if engine == store.Postgres {
				cfg = store.Config{DatabaseURL: testdb.PostgresURL(t)}
			}
			var open [2]*store.Store
			for i := range open {
				s, err := store.Open(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				open[i] = s
			}
			ws, want := tailWrites(t, open[0])
			checkFound(t, open[1], ws, "the other server, before indexing", want)
			if _, err := open[1].IndexSearch(ctx); err != nil {
				t.Fatal(err)
			}
			checkFTS(t, open[0], "indexed by the other server")
			checkFound(t, open[0], ws, "indexed by the other server", want)
		})
	}
}
