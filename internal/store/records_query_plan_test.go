package store_test

import (
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestBeforeWalkPlans: the one statement a query runs before its walk reads the registered
// properties on record_indexed's key and the pairs on record_pair_keys' index led by the
// database, never by a scan of either table (500 databases of ten properties and four pairs),
// and on SQLite without an ephemeral table.
func TestBeforeWalkPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.Exec(ctx, `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 5000)
				INSERT INTO record_indexed (database_id, property_id, created_ms) SELECT 'db' || (i / 10), 'p' || (i % 10), 0 FROM g`); err != nil {
				return err
			}
			return tx.Exec(ctx, `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 2000)
				INSERT INTO record_pair_keys (id, database_id, filter_prop, sort_prop, by_text, created_ms)
				SELECT i, 'db' || (i / 4), 'p' || (i % 4), 'p9', i % 2 = 0, 0 FROM g`)
		})
		mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, `ANALYZE`) })
		query, args := store.BeforeWalkQueryForTest("db7", []string{"p1", "p9"}, "p9", false)
		wants := []string{"sqlite_autoindex_record_indexed_1 (database_id=?", "INDEX record_pair_keys_"}
		if s.Engine() == store.Postgres {
			wants = []string{`"Index Name": "record_indexed_pkey"`, `"Index Name": "record_pair_keys_`}
		}
		for _, generic := range []bool{false, true} {
			plan, err := s.PlanForTest(ctx, generic, query, args...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range wants {
				if !strings.Contains(plan, want) {
					t.Errorf("generic %v:\n%s\nwant %s", generic, plan, want)
				}
			}
			if strings.Contains(plan, "SCAN record_") || strings.Contains(plan, "Seq Scan") {
				t.Errorf("generic %v: a scan:\n%s", generic, plan)
			}
		}
		if s.Engine() == store.SQLite {
			// Each property a seek of its own: an IN list of two or more values is read from an
			// ephemeral index built on every execution, which the query plan does not show.
			code, err := s.RowsForTest(ctx, "EXPLAIN "+query, args...)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range code {
				if strings.Contains(op, "|OpenEphemeral|") {
					t.Errorf("an ephemeral table: %s\n%s", op, query)
				}
			}
		}
	})
}
