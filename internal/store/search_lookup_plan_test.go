package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearchPlans_ContentInOneStatement (issue 15): on PostgreSQL the content tier of a word is
// one statement: the trigram lookup (search_docs_lower) as a materialized CTE, then the nodes of
// the lookup's entries, walked to in result order (nodes_recent, testing each node against a
// hash of the lookup's) when they are more than are read by id (a word on 300 pages), read by
// key (nodes_pkey) and sorted when fewer (a word on 20). Both ways are in the plan, custom and
// generic alike, and only the one the count chose runs. No list of ids goes to the server and
// the index is asked once. The read by key of 450 listed nodes took 1,800 buffers a search
// beside 100,000 other nodes, the walk to an old page every newer node. The same statement
// answers in creation order beside the titles' list, and through a token's grants beside the
// reach's CTE. SQLite answers the same from FTS5.
func TestSearchPlans_ContentInOneStatement(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, u := seed(t, s)
		// 20,000 older nodes first (the records of a workspace): beside them a small list's
		// nodes are read by key, not found by a scan of nodes.
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 20000)
				INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, position, title, title_plain, properties,
					description, created_ms, created_by, edited_ms, edited_by)
				SELECT 'r' || CAST(i AS TEXT), $1, 'page', 'page', 'workspace', 'a0', '[]', 'Record ' || CAST(i AS TEXT), '{}', '[]',
					i - 20000, 'u', i - 20000, 'u' FROM seq`, ws.ID)
		})
		seedWordPages(t, s, ws.ID)
		for _, tc := range []struct {
			word  string
			every int    // the word is on every every-th page
			runs  string // the way to the nodes that runs, on PostgreSQL
		}{
			{"pudefa", 2, "nodes_recent"},
			{"kovila", 30, "nodes_pkey"},
		} {
			var queries []string
			var argsOf [][]any
			q := search.Query{Workspace: ws.ID, Terms: []string{tc.word}, Limit: 10, Tuning: search.Tuning{Probe: -1}}
			res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
				queries, argsOf = append(queries, query), append(argsOf, args)
			})
			if err != nil {
				t.Fatal(err)
			}
			got, want := resultIDs(res), []string(nil)
			for i := 599 - 599%tc.every; len(want) < 10; i -= tc.every {
				want = append(want, fmt.Sprintf("p%d", i))
			}
			if !slices.Equal(got, want) {
				t.Errorf("search %s = %v, want %v", tc.word, got, want)
			}
			if s.Engine() != store.Postgres {
				continue
			}
			one := lookupStatement(t, queries)
			for _, query := range queries {
				if strings.Contains(query, "ANY(CAST(") { // no title matches: no list at all
					t.Errorf("%s: a statement sends a list of ids:\n%s", tc.word, query)
				}
			}
			for _, generic := range []bool{false, true} {
				plan, err := s.PlanForTest(ctx, generic, queries[one], argsOf[one]...)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{`"Index Name": "search_docs_lower"`, `"Index Name": "nodes_recent"`, "hashed SubPlan", `"Index Name": "nodes_pkey"`} {
					if !strings.Contains(plan, want) {
						t.Errorf("%s, generic %t: the plan lacks %s:\n%s", tc.word, generic, want, plan)
					}
				}
				if strings.Contains(plan, `"Node Type": "Seq Scan"`) {
					t.Errorf("%s, generic %t: the plan scans a table:\n%s", tc.word, generic, plan)
				}
			}
			ran := map[string]bool{}
			for _, n := range pgPlanNodes(t, s, "ANALYZE, FORMAT JSON", queries[one], argsOf[one]) {
				if n.Relation == "nodes" && n.Index != "" {
					ran[n.Index] = ran[n.Index] || n.Loops > 0
				}
			}
			if len(ran) != 2 || !ran[tc.runs] || ran["nodes_recent"] == ran["nodes_pkey"] {
				t.Errorf("%s: the ways to the nodes that ran: %v, want %s alone", tc.word, ran, tc.runs)
			}
		}
		// In creation order titles and blocks are one segment: the titles' list beside the
		// lookup. p1's title gains the word (its blocks lack it).
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `UPDATE nodes SET title_plain = 'Page 1 pudefa' WHERE id = 'p1'`)
		})
		if _, err := s.IndexSearch(ctx); err != nil {
			t.Fatal(err)
		}
		var queries []string
		q := search.Query{Workspace: ws.ID, Terms: []string{"pudefa"}, Order: search.ByCreated, Ascending: true, Limit: 10, Tuning: search.Tuning{Probe: -1}}
		res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) { queries = append(queries, query) })
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resultIDs(res), []string{"p0", "p1", "p2", "p4", "p6", "p8", "p10", "p12", "p14", "p16"}; !slices.Equal(got, want) {
			t.Errorf("search by creation = %v, want %v", got, want)
		}
		if s.Engine() == store.Postgres {
			lookupStatement(t, queries)
		}
		// A token granted three pages, two with the word: the reach's CTE beside the lookup's.
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.ExecForTest(ctx, `INSERT INTO tokens (id, workspace_id, owner_id, integration_id, name, secret_hash, scopes,
				workspace_scoped, created_ms) VALUES ('tk', $1, $2, 'i', 'n', 'h', '', FALSE, 1)`, ws.ID, u.ID); err != nil {
				return err
			}
			return tx.ExecForTest(ctx, `INSERT INTO grants (token_id, target_id, created_ms) VALUES ('tk', 'p598', 1), ('tk', 'p4', 1), ('tk', 'p3', 1)`)
		})
		queries = nil
		q = search.Query{Workspace: ws.ID, ReachOf: "tk", Terms: []string{"pudefa"}, Limit: 10, Tuning: search.Tuning{Probe: -1}}
		res, _, err = s.SearchTraceForTest(ctx, q, func(query string, args []any) { queries = append(queries, query) })
		if err != nil {
			t.Fatal(err)
		}
		if got, want := resultIDs(res), []string{"p598", "p4"}; !slices.Equal(got, want) {
			t.Errorf("search through the grants = %v, want %v", got, want)
		}
		if s.Engine() == store.Postgres {
			lookupStatement(t, queries)
		}
	})
}

// lookupStatement is the index of the one statement of queries that reads search_docs, which
// must also read the results from nodes.
func lookupStatement(t *testing.T, queries []string) int {
	t.Helper()
	one, lookups := -1, 0
	for i, query := range queries {
		if strings.Contains(query, "search_docs d") {
			lookups++
			if strings.Contains(query, "FROM nodes n") {
				one = i
			}
		}
	}
	if one < 0 || lookups != 1 {
		t.Fatalf("%d statements read search_docs, the results' statement among them: %t; want 1, true\n%s", lookups, one >= 0, strings.Join(queries, "\n---\n"))
	}
	return one
}

// resultIDs are the ids of res's nodes, in order.
func resultIDs(res []search.Result) []string {
	var ids []string
	for _, r := range res {
		ids = append(ids, r.Node.ID)
	}
	return ids
}
