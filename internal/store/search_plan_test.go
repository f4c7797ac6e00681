package store_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// seedWordPages writes 600 pages ("p0" … "p599", page i last edited at i) with 50 entries each
// of filler text; "pudefa" is in one entry of every second page (300 pages: more than a search
// reads by id), "kovila" in one of every thirtieth (20 pages).
func seedWordPages(t *testing.T, s *store.Store, ws string) {
	t.Helper()
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 600)
			INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, position, title, title_plain, properties,
				description, created_ms, created_by, edited_ms, edited_by)
			SELECT 'p' || CAST(i AS TEXT), $1, 'page', 'page', 'workspace', 'a0', '[]', 'Page ' || CAST(i AS TEXT), '{}', '[]',
				i, 'u', i, 'u' FROM seq`, ws); err != nil {
			return err
		}
		return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 30000)
			INSERT INTO search_docs (ref, node_id, field, text)
			SELECT 'e' || CAST(i AS TEXT), 'p' || CAST(i / 50 AS TEXT), 'body', 'filler text ' || CAST(i * 7 AS TEXT) ||
				CASE WHEN i % 50 = 0 AND (i / 50) % 2 = 0 THEN ' pudefa' WHEN i % 50 = 1 AND (i / 50) % 30 = 0 THEN ' kovila'
					WHEN i < 2000 AND i % 2 = 1 THEN ' gorupi' WHEN i % 8 = 3 THEN ' zubaro' WHEN i % 4 = 2 THEN ' fimeko'
					ELSE '' END
			FROM seq`)
	})
	// What the upkeep loop does after a write on SQLite (migration 00027): the entries go into
	// the trigram indexes, whose plans these tests read.
	if _, err := s.IndexSearch(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Engine() == store.Postgres {
		// What autovacuum does after a bulk write: the statistics the planner reads.
		mustTx(t, s, func(tx *store.Tx) error { return tx.ExecForTest(ctx, `ANALYZE nodes, search_docs`) })
	}
}

// TestSearchPlans_WordFromIndex (issue 15, item 6): a word in a few hundred entries is answered
// from the trigram index, its entries listed and their pages found by id, or (more pages than
// are read by id) by a walk of the workspace's nodes in result order that tests each id against
// the list; no statement reads a page's entries one by one (search_docs_node, the walks'
// index), and a walk bound of one entry never stops the search. SQLite reads FTS5 and looks
// each entry up by rowid; PostgreSQL's lookup of the rarer word reads the GIN trigram index.
func TestSearchPlans_WordFromIndex(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedWordPages(t, s, ws.ID)
		for _, tc := range []struct {
			word  string
			every int                       // the word is on every every-th page
			want  map[store.Engine][]string // in the plans of the statements, each in some plan
		}{
			{"pudefa", 2, map[store.Engine][]string{
				store.SQLite:   {"VIRTUAL TABLE INDEX", "SEARCH d USING INTEGER PRIMARY KEY (rowid=?)", "SEARCH n USING INDEX nodes_recent (workspace_id=?)"},
				store.Postgres: {"Bitmap Index Scan on search_docs_lower"},
			}},
			{"kovila", 30, map[store.Engine][]string{
				store.SQLite:   {"VIRTUAL TABLE INDEX", "SEARCH d USING INTEGER PRIMARY KEY (rowid=?)", "SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)"},
				store.Postgres: {"Bitmap Index Scan on search_docs_lower"},
			}},
		} {
			var plans []string
			counted := false
			q := search.Query{Workspace: ws.ID, Terms: []string{tc.word}, Limit: 10, Tuning: search.Tuning{Walk: 1, Probe: -1}}
			res, resume, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
				plans = append(plans, explainPlan(t, s, query, args))
				counted = counted || strings.HasPrefix(query, "SELECT COUNT(*) FROM (SELECT rowid FROM search_fts")
			})
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, r := range res {
				got = append(got, r.Node.ID)
			}
			for i := 599; len(want) < 10; i-- {
				if i%tc.every == 0 {
					want = append(want, fmt.Sprintf("p%d", i))
				}
			}
			if !slices.Equal(got, want) || resume != nil {
				t.Errorf("%s: %v (resume %v), want %v and no walk", tc.word, got, resume, want)
			}
			// The rarest trigram's sample (its first 32 entries of 300 or 20) says it is far
			// within the bound: its list is not counted as well.
			if counted {
				t.Errorf("%s: the rarest trigram's entries were counted", tc.word)
			}
			all := strings.Join(plans, "\n---\n")
			for _, bad := range []string{"search_docs_node", "SCAN search_docs", "SCAN d", "Seq Scan on search_docs"} {
				if strings.Contains(all, bad) {
					t.Errorf("%s: a statement reads entries one by one (%s):\n%s", tc.word, bad, all)
				}
			}
			for _, w := range tc.want[s.Engine()] {
				if !strings.Contains(all, w) {
					t.Errorf("%s: no plan has %q:\n%s", tc.word, w, all)
				}
			}
			// The walk of the 300 pages is in order, never a sort of them; the first ten it
			// finds are then read by id, and those few sorted.
			for _, p := range plans {
				if tc.every == 2 && strings.Contains(p, "nodes_recent") && strings.Contains(p, "TEMP B-TREE FOR ORDER BY") {
					t.Errorf("%s: the pages are sorted, not walked in order:\n%s", tc.word, p)
				}
				// Nor is the list of 300 made a temporary index to test each page walked.
				if tc.every == 2 && strings.Contains(p, "nodes_recent") && strings.Contains(p, "json_each") {
					t.Errorf("%s: the walk tests the pages against a temporary index of the list:\n%s", tc.word, p)
				}
			}
		}
	})
}

