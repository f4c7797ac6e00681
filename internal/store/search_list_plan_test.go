package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearchPlans_LongListPlannedEachCall (issue 15): on PostgreSQL the read of the nodes of a
// long list of ids (a word on 300 pages, more than are read by id and sorted) is sent to be
// planned at every call with the list in view (pgx's cache_describe mode: an unnamed
// statement), and that plan walks the workspace's nodes in result order (nodes_recent) rather
// than reading every listed node by its key (nodes_pkey) and sorting them. As a prepared
// statement it moved to its generic plan, the latter, after five runs on a connection beside
// 100,000 other nodes: 1,934 buffers a search instead of 58. SQLite narrows such a list with a
// walk of its own (firstListed) and reads the page of results by id; both answer the same.
// PostgreSQL's content tier now looks its list up inside the statement that reads the results
// (TestSearchPlans_ContentInOneStatement); a list is still sent when the tuning counts listed
// nodes (DenseAfter, here above the word's 300 pages) or that statement returns no row.
func TestSearchPlans_LongListPlannedEachCall(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedWordPages(t, s, ws.ID)
		var lists []string // the plans of the statements given the list of ids
		q := search.Query{Workspace: ws.ID, Terms: []string{"pudefa"}, Limit: 10, Tuning: search.Tuning{Probe: -1, DenseAfter: 400}}
		res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
			if !strings.Contains(query, "ANY(CAST(") {
				return
			}
			if len(args) == 0 || args[0] != pgx.QueryExecModeCacheDescribe {
				t.Errorf("the list's read is sent as a prepared statement (first argument %v), want planned at each call", args[:min(1, len(args))])
			}
			lists = append(lists, explainPlan(t, s, query, args))
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
		if len(lists) != 1 {
			t.Fatalf("%d statements read the list of ids, want 1", len(lists))
		}
		if !strings.Contains(lists[0], "nodes_recent") || strings.Contains(lists[0], "nodes_pkey") {
			t.Errorf("the list's read does not walk nodes_recent, or reads each listed node by key:\n%s", lists[0])
		}
	})
}
