package store_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// keptRare is the estimate's CTE of KeywordAtOnce's statement when a kept plan calls the terms
// rare (search.Plans): no sample.
const keptRare = "e AS MATERIALIZED (SELECT TRUE AS rare"

// TestSearchPlans_KeptPlan (issue 15): on PostgreSQL what KeywordAtOnce's statement learned of a
// first page's plan is kept (search.Plans). Searched again, a rare word and a word in nothing
// take the one statement without the estimate (no read of reltuples), whose plan, custom and
// generic, still reads both trigram indexes and scans no table; a common word, a word in every
// title and a word whose lookup reached its bound go to Keyword at once with the kept hints (no
// one statement), which neither estimates, looks the titles up, nor looks the blocks up again
// where the hints say so. Every search answers as Keyword alone does, on both engines, and so
// does a search whose kept plan a write has made stale: a word kept as rare that then fills 6,000
// entries of the newest pages is looked up without the estimate, found dense and walked.
func TestSearchPlans_KeptPlan(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedFirstPages(t, s, ws.ID)
		plans := search.NewPlans()
		// find runs the first page of word with the kept plans as Search does, and returns
		// the statements it ran; its answer must be Keyword's alone.
		find := func(name, word string) []string {
			t.Helper()
			q := search.Query{Workspace: ws.ID, Terms: []string{word}, Limit: 10}
			alone, aloneResume, err := s.SearchTraceForTest(ctx, q, func(string, []any) {})
			if err != nil {
				t.Fatal(err)
			}
			q.Plans = plans
			var queries []string
			res, resume, err := s.SearchAtOnceTraceForTest(ctx, q, func(query string, args []any) { queries = append(queries, query) })
			if err != nil {
				t.Fatal(err)
			}
			if got := resultIDs(res); !slices.Equal(got, resultIDs(alone)) || !reflect.DeepEqual(resume, aloneResume) {
				t.Errorf("%s: search = %v (resume %v), Keyword alone %v (resume %v)", name, got, resume, resultIDs(alone), aloneResume)
			}
			return queries
		}
		holds := func(queries []string, part string) bool {
			return slices.ContainsFunc(queries, func(q string) bool { return strings.Contains(q, part) })
		}
		for _, tc := range []struct {
			name, word string
			atOnce     bool     // searched again, the one statement answers alone, without the estimate
			notAgain   []string // what no statement holds when searched again
		}{
			{"rare word", "pudefa", true, []string{"reltuples"}},
			{"in nothing", "zuqoxe", true, []string{"reltuples"}},
			{"common word", "fimeko", false, []string{"reltuples", "tl AS MATERIALIZED"}},
			{"in every title", "page", false, []string{"tl AS MATERIALIZED", titlesLookup}},
			{"dense, estimated rare", "vokemu", false, []string{"tl AS MATERIALIZED", blocksLookup}},
		} {
			first := find(tc.name, tc.word)
			again := find(tc.name+", again", tc.word)
			if s.Engine() != store.Postgres {
				continue
			}
			if len(first) == 0 || !strings.Contains(first[0], "reltuples") || !strings.Contains(first[0], "tl AS MATERIALIZED") {
				t.Fatalf("%s: the first search does not begin with the one statement and its estimate:\n%s", tc.name, strings.Join(first, "\n---\n"))
			}
			for _, part := range tc.notAgain {
				if holds(again, part) {
					t.Errorf("%s: searched again, a statement holds %q:\n%s", tc.name, part, strings.Join(again, "\n---\n"))
				}
			}
			if !tc.atOnce {
				continue
			}
			if len(again) != 1 || !strings.Contains(again[0], keptRare) {
				t.Fatalf("%s: searched again, %d statements, want the one statement without the estimate:\n%s", tc.name, len(again), strings.Join(again, "\n---\n"))
			}
		}
		if s.Engine() == store.Postgres {
			// The statement without the estimate keeps the one statement's plan, custom and generic.
			var query string
			var args []any
			q := search.Query{Workspace: ws.ID, Terms: []string{"pudefa"}, Limit: 10, Plans: plans}
			if _, _, err := s.SearchAtOnceTraceForTest(ctx, q, func(qq string, a []any) { query, args = qq, a }); err != nil {
				t.Fatal(err)
			}
			for _, generic := range []bool{false, true} {
				plan, err := s.PlanForTest(ctx, generic, query, args...)
				if err != nil {
					t.Fatal(err)
				}
				for _, index := range []string{"nodes_title_trgm", "search_docs_lower", "nodes_recent"} {
					if !strings.Contains(plan, `"Index Name": "`+index+`"`) {
						t.Errorf("kept rare, generic %t: the plan lacks %s:\n%s", generic, index, plan)
					}
				}
				if strings.Contains(plan, `"Node Type": "Seq Scan"`) {
					t.Errorf("kept rare, generic %t: the plan scans a table:\n%s", generic, plan)
				}
			}
			looked := false
			for _, n := range pgPlanNodes(t, s, "ANALYZE, FORMAT JSON", query, args) {
				looked = looked || n.Index == "search_docs_lower" && n.Loops > 0
			}
			if !looked {
				t.Errorf("kept rare: the blocks' lookup did not run")
			}
		}

		// A stale plan: kovila, in 20 entries, is kept as rare; then it fills 6,000 entries of
		// the newest pages. The search trusts the kept plan (no estimate), finds the lookup at its
		// bound and walks: the answer is Keyword's alone, which estimates it common and probes.
		find("rare before the write", "kovila")
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 6000)
				INSERT INTO search_docs (ref, node_id, field, text)
				SELECT 'k' || CAST(i AS TEXT), 'p' || CAST(599 - i / 50 AS TEXT), 'body', 'kovila ' || CAST(i AS TEXT) FROM seq`)
		})
		if _, err := s.IndexSearch(ctx); err != nil {
			t.Fatal(err)
		}
		stale := find("stale: kept rare, now common", "kovila")
		then := find("stale, then kept dense", "kovila")
		if s.Engine() != store.Postgres {
			return
		}
		if len(stale) < 2 || !strings.Contains(stale[0], keptRare) || holds(stale, "reltuples") {
			t.Errorf("stale: want the one statement without the estimate, then Keyword's:\n%s", strings.Join(stale, "\n---\n"))
		}
		if holds(then, "tl AS MATERIALIZED") || holds(then, blocksLookup) {
			t.Errorf("stale, then: want Keyword at once, the blocks not looked up again:\n%s", strings.Join(then, "\n---\n"))
		}
	})
}
