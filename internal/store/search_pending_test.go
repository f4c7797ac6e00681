package store_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// pendingBound is the most index pages a trigram lookup may read on PostgreSQL after a burst of
// writes: the pending list's 1 MB (migration 00031, 128 pages of 8 kB) and the few pages of the
// index's tree a term's trigrams are in. At PostgreSQL's default of 4 MB the test's burst leaves
// about 2.5 MB pending, which every lookup of the index read.
const pendingBound = 200

// TestSearchPending_Bounded (issue 15): right after a burst of writes, before any vacuum, a
// search answers exactly (on SQLite from the entries above the FTS5 mark, on PostgreSQL from
// the GIN indexes' pending lists), and on PostgreSQL each trigram lookup reads at most
// pendingBound pages of its index: the pending list it reads whole is kept to 1 MB.
func TestSearchPending_Bounded(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		// 1,000 pages, each with a title and one entry of 12 six-letter words (about 60
		// distinct trigrams each, as the speed scenario's paragraphs); "pudefa" in the entry of
		// every 40th page, and in the title of every 250th.
		const pages = 1000
		r := rand.New(rand.NewPCG(1, 2))
		words := func(extra string) string {
			ws := make([]string, 12)
			for i := range ws {
				b := make([]byte, 6)
				for j := range b {
					b[j] = "bdfgklmnprstvz"[r.IntN(14)]
					if j%2 == 1 {
						b[j] = "aeiou"[r.IntN(5)]
					}
				}
				ws[i] = string(b)
			}
			return strings.Join(ws, " ") + extra
		}
		mark := func(i, every int) string {
			if i%every == 0 {
				return " pudefa"
			}
			return ""
		}
		for from := 0; from < pages; from += 100 {
			na, da := []any{ws.ID}, []any{}
			var nodes, docs []string
			for i := from; i < from+100; i++ {
				id, n, d := fmt.Sprintf("p%d", i), len(na), len(da)
				na = append(na, id, words(mark(i, 250)), i)
				nodes = append(nodes, fmt.Sprintf("($%d, $1, 'page', 'page', 'workspace', 'a0', '[]', $%d, '{}', '[]', $%d, 'u', $%d, 'u')", n+1, n+2, n+3, n+3))
				da = append(da, id+"e", id, words(mark(i, 40)))
				docs = append(docs, fmt.Sprintf("($%d, $%d, 'body', $%d)", d+1, d+2, d+3))
			}
			mustTx(t, s, func(tx *store.Tx) error {
				if err := tx.ExecForTest(ctx, `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, position, title,
					title_plain, properties, description, created_ms, created_by, edited_ms, edited_by) VALUES `+strings.Join(nodes, ", "), na...); err != nil {
					return err
				}
				return tx.ExecForTest(ctx, `INSERT INTO search_docs (ref, node_id, field, text) VALUES `+strings.Join(docs, ", "), da...)
			})
		}
		var lookups []string
		q := search.Query{Workspace: ws.ID, Terms: []string{"pudefa"}, Limit: 10}
		res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
			if s.Engine() == store.Postgres {
				lookups = append(lookups, trigramPages(t, s, query, args)...)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res {
			got = append(got, r.Node.ID)
		}
		// Titles first (750, 500, 250, 0), then the other pages with the word in an entry, the
		// most recently edited first.
		want := []string{"p750", "p500", "p250", "p0", "p960", "p920", "p880", "p840", "p800", "p760"}
		if !slices.Equal(got, want) {
			t.Errorf("search after the burst = %v, want %v", got, want)
		}
		if s.Engine() != store.Postgres {
			return
		}
		seen := map[string]bool{}
		for _, l := range lookups {
			var index string
			var pages int
			if _, err := fmt.Sscanf(l, "%s %d", &index, &pages); err != nil {
				t.Fatal(err)
			}
			seen[index] = true
			if pages > pendingBound {
				t.Errorf("a lookup of %s read %d pages of it, want at most %d (its pending list unbounded?)", index, pages, pendingBound)
			}
		}
		if !seen["search_docs_lower"] || !seen["nodes_title_trgm"] {
			t.Errorf("the search's lookups read %v, want both trigram indexes", lookups)
		}
	})
}

// trigramPages runs query under EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL and returns "<index>
// <pages read>" for each bitmap scan of a trigram GIN index in its plan.
func trigramPages(t *testing.T, s *store.Store, query string, args []any) []string {
	t.Helper()
	var out []string
	for _, n := range pgPlanNodes(t, s, "ANALYZE, BUFFERS, FORMAT JSON", query, args) {
		if n.Type == "Bitmap Index Scan" && (n.Index == "search_docs_lower" || n.Index == "nodes_title_trgm") {
			out = append(out, fmt.Sprintf("%s %d", n.Index, n.Hit+n.Read))
		}
	}
	return out
}

// planNode is a node of PostgreSQL's EXPLAIN (FORMAT JSON).
type planNode struct {
	Type     string     `json:"Node Type"`
	Index    string     `json:"Index Name"`
	Relation string     `json:"Relation Name"`
	Hit      int        `json:"Shared Hit Blocks"`
	Read     int        `json:"Shared Read Blocks"`
	Loops    int        `json:"Actual Loops"` // under ANALYZE; 0: never executed
	Subplan  string     `json:"Subplan Name"` // "CTE m", "InitPlan 1 (returns $0)" …
	Plans    []planNode `json:"Plans"`
}

// pgPlanNodes is PostgreSQL's plan of query under EXPLAIN (options), its nodes in depth-first
// order. PostgreSQL plans by its statistics, and at the tests' 30,000 entries a scan of the
// table costs about what the trigram index does; with sequential scans priced out, a scan is
// left only where no index can serve the statement.
func pgPlanNodes(t *testing.T, s *store.Store, options, query string, args []any) []planNode {
	t.Helper()
	var raw string
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.ExecForTest(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		return tx.QueryRowForTest(ctx, "EXPLAIN ("+options+") "+query, args...).Scan(&raw)
	})
	var doc []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	var out []planNode
	var walk func(n planNode)
	walk = func(n planNode) {
		out = append(out, n)
		for _, c := range n.Plans {
			walk(c)
		}
	}
	for _, d := range doc {
		walk(d.Plan)
	}
	return out
}
