package store_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// index registers properties props of database db as a query's registration does, without
// writing rows (the tests write their own).
func index(t *testing.T, s *store.Store, db string, props ...string) {
	t.Helper()
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.LockIndexing(ctx, db); err != nil {
			return err
		}
		_, err := tx.RegisterIndexed(ctx, db, props)
		return err
	})
}

// TestIndexedRows: a database keeps the rows of its registered properties and of the record
// number only, whichever writer writes them (new records, a property's rows replaced, a batch's
// changes, a unique_id's numbers); a query on a property not registered answers
// NotIndexedError naming it, and one on registered properties runs.
func TestIndexedRows(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		db := quire.NewID()
		rec := newNode(w.ID, "")
		rec.ParentType, rec.ParentID = quire.ParentDatabase, db
		row := func(prop, text string) store.RecordValue { return store.RecordValue{PropertyID: prop, Text: ptr(text)} }
		index(t, s, db, "kept")
		index(t, s, db, "kept", "uid") // registering again is a no-op
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNodes(ctx, []*quire.Node{rec}); err != nil {
				return err
			}
			err := tx.InsertRows(ctx, db, []store.RecordRows{{RecordID: rec.ID, Rows: []store.RecordValue{
				{PropertyID: store.NumberProperty, Num: ptr(7.0)}, row("kept", "a"), row("lazy", "b")}}})
			if err == nil {
				err = tx.ReplacePropertyValues(ctx, db, rec.ID, "lazy", []store.RecordValue{row("lazy", "c")})
			}
			if err == nil {
				err = tx.WriteRecordRows(ctx, db, []store.RowChange{
					{RecordProperty: store.RecordProperty{RecordID: rec.ID, PropertyID: "kept"}, Was: []store.RecordValue{row("kept", "a")}, Is: []store.RecordValue{row("kept", "d")}},
					{RecordProperty: store.RecordProperty{RecordID: rec.ID, PropertyID: "lazy"}, Was: []store.RecordValue{row("lazy", "b")}, Is: []store.RecordValue{row("lazy", "e")}},
				}, nil)
			}
			if err == nil {
				err = tx.CopyRecordNumbers(ctx, db, "uid")
			}
			if err == nil {
				err = tx.CopyRecordNumbers(ctx, db, "uid2")
			}
			return err
		})
		got, err := s.RowsForTest(ctx, `SELECT property_id, COALESCE(v_text, '-'), COALESCE(v_num, -1) FROM record_values WHERE record_id = $1`, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if diff := cmp.Diff([]string{"#n|-|7", "kept|d|-1", "uid|-|7"}, got); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}

		schema := dbquery.NewSchema([]dbquery.Property{{ID: "kept", Name: "Kept", Type: "rich_text"}, {ID: "lazy", Name: "Lazy", Type: "url"}})
		query := func(filter, sorts string) error {
			f, ss, err := dbquery.Decode(schema, []byte(filter), []byte(sorts))
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.QueryRecords(ctx, w.ID, dbquery.Query{DatabaseID: db, Filter: f, Sorts: ss}, 10, false)
			return err
		}
		if err := query(`{"property":"Kept","rich_text":{"equals":"d"}}`, `[{"timestamp":"created_time","direction":"ascending"}]`); err != nil {
			t.Errorf("a query on a registered property: %v", err)
		}
		err = query(`{"or":[{"property":"Kept","rich_text":{"equals":"d"}},{"property":"Lazy","url":{"is_empty":true}}]}`, `[{"property":"Lazy","direction":"ascending"}]`)
		var ni *store.NotIndexedError
		if !errors.As(err, &ni) || ni.DatabaseID != db || !slices.Equal(ni.Properties, []string{"lazy"}) {
			t.Errorf("a query on a property not registered: %v, want NotIndexedError for lazy", err)
		}
	})
}

