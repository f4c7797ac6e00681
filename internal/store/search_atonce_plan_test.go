package store_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// titlesLookup and blocksLookup are fragments of indexMatches' lookups of the titles and of the
// blocks on PostgreSQL, the latter in the content statement's too (pglookup.go).
const (
	titlesLookup = "AS MATERIALIZED (SELECT n.id FROM nodes n WHERE"
	blocksLookup = "AS MATERIALIZED (SELECT d.node_id FROM search_docs d WHERE"
)

// TestSearchPlans_FirstPageAtOnce (issue 15): on PostgreSQL the first page of a search by
// relevance is one statement on the read pool, no transaction (search.KeywordAtOnce): the
// titles' lookup, the estimate, the blocks' lookup and both tiers. Each case answers as
// search.Keyword alone does, on both engines. On PostgreSQL a rare word with title matches, a
// word in nothing and a rare word through a token's grants take that one statement, whose
// plan, custom and generic, reads both trigram indexes and walks no table. A common word, a
// word in every title and a word the estimate calls rare that the blocks' lookup finds in more
// entries than its bound take it and then Keyword's, which neither estimates the first again,
// nor looks up the titles of the second or the blocks of the third again (the hints); for the
// common word the one statement looks up neither the titles nor the blocks.
func TestSearchPlans_FirstPageAtOnce(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, u := seed(t, s)
		seedFirstPages(t, s, ws.ID)
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.ExecForTest(ctx, `INSERT INTO tokens (id, workspace_id, owner_id, integration_id, name, secret_hash, scopes,
				workspace_scoped, created_ms) VALUES ('tk', $1, $2, 'i', 'n', 'h', '', FALSE, 1)`, ws.ID, u.ID); err != nil {
				return err
			}
			return tx.ExecForTest(ctx, `INSERT INTO grants (token_id, target_id, created_ms) VALUES ('tk', 'p598', 1), ('tk', 'p4', 1), ('tk', 'p3', 1)`)
		})
		pages := func(from, step, n int) []string {
			var ids []string
			for i := from; len(ids) < n; i -= step {
				ids = append(ids, fmt.Sprintf("p%d", i))
			}
			return ids
		}
		for _, tc := range []struct {
			name, word, reach string
			limit             int
			want              []string
			atOnce            bool   // PostgreSQL answers with the one statement
			lookup            bool   // the one statement's blocks' lookup runs
			notAgain          string // what no statement after the one statement holds
			titles            bool   // the one statement's titles' lookup runs
			resumes           bool   // the walk stops at its bound, with a key to resume at
		}{
			{"rare word, titles first", "pudefa", "", 10, append([]string{"p3", "p1"}, pages(598, 2, 8)...), true, true, "", true, false},
			{"titles fill the page", "pudefa", "", 2, []string{"p3", "p1"}, true, true, "", true, false},
			{"through grants", "pudefa", "tk", 10, []string{"p3", "p598", "p4"}, true, true, "", true, false},
			{"in nothing", "zuqoxe", "", 10, nil, true, true, "", true, false},
			{"common word", "fimeko", "", 10, pages(599, 1, 10), false, false, "reltuples", false, false},
			{"in every title", "page", "", 10, pages(599, 1, 10), false, false, titlesLookup, true, false},
			{"dense, estimated rare", "vokemu", "", 10, nil, false, true, blocksLookup, true, true},
		} {
			q := search.Query{Workspace: ws.ID, ReachOf: tc.reach, Terms: []string{tc.word}, Limit: tc.limit}
			var queries []string
			var argsOf [][]any
			res, resume, err := s.SearchAtOnceTraceForTest(ctx, q, func(query string, args []any) {
				queries, argsOf = append(queries, query), append(argsOf, args)
			})
			if err != nil {
				t.Fatal(err)
			}
			alone, aloneResume, err := s.SearchTraceForTest(ctx, q, func(string, []any) {})
			if err != nil {
				t.Fatal(err)
			}
			if got := resultIDs(res); !slices.Equal(got, tc.want) || !slices.Equal(got, resultIDs(alone)) ||
				(resume != nil) != tc.resumes || !reflect.DeepEqual(resume, aloneResume) {
				t.Errorf("%s: search = %v (resume %v), Keyword alone %v (resume %v); want %v", tc.name, got, resume, resultIDs(alone), aloneResume, tc.want)
			}
			if s.Engine() != store.Postgres {
				continue
			}
			if len(queries) == 0 || !strings.Contains(queries[0], "tl AS MATERIALIZED") {
				t.Fatalf("%s: the first statement is not the one statement:\n%s", tc.name, strings.Join(queries, "\n---\n"))
			}
			if tc.atOnce != (len(queries) == 1) {
				t.Errorf("%s: %d statements, want the one statement alone: %t\n%s", tc.name, len(queries), tc.atOnce, strings.Join(queries, "\n---\n"))
			}
			for _, query := range queries[1:] {
				// Keyword after it, with the hints: the estimate of a common word, the titles'
				// lookup of a word in too many titles, not asked again.
				if tc.notAgain != "" && strings.Contains(query, tc.notAgain) {
					t.Errorf("%s: Keyword asked again for what the hints say:\n%s", tc.name, query)
				}
			}
			for _, generic := range []bool{false, true} {
				plan, err := s.PlanForTest(ctx, generic, queries[0], argsOf[0]...)
				if err != nil {
					t.Fatal(err)
				}
				for _, index := range []string{"nodes_title_trgm", "search_docs_lower", "nodes_recent"} {
					if !strings.Contains(plan, `"Index Name": "`+index+`"`) {
						t.Errorf("%s, generic %t: the plan lacks %s:\n%s", tc.name, generic, index, plan)
					}
				}
				if strings.Contains(plan, `"Node Type": "Seq Scan"`) {
					t.Errorf("%s, generic %t: the plan scans a table:\n%s", tc.name, generic, plan)
				}
			}
			looked, titled := false, false
			for _, n := range pgPlanNodes(t, s, "ANALYZE, FORMAT JSON", queries[0], argsOf[0]) {
				switch n.Index {
				case "search_docs_lower":
					looked = looked || n.Loops > 0
				case "nodes_title_trgm":
					titled = titled || n.Loops > 0
				}
			}
			if looked != tc.lookup || titled != tc.titles {
				t.Errorf("%s: the blocks' lookup ran: %t, want %t; the titles': %t, want %t", tc.name, looked, tc.lookup, titled, tc.titles)
			}
		}
	})
}

