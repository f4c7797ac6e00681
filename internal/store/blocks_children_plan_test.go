package store_test

import (
	"fmt"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSettleChildrenPlan pins the plan of the statement every block write ends with: the noted
// parent found on the primary key and its first child out of trash on the children index, on
// pages of a thousand blocks with statistics (the shape that turned an EXISTS into a sequential
// scan per block on PostgreSQL). A lost index would make every append read the table.
func TestSettleChildrenPlan(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		seedPlanShapes(t, s)
		for _, generic := range []bool{false, true} {
			if generic && s.Engine() == store.SQLite {
				continue
			}
			plan, err := s.PlanForTest(ctx, generic, store.SettleQueryForTest, "b1500")
			if err != nil {
				t.Fatal(err)
			}
			if s.Engine() == store.SQLite {
				checkSQLitePlan(t, "settle", plan, []string{"SEARCH blocks USING INDEX sqlite_autoindex_blocks_1 (id=?)",
					"SEARCH c USING INDEX blocks_children (parent_id=?)"})
			} else {
				checkPostgresPlan(t, fmt.Sprintf("settle (generic %v)", generic), plan, []string{"blocks_pkey", "blocks_children"})
			}
		}
	})
}
