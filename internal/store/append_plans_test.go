package store_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// checkIndexRange fails unless PostgreSQL's plan reads through index and scans no table whole.
// A bitmap scan of the index is allowed here (checkPostgresPlan forbids it on blocks): the
// generic plan guesses a third of a parent's children after a position and prefers it, which
// still reads one parent's rows only.
func checkIndexRange(t *testing.T, name, plan, index string) {
	t.Helper()
	var doc []struct{ Plan pgPlan }
	if err := json.Unmarshal([]byte(plan), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("%s: %v\n%s", name, err, plan)
	}
	used := false
	var walk func(p pgPlan)
	walk = func(p pgPlan) {
		if p.NodeType == "Seq Scan" {
			t.Errorf("%s: Seq Scan on %s:\n%s", name, p.RelationName, plan)
		}
		used = used || p.IndexName == index
		for _, c := range p.Plans {
			walk(c)
		}
	}
	walk(doc[0].Plan)
	if !used {
		t.Errorf("%s: plan does not use %s:\n%s", name, index, plan)
	}
}

// TestAppendPlans pins the plans of the statements an append makes under its page's lock (the
// part appenders to one page queue for): counting and listing the children after a position
// walk a range of the children index, on pages of 1,000 blocks, never the table.
func TestAppendPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		seedPlanShapes(t, s)
		for _, tc := range []struct {
			name  string
			query string
			args  []any
		}{
			{"count after", store.ChildrenAfterCountForTest, []any{"n3", "p103900"}},
			{"last keys after", store.ChildrenAfterKeysForTest, []any{"n3", "p103000", 101}},
		} {
			for _, generic := range []bool{false, true} {
				if generic && s.Engine() == store.SQLite {
					continue
				}
				plan, err := s.PlanForTest(ctx, generic, tc.query, tc.args...)
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				if s.Engine() == store.SQLite {
					checkSQLitePlan(t, tc.name, plan, []string{"USING COVERING INDEX blocks_children (parent_id=? AND position>?)"})
				} else {
					checkIndexRange(t, fmt.Sprintf("%s (generic %v)", tc.name, generic), plan, "blocks_children")
				}
			}
		}
	})
}