// seedFirstPages is seedWordPages after 20,000 older nodes, with the rare word in two older
// pages' titles and a word in 6,000 entries of the 120 oldest pages (TestSearchPlans_FirstPageAtOnce).
func seedFirstPages(t *testing.T, s *store.Store, ws string) {
	t.Helper()
	// 20,000 older nodes first (the records of a workspace): beside a few hundred,
	// PostgreSQL would rather scan nodes than ask the titles' index, and rightly so.
	mustTx(t, s, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 20000)
			INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, position, title, title_plain, properties,
				description, created_ms, created_by, edited_ms, edited_by)
			SELECT 'r' || CAST(i AS TEXT), $1, 'page', 'page', 'workspace', 'a0', '[]', 'Record ' || CAST(i AS TEXT), '{}', '[]',
				i - 20000, 'u', i - 20000, 'u' FROM seq`, ws)
	})
	seedWordPages(t, s, ws)
	// Two older pages hold the rare word in their titles: the title tier comes first.
	mustTx(t, s, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `UPDATE nodes SET title_plain = 'Pudefa notes ' || id WHERE id IN ('p1', 'p3')`)
	})
	// A word in 6,000 entries of the 120 oldest pages: the estimate, which samples the
	// newest, calls it rare, and the lookup reaches its bound of 5,000. The walk that
	// answers it stops at its bound before the first of them, with a key to resume at.
	mustTx(t, s, func(tx *store.Tx) error {
		return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 6000)
			INSERT INTO search_docs (ref, node_id, field, text)
			SELECT 'v' || CAST(i AS TEXT), 'p' || CAST(i / 50 AS TEXT), 'body', 'vokemu ' || CAST(i AS TEXT) FROM seq`)
	})
	if _, err := s.IndexSearch(ctx); err != nil {
		t.Fatal(err)
	}
}
