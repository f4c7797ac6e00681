package store_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestQueryRecords_RawWalkAsDatabaseSQL: on PostgreSQL a query's walk reads its rows below
// database/sql (pgRowsDB), and every page it answers, the records, their numbers and the
// position the next page starts from, is the one the walk read through database/sql answers:
// numbers with fractions, negative and missing, icons set and not, records in trash, walked by
// the sort property's index and by a pair, both directions, page by page. On SQLite both are
// the same path.
func TestQueryRecords_RawWalkAsDatabaseSQL(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		db := quire.NewID()
		var recs []*quire.Node
		var rows []store.RecordRows
		for i := range 40 {
			n := newNode(w.ID, "")
			n.ParentType, n.ParentID, n.CreatedMs = quire.ParentDatabase, db, int64(i)
			n.InTrash = i%11 == 3
			if i%4 == 1 {
				n.Icon = []byte(`{"type":"emoji","emoji":"🌱"}`)
			}
			recs = append(recs, n)
			num, opt := float64(i%9)*0.1-0.35, i%3
			rv := []store.RecordValue{{PropertyID: "sel", Text: ptr(fmt.Sprintf("o%d", opt)), Num: ptr(float64(opt))}}
			if i%6 != 0 { // some records without a number: they come last
				rv = append(rv, store.RecordValue{PropertyID: "num", Num: &num})
			}
			rows = append(rows, store.RecordRows{RecordID: n.ID, Rows: rv})
		}
		index(t, s, db, "sel", "num")
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNodes(ctx, recs); err != nil {
				return err
			}
			return tx.InsertRows(ctx, db, rows)
		})
		compare := func(step, filter, sorts string, size int) {
			t.Helper()
			f, ss, err := dbquery.Decode(pairSchema, []byte(filter), []byte(sorts))
			if err != nil {
				t.Fatal(err)
			}
			q := dbquery.Query{DatabaseID: db, Filter: f, Sorts: ss}
			for pages := 0; ; pages++ {
				raw, err := s.QueryRecords(ctx, w.ID, q, size, true)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				viaSQL, err := s.QueryRecordsSQLForTest(ctx, w.ID, q, size, true)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if diff := cmp.Diff(viaSQL, raw); diff != "" {
					t.Fatalf("%s, page %d of %d (-database/sql +raw):\n%s", step, pages+1, size, diff)
				}
				if raw.Next == nil {
					if pages == 0 && size < 10 {
						t.Fatalf("%s: one page of %d", step, size)
					}
					break
				}
				q.After = raw.Next
			}
		}
		for _, step := range []string{"by the sort property's index", "by the pair"} {
			for _, size := range []int{1, 4, 100} {
				compare(step, `{"property":"Sel","select":{"equals":"opt1"}}`, `[{"property":"Num","direction":"descending"}]`, size)
				compare(step, `{"property":"Sel","select":{"equals":"opt2"}}`, `[{"property":"Num","direction":"ascending"}]`, size)
				compare(step, `{"property":"Num","number":{"greater_than":-0.2}}`, `[{"property":"Num","direction":"ascending"}]`, size)
			}
			if err := s.RegisterPair(ctx, db, "sel", "num", false); err != nil {
				t.Fatal(err)
			}
		}
		if s.Engine() == store.Postgres && s.RawQueryTextsForTest() == 0 {
			t.Error("no walk was read through the raw reads on PostgreSQL")
		}
	})
}