// TestMigrateIndexed: migration 00026 registers, in a store written before it, every property
// that has rows and both properties of every record pair, so that the store keeps writing the
// rows its queries read; the record number is kept without being listed.
func TestMigrateIndexed(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if err := s.MigrateForTest(ctx, 25); err != nil {
			t.Fatal(err)
		}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.Exec(ctx, `INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES
				('d1', 'r1', '#n', 0, NULL, 1), ('d1', 'r1', 'a', 0, 'x', NULL), ('d1', 'r1', 'm', 0, 'o1', NULL), ('d1', 'r1', 'm', 1, 'o2', NULL),
				('d1', 'r2', 'a', 0, 'y', NULL), ('d2', 'r3', 'a', 0, NULL, 3)`); err != nil {
				return err
			}
			return tx.Exec(ctx, `INSERT INTO record_pair_keys (database_id, filter_prop, sort_prop, by_text, created_ms) VALUES ('d2', 'f', 's', FALSE, 0)`)
		})
		if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
		got, err := s.RowsForTest(ctx, `SELECT database_id, property_id FROM record_indexed ORDER BY database_id, property_id`)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"d1|a", "d1|m", "d2|a", "d2|f", "d2|s"}, got); diff != "" {
			t.Errorf("record_indexed after 00026 (-want +got):\n%s", diff)
		}
	})
}

// TestIndexedPlans: the registered properties of a database, all of them (a writer's read) or
// a query's few, are read on record_indexed's primary key, among 5,000 registrations, on both
// engines (PostgreSQL after ANALYZE, custom and generic plans).
func TestIndexedPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.Exec(ctx, `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 5000)
				INSERT INTO record_indexed (database_id, property_id, created_ms) SELECT 'db' || (i / 10), 'p' || (i % 10), 0 FROM g`)
		})
		mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, `ANALYZE`) })
		want := "sqlite_autoindex_record_indexed_1 (database_id=?"
		if s.Engine() == store.Postgres {
			want = `"Index Name": "record_indexed_pkey"`
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{store.IndexedQueryForTest, []any{"db7"}},
			{store.IndexedQueryForTest + ` AND property_id IN ($2, $3)`, []any{"db7", "p1", "p2"}},
		} {
			for _, generic := range []bool{false, true} {
				plan, err := s.PlanForTest(ctx, generic, q.sql, q.args...)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(plan, want) {
					t.Errorf("%s (generic %v):\n%s\nwant %s", q.sql, generic, plan, want)
				}
			}
		}
	})
}

// TestRecordWalkPlans: the walks over every record of a database (a registration's build, a
// schema change's reindex, an export) read the database's record ids on an index led by
// parent_id, never by a scan of nodes, then the records by id: a walk in id order had no index
// and read the whole database once per batch (quadratic in its records).
func TestRecordWalkPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, u := seed(t, s)
		mustTx(t, s, func(tx *store.Tx) error {
			// 50 databases of 100 records, and 2,000 pages under a page.
			return tx.ExecForTest(ctx, `WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i < 6999)
				INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position,
					title, properties, description, created_ms, created_by, edited_ms, edited_by)
				SELECT 'n' || i, $1, 'page', 'page', CASE WHEN i < 5000 THEN 'database_id' ELSE 'page_id' END,
					CASE WHEN i < 5000 THEN 'db' || (i / 100) ELSE 'parent' END, 'a', '[]', '{}', '[]', 1, $2, 1, $2 FROM g`, w.ID, u.ID)
		})
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		for _, generic := range []bool{false, true} {
			plan, err := s.PlanForTest(ctx, generic, store.RecordIDsQueryForTest, "db7")
			if err != nil {
				t.Fatal(err)
			}
			ok := strings.Contains(plan, "INDEX") && strings.Contains(plan, "(parent_id=?") && !strings.Contains(plan, "SCAN nodes")
			if s.Engine() == store.Postgres {
				ok = strings.Contains(plan, `"Index Cond": "(parent_id = `) && !strings.Contains(plan, "Seq Scan") // a bitmap scan has it too
			}
			if !ok {
				t.Errorf("record ids (generic %v):\n%s\nwant an index on parent_id", generic, plan)
			}
		}
	})
}
