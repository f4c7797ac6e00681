package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

var pairSchema = dbquery.NewSchema([]dbquery.Property{
	{ID: "sel", Name: "Sel", Type: "select", Options: []dbquery.Option{{ID: "o0", Name: "opt0"}, {ID: "o1", Name: "opt1"}, {ID: "o2", Name: "opt2"}}},
	{ID: "num", Name: "Num", Type: "number"},
	{ID: "web", Name: "Web", Type: "url"},
})

// TestQueryRecords_RegistersPair: the third query a pair would answer registers it in the
// background; its rows are those of the records already there (the backfill), the triggers
// keep them through a batch of record writes, and every query answers as it did before the
// pair, page by page.
func TestQueryRecords_RegistersPair(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		db := quire.NewID()
		var recs []*quire.Node
		var rows []store.RecordRows
		for i := range 30 {
			n := newNode(w.ID, "")
			n.ParentType, n.ParentID, n.CreatedMs = quire.ParentDatabase, db, int64(i)
			recs = append(recs, n)
			num, opt := float64(i%7), i%3
			rv := []store.RecordValue{{PropertyID: "sel", Text: ptr(fmt.Sprintf("o%d", opt)), Num: ptr(float64(opt))}}
			if i%5 != 0 { // some records without a number: they come last
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
		query := func(size int) []string {
			t.Helper()
			f, ss, err := dbquery.Decode(pairSchema, []byte(`{"property":"Sel","select":{"equals":"opt1"}}`),
				[]byte(`[{"property":"Num","direction":"descending"}]`))
			if err != nil {
				t.Fatal(err)
			}
			q := dbquery.Query{DatabaseID: db, Filter: f, Sorts: ss}
			var ids []string
			for {
				page, err := s.QueryRecords(ctx, w.ID, q, size, false)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range page.Records {
					ids = append(ids, r.ID)
				}
				if page.Next == nil {
					return ids
				}
				q.After = page.Next
			}
		}
		before := query(100)
		if len(before) != 10 {
			t.Fatalf("%d records match before the pair, want 10", len(before))
		}
		pairRows := func() []string {
			t.Helper()
			got, err := s.RowsForTest(ctx, `SELECT p.record_id, p.f_value, p.s_num FROM record_pairs p
				JOIN record_pair_keys k ON k.id = p.pair_id WHERE k.database_id = $1`, db)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			return got
		}
		// Brute force: one row per record with a select and a number.
		wantRows := func() []string {
			t.Helper()
			got, err := s.RowsForTest(ctx, `SELECT f.record_id, f.v_text, s.v_num FROM record_values f
				JOIN record_values s ON s.record_id = f.record_id AND s.property_id = 'num'
				WHERE f.database_id = $1 AND f.property_id = 'sel'`, db)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			return got
		}
		query(100) // the second: not yet
		s.WaitPairsForTest()
		if got := pairRows(); len(got) != 0 {
			t.Fatalf("a pair after two queries: %v", got)
		}
		query(100) // the third registers it
		s.WaitPairsForTest()
		if diff := cmp.Diff(wantRows(), pairRows()); diff != "" || len(wantRows()) != 24 {
			t.Fatalf("record_pairs after the backfill (-want +got):\n%s", diff)
		}
		for _, size := range []int{100, 3, 1} {
			if got := query(size); !slices.Equal(got, before) {
				t.Errorf("page_size %d with the pair: %v, want %v", size, got, before)
			}
		}
		// A batch of writes: a number changed, one cleared, a select changed, a new record.
		a, b, c := recs[1], recs[4], recs[7]
		changes := []store.RowChange{
			{RecordProperty: store.RecordProperty{RecordID: a.ID, PropertyID: "num"},
				Was: []store.RecordValue{{PropertyID: "num", Num: ptr(1.0)}}, Is: []store.RecordValue{{PropertyID: "num", Num: ptr(40.0)}}},
			{RecordProperty: store.RecordProperty{RecordID: b.ID, PropertyID: "num"},
				Was: []store.RecordValue{{PropertyID: "num", Num: ptr(4.0)}}},
			{RecordProperty: store.RecordProperty{RecordID: c.ID, PropertyID: "sel"},
				Was: []store.RecordValue{{PropertyID: "sel", Text: ptr("o1"), Num: ptr(1.0)}},
				Is:  []store.RecordValue{{PropertyID: "sel", Text: ptr("o2"), Num: ptr(2.0)}}},
		}
		d := newNode(w.ID, "")
		d.ParentType, d.ParentID = quire.ParentDatabase, db
		created := []store.RecordRows{{RecordID: d.ID, Rows: []store.RecordValue{
			{PropertyID: "num", Num: ptr(-1.0)}, {PropertyID: "sel", Text: ptr("o1"), Num: ptr(1.0)}}}}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNodes(ctx, []*quire.Node{d}); err != nil {
				return err
			}
			return tx.WriteRecordRows(ctx, db, changes, created)
		})
		if diff := cmp.Diff(wantRows(), pairRows()); diff != "" {
			t.Fatalf("record_pairs after a batch (-want +got):\n%s", diff)
		}
		got := query(2)
		// a (40) first; then the others by number descending; b (no number now) joins those
		// without one at the end; c no longer matches; d (-1) is last of those with a number.
		if len(got) != 10 || got[0] != a.ID || got[6] != d.ID || slices.Contains(got, c.ID) || !slices.Contains(got[7:], b.ID) {
			t.Errorf("after the batch: %v (a %s, b %s, c %s, d %s)", got, a.ID, b.ID, c.ID, d.ID)
		}
	})
}

// TestRegisterPair_Bound: a database gets at most four pairs; registering one twice is a no-op;
// dropping a property drops its pairs, which frees their places.
func TestRegisterPair_Bound(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		db := quire.NewID()
		index(t, s, db, "f0", "f1", "f2", "f3", "f4", "num")
		register := func(filters ...string) {
			t.Helper()
			for _, f := range filters {
				if err := s.RegisterPair(ctx, db, f, "num", false); err != nil {
					t.Fatal(err)
				}
			}
		}
		keys := func(want ...string) {
			t.Helper()
			got, err := s.RowsForTest(ctx, `SELECT filter_prop FROM record_pair_keys WHERE database_id = $1 ORDER BY filter_prop`, db)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pairs (-want +got):\n%s", diff)
			}
		}
		register("f0", "f1", "f2", "f3", "f4", "f0")
		keys("f0", "f1", "f2", "f3")
		mustTx(t, s, func(tx *store.Tx) error { return tx.DropPropertyValues(ctx, db, "f1") })
		register("f4")
		keys("f0", "f2", "f3", "f4")
		mustTx(t, s, func(tx *store.Tx) error { return tx.DropPropertyValues(ctx, db, "num") })
		keys()
	})
}

func ptr[T any](v T) *T { return &v }
