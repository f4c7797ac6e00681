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

// TestSearchPlans_EstimateInLookup (issue 15): on PostgreSQL the estimate that tells a rare
// word from a common one is part of the content tier's statement, not a statement of its own:
// the trigram lookup runs only when the estimate calls the word rare. A word on every other
// page (one entry in a hundred sampled) is answered by that one statement, its lookup run; a
// word in every fourth entry is estimated common, its lookup never runs, and the search probes
// the newest pages as before. Both answers are the same on both engines, and through a token's
// grants (the reach's CTE beside the estimate's). The plan holds the lookup custom and generic
// alike.
func TestSearchPlans_EstimateInLookup(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, u := seed(t, s)
		seedWordPages(t, s, ws.ID)
		for _, tc := range []struct {
			word   string
			every  int  // the word is on every every-th page, the newest first
			lookup bool // whether the trigram lookup runs, on PostgreSQL
		}{
			{"pudefa", 2, true},
			{"fimeko", 1, false},
		} {
			var queries []string
			var argsOf [][]any
			q := search.Query{Workspace: ws.ID, Terms: []string{tc.word}, Limit: 10}
			res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
				queries, argsOf = append(queries, query), append(argsOf, args)
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := 599 - 599%tc.every; len(want) < 10; i -= tc.every {
				want = append(want, fmt.Sprintf("p%d", i))
			}
			if got := resultIDs(res); !slices.Equal(got, want) {
				t.Errorf("search %s = %v, want %v", tc.word, got, want)
			}
			if s.Engine() != store.Postgres {
				continue
			}
			// The one statement that reads the table's size is the one that looks the word up.
			est := -1
			for i, query := range queries {
				if !strings.Contains(query, "reltuples") {
					continue
				}
				if est >= 0 || !strings.Contains(query, "(SELECT rare FROM e)") {
					t.Fatalf("%s: the estimate is not (only) in the lookup's statement:\n%s", tc.word, strings.Join(queries, "\n---\n"))
				}
				est = i
			}
			if est < 0 {
				t.Fatalf("%s: no statement estimates the word:\n%s", tc.word, strings.Join(queries, "\n---\n"))
			}
			if tc.lookup && len(queries) != 2 { // the titles' lookup, then the content's statement
				t.Errorf("%s: %d statements, want the titles' lookup and the content's:\n%s", tc.word, len(queries), strings.Join(queries, "\n---\n"))
			}
			for _, generic := range []bool{false, true} {
				plan, err := s.PlanForTest(ctx, generic, queries[est], argsOf[est]...)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(plan, `"Index Name": "search_docs_lower"`) {
					t.Errorf("%s, generic %t: the plan lacks the trigram lookup:\n%s", tc.word, generic, plan)
				}
			}
			looked := false
			for _, n := range pgPlanNodes(t, s, "ANALYZE, FORMAT JSON", queries[est], argsOf[est]) {
				if n.Index == "search_docs_lower" {
					looked = looked || n.Loops > 0
				}
			}
			if looked != tc.lookup {
				t.Errorf("%s: the trigram lookup ran: %t, want %t", tc.word, looked, tc.lookup)
			}
		}
		// A token granted three pages, two with the word.
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.ExecForTest(ctx, `INSERT INTO tokens (id, workspace_id, owner_id, integration_id, name, secret_hash, scopes,
				workspace_scoped, created_ms) VALUES ('tk', $1, $2, 'i', 'n', 'h', '', FALSE, 1)`, ws.ID, u.ID); err != nil {
				return err
			}
			return tx.ExecForTest(ctx, `INSERT INTO grants (token_id, target_id, created_ms) VALUES ('tk', 'p598', 1), ('tk', 'p4', 1), ('tk', 'p3', 1)`)
		})
		for word, want := range map[string][]string{"pudefa": {"p598", "p4"}, "fimeko": {"p598", "p4", "p3"}} {
			q := search.Query{Workspace: ws.ID, ReachOf: "tk", Terms: []string{word}, Limit: 10}
			res, _, err := s.SearchTraceForTest(ctx, q, func(string, []any) {})
			if err != nil {
				t.Fatal(err)
			}
			if got := resultIDs(res); !slices.Equal(got, want) {
				t.Errorf("search %s through the grants = %v, want %v", word, got, want)
			}
		}
	})
}
