package store_test

import (
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestNextRecordNumberPlan: the next record number is read from the end of record_values_num,
// on both engines, with PostgreSQL's custom and generic plans, before the table has statistics
// (a database seeded from empty runs this once per batch, under the database's lock, before
// autovacuum first analyses record_values). MAX() was planned there as an aggregate over every
// row of the property, read on record_values_text: 20,000 rows per batch at 20,000 records.
func TestNextRecordNumberPlan(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		db := "db"
		mustTx(t, s, func(tx *store.Tx) error {
			// A number and a text row per record, none analysed.
			return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 3000)
				INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num)
				SELECT $1, 'r' || i, '`+store.NumberProperty+`', 0, NULL, i FROM seq
				UNION ALL SELECT $1, 'r' || i, 'sel', 0, 'opt' || (i % 20), NULL FROM seq`, db)
		})
		var next int64
		mustTx(t, s, func(tx *store.Tx) (err error) { next, err = tx.NextRecordNumber(ctx, db); return err })
		if next != 3001 {
			t.Errorf("NextRecordNumber = %d, want 3001", next)
		}
		mustTx(t, s, func(tx *store.Tx) (err error) { next, err = tx.NextRecordNumber(ctx, "empty"); return err })
		if next != 1 {
			t.Errorf("NextRecordNumber of a database without records = %d, want 1", next)
		}
		for _, generic := range []bool{false, true} {
			plan, err := s.PlanForTest(ctx, generic, store.MaxNumberQueryForTest, db, store.NumberProperty)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"record_values_num"}
			if s.Engine() == store.Postgres {
				want = append(want, `"Index Only Scan"`, `"Scan Direction": "Backward"`)
			}
			for _, w := range want {
				if !strings.Contains(plan, w) || strings.Contains(plan, "record_values_text") || strings.Contains(plan, "Aggregate") {
					t.Errorf("generic %v: plan lacks %s or reads more:\n%s", generic, w, plan)
				}
			}
			if s.Engine() == store.SQLite && (strings.Contains(plan, "SCAN record_values") || strings.Contains(plan, "TEMP B-TREE")) {
				t.Errorf("plan scans or sorts:\n%s", plan)
			}
		}
	})
}