// explainPlan is the engine's plan of query, one step a line: SQLite's EXPLAIN QUERY PLAN
// details, or PostgreSQL's plan nodes from EXPLAIN (FORMAT JSON) as "<Node Type> on <Index
// Name or Relation Name>".
func explainPlan(t *testing.T, s *store.Store, query string, args []any) string {
	t.Helper()
	if s.Engine() == store.SQLite {
		rows, err := s.RowsForTest(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		return strings.Join(rows, "\n")
	}
	var lines []string
	for _, n := range pgPlanNodes(t, s, "FORMAT JSON", query, args) {
		lines = append(lines, n.Type+" on "+cmp.Or(n.Index, n.Relation))
	}
	return strings.Join(lines, "\n")
}

// estimatePlan is explainPlan restricted to the estimate's CTEs (t, and c and e, which read the
// sample s) when the estimate is part of the content statement (pglookup.go).
func estimatePlan(t *testing.T, s *store.Store, query string, args []any) string {
	t.Helper()
	var lines []string
	var walk func(n planNode)
	walk = func(n planNode) {
		lines = append(lines, n.Type+" on "+cmp.Or(n.Index, n.Relation))
		for _, c := range n.Plans {
			walk(c)
		}
	}
	for _, n := range pgPlanNodes(t, s, "FORMAT JSON", query, args) {
		if n.Subplan == "CTE t" || n.Subplan == "CTE c" || n.Subplan == "CTE e" {
			walk(n)
		}
	}
	return strings.Join(lines, "\n")
}

// TestSearchPlans_RareWordSkipsProbe (issue 15): with the production thresholds, a word in a few
// entries is looked up on the trigram index without PostgreSQL's probe (the next nodes checked
// one by one): its estimate, part of the statement that looks it up, samples the next nodes'
// blocks through nodes_recent and their (node_id, field) index, never a scan of search_docs or
// the trigram index. SQLite has no probe and no estimate: its statements read FTS5 as in
// TestSearchPlans_WordFromIndex.
func TestSearchPlans_RareWordSkipsProbe(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedWordPages(t, s, ws.ID)
		var queries, plans []string
		var argsOf [][]any
		q := search.Query{Workspace: ws.ID, Terms: []string{"kovila"}, Limit: 10}
		res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
			queries, argsOf = append(queries, query), append(argsOf, args)
			plans = append(plans, explainPlan(t, s, query, args))
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 10 || res[0].Node.ID != "p570" {
			t.Fatalf("%d results, first %v; want 10 from p570", len(res), res)
		}
		estimates := 0
		for i, query := range queries {
			if strings.Contains(query, ") AS n\nWHERE") {
				t.Errorf("the nodes were probed one by one:\n%s", query)
			}
			if !strings.Contains(query, "pg_class") {
				continue
			}
			estimates++
			if !strings.Contains(query, "(SELECT rare FROM e)") {
				t.Errorf("the estimate is a statement of its own:\n%s", query)
			}
			plan := estimatePlan(t, s, query, argsOf[i])
			for _, want := range []string{"Index Scan on nodes_recent", "Scan on search_docs_node"} {
				if !strings.Contains(plan, want) {
					t.Errorf("the estimate's plan has no %q:\n%s", want, plan)
				}
			}
			for _, bad := range []string{"Seq Scan on search_docs", "search_docs_lower", "Sort"} {
				if strings.Contains(plan, bad) {
					t.Errorf("the estimate's plan has %q:\n%s", bad, plan)
				}
			}
		}
		if want := map[store.Engine]int{store.SQLite: 0, store.Postgres: 1}[s.Engine()]; estimates != want {
			t.Errorf("%d estimates, want %d", estimates, want)
		}
		if all := strings.Join(plans, "\n"); s.Engine() == store.Postgres && !strings.Contains(all, "Bitmap Index Scan on search_docs_lower") {
			t.Errorf("the word was not looked up on the trigram index:\n%s", all)
		}
	})
}
