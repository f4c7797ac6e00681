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

// TestSearchPlans_ContentInOneStatement (issue 15): on PostgreSQL the content tier of a word on
// 300 pages is one statement: the trigram lookup (search_docs_lower) as a materialized CTE, and
// a walk of the workspace's nodes in result order (nodes_recent) testing each against a hash of
// the lookup's nodes, in its custom and its generic plan alike. No list of ids goes to the
// server, the index is asked once, and no listed node is read by its key (nodes_pkey) and
// sorted: that plan read 1,800 buffers a search beside 100,000 other nodes. SQLite answers the
// same from FTS5.
func TestSearchPlans_ContentInOneStatement(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedWordPages(t, s, ws.ID)
		var queries []string
		var argsOf [][]any
		q := search.Query{Workspace: ws.ID, Terms: []string{"pudefa"}, Limit: 10, Tuning: search.Tuning{Probe: -1}}
		res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
			queries, argsOf = append(queries, query), append(argsOf, args)
		})
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, r := range res {
			got = append(got, r.Node.ID)
		}
		for i := 598; len(want) < 10; i -= 2 {
			want = append(want, fmt.Sprintf("p%d", i))
		}
		if !slices.Equal(got, want) {
			t.Errorf("search = %v, want %v", got, want)
		}
		if s.Engine() != store.Postgres {
			return
		}
		one, lookups := -1, 0
		for i, query := range queries {
			if strings.Contains(query, "ANY(CAST(") {
				t.Errorf("a statement sends a list of ids:\n%s", query)
			}
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
		for _, generic := range []bool{false, true} {
			plan, err := s.PlanForTest(ctx, generic, queries[one], argsOf[one]...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"Index Name": "search_docs_lower"`, `"Index Name": "nodes_recent"`, "hashed SubPlan"} {
				if !strings.Contains(plan, want) {
					t.Errorf("generic %t: the plan lacks %s:\n%s", generic, want, plan)
				}
			}
			if strings.Contains(plan, "nodes_pkey") {
				t.Errorf("generic %t: the plan reads listed nodes by key:\n%s", generic, plan)
			}
		}
	})
}
