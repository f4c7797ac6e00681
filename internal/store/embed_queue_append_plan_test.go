package store_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestQuietAppendPlans pins the plans BeginAppend and EndAppend rely on: the page's entries are
// counted on a range of search_docs_node (on SQLite from the index alone), never by reading
// search_docs whole. PostgreSQL's embed_log, which
// the indexer folds into the queue at each claim, has no index on its node and may be scanned.
func TestQuietAppendPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		seedPlanShapes(t, s)
		if s.Engine() == store.SQLite {
			plan, err := s.PlanForTest(ctx, false, store.QuietAppendCountForTest, "n3")
			if err != nil {
				t.Fatal(err)
			}
			// "SCAN w" reads the statement's own counted subquery.
			for _, line := range strings.Split(plan, "\n") {
				if l := strings.TrimSpace(line); strings.HasPrefix(l, "SCAN ") && l != "SCAN w" {
					t.Errorf("quiet append count scans: %q in\n%s", l, plan)
				}
			}
			for _, w := range []string{
				"SEARCH search_docs USING COVERING INDEX search_docs_node (node_id=? AND field=?)",
			} {
				if !strings.Contains(plan, w) {
					t.Errorf("quiet append read: plan lacks %q:\n%s", w, plan)
				}
			}
			return
		}
		for _, generic := range []bool{false, true} {
			plan, err := s.PlanForTest(ctx, generic, store.QuietAppendLogForTest, "n3", 200)
			if err != nil {
				t.Fatal(err)
			}
			var doc []struct{ Plan pgPlan }
			if err := json.Unmarshal([]byte(plan), &doc); err != nil || len(doc) != 1 {
				t.Fatalf("%v\n%s", err, plan)
			}
			used := false
			var walk func(p pgPlan)
			walk = func(p pgPlan) {
				if p.RelationName == "search_docs" && p.NodeType == "Seq Scan" {
					t.Errorf("generic %v: Seq Scan on search_docs:\n%s", generic, plan)
				}
				used = used || p.IndexName == "search_docs_node"
				for _, c := range p.Plans {
					walk(c)
				}
			}
			walk(doc[0].Plan)
			if !used {
				t.Errorf("generic %v: plan does not use search_docs_node:\n%s", generic, plan)
			}
		}
	})
}
