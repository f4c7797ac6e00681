package store_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// TestPairTriggerPlans: on SQLite, every statement of the record pairs' triggers (migration
// 00019) reads record_values by the record id and record_pairs by its key, never a property's
// whole range of an index: they run for each row a write stores, and a range is 100,000
// entries on a database of that size.
func TestPairTriggerPlans(t *testing.T) {
	s := testdb.SQLite(t)
	bodies, err := s.RowsForTest(ctx, `SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'record_pairs_%'`)
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 3 {
		t.Fatalf("%d triggers of record_pairs, want 3", len(bodies))
	}
	// new.ord and old.ord are numbers; every other column of the row is a text.
	row := regexp.MustCompile(`\b(new|old)\.(\w+)`)
	for _, body := range bodies {
		inner := body[strings.Index(body, " BEGIN")+len(" BEGIN") : strings.LastIndex(body, "END")]
		for _, stmt := range strings.Split(inner, ";") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			stmt = row.ReplaceAllStringFunc(stmt, func(m string) string {
				if strings.HasSuffix(m, ".ord") {
					return "0"
				}
				return "'x'"
			})
			plan, err := s.RowsForTest(ctx, "EXPLAIN QUERY PLAN "+stmt)
			if err != nil {
				t.Fatalf("%v\n%s", err, stmt)
			}
			checkTriggerPlan(t, stmt, plan)
		}
	}
}

// checkTriggerPlan fails on a scan, a read of record_values not by record id, or of
// record_pairs not by its key.
func checkTriggerPlan(t *testing.T, stmt string, plan []string) {
	t.Helper()
	for _, line := range plan {
		switch {
		case strings.Contains(line, "SCAN "):
			t.Errorf("a scan:\n%s\n%s", strings.Join(plan, "\n"), stmt)
		case strings.Contains(line, " record_values_") && !strings.Contains(line, "record_id=?"),
			strings.Contains(line, "SEARCH record_pairs") && !strings.Contains(line, "pair_id=? AND record_id=?"):
			t.Errorf("a range of an index:\n%s\n%s", strings.Join(plan, "\n"), stmt)
		}
	}
}
