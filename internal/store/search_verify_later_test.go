package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// seedPieceWord writes 600 pages of 20 entries each, every entry holding "kido" (so the
// trigram "ido" is in all 12,000 of them, about 40 times as many as the rarest of "zqxido"'s):
// "zqxido" in the first entry of the even pages 10–588, and "zqxidu" (the word's rare pieces,
// not the word) in the first entry of the odd pages below 10 and from 590, the first pages
// each order of the results meets. Page i was created and edited at i.
func seedPieceWord(t *testing.T, s *store.Store, ws string) {
	t.Helper()
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 600)
			INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, position, title, title_plain, properties,
				description, created_ms, created_by, edited_ms, edited_by)
			SELECT 'p' || CAST(i AS TEXT), $1, 'page', 'page', 'workspace', 'a0', '[]', 'Page ' || CAST(i AS TEXT), '{}', '[]',
				i, 'u', i, 'u' FROM seq`, ws); err != nil {
			return err
		}
		return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < 12000)
			INSERT INTO search_docs (ref, node_id, field, text)
			SELECT 'e' || CAST(i AS TEXT), 'p' || CAST(i / 20 AS TEXT), 'body', 'filler kido ' || CAST(i * 7 AS TEXT) ||
				CASE WHEN i % 20 = 0 AND (i / 20) % 2 = 0 AND i / 20 BETWEEN 10 AND 588 THEN ' zqxido'
					WHEN i % 20 = 0 AND (i / 20) % 2 = 1 AND (i / 20 < 10 OR i / 20 >= 590) THEN ' zqxidu'
					ELSE '' END
			FROM seq`)
	})
	if _, err := s.IndexSearch(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Engine() == store.Postgres {
		mustTx(t, s, func(tx *store.Tx) error { return tx.ExecForTest(ctx, `ANALYZE nodes, search_docs`) })
	}
}

// TestSearchVerifyLaterPlans (issue 15): a word looked up by its rare pieces ("zqxid", its
// last trigram being in every entry) reads FTS5's rowids alone, never joined to search_docs,
// and tests by substring only the candidates of the pages it answers: the ten of the first
// page of results and the decoys the walk meets before them, far fewer than the 295 entries
// that hold the word, each read by the primary key. The decoys ("zqxidu", on the first pages
// in either order) are never answered. PostgreSQL answers the same.
func TestSearchVerifyLaterPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedPieceWord(t, s, ws.ID)
		for _, tc := range []struct {
			name  string
			order search.Order
			asc   bool
			first int // the first page answered; then every other one
			step  int
		}{
			{"relevance", search.ByRelevance, false, 588, -2},
			{"created ascending", search.ByCreated, true, 10, 2},
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := search.Query{Workspace: ws.ID, Terms: []string{"zqxido"}, Limit: 10, Order: tc.order, Ascending: tc.asc,
					Tuning: search.Tuning{Probe: -1}}
				for round := range 2 { // the second with the candidates' nodes kept
					var plans []string
					verified, joined := 0, false
					res, _, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
						if strings.Contains(query, "JOIN search_docs") {
							joined = true
						}
						if strings.Contains(query, "SELECT DISTINCT d.node_id FROM search_docs d") {
							var rids []int64
							if err := json.Unmarshal([]byte(args[0].(string)), &rids); err != nil {
								t.Fatal(err)
							}
							verified += len(rids)
							plans = append(plans, explainPlan(t, s, query, args))
						}
					})
					if err != nil {
						t.Fatal(err)
					}
					var got, want []string
					for _, r := range res {
						got = append(got, r.Node.ID)
					}
					for i := range 10 {
						want = append(want, fmt.Sprintf("p%d", tc.first+i*tc.step))
					}
					if !slices.Equal(got, want) {
						t.Fatalf("round %d: %v, want %v", round, got, want)
					}
					if s.Engine() != store.SQLite {
						return
					}
					if joined {
						t.Errorf("round %d: the lookup joined FTS5 to search_docs", round)
					}
					if verified == 0 || verified > 30 {
						t.Errorf("round %d: %d candidate entries tested, want the first pages' (10 and 5 decoys)", round, verified)
					}
					plan := strings.Join(plans, "\n")
					if !strings.Contains(plan, "SEARCH d USING INTEGER PRIMARY KEY (rowid=?)") || strings.Contains(plan, "SCAN d") {
						t.Errorf("round %d: the candidates are not read by rid:\n%s", round, plan)
					}
				}
			})
		}
	})
}
