package store_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestMigrateDateValues: migration 00021 drops the text of the date rows written before it, the
// rows of properties that a database's schema says are dates and no others (a select's option id
// keeps its text; so does a property of the same id that is no date in another database), and
// each date row keeps its number.
func TestMigrateDateValues(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		if err := s.MigrateForTest(ctx, 19); err != nil {
			t.Fatal(err)
		}
		db, other, page := newNode(ws.ID, ""), newNode(ws.ID, ""), newNode(ws.ID, "")
		for _, n := range []*quire.Node{db, other} {
			n.Object, n.PageType = quire.ObjectDatabase, quire.PageTypeDatabase
		}
		db.Properties = []byte(`[{"id":"title","name":"Name","type":"title"},{"id":"d","name":"When","type":"date"},` +
			`{"id":"s","name":"S","type":"select","options":[{"id":"o1","name":"a"}]}]`)
		other.Properties = []byte(`[{"id":"d","name":"D","type":"select","options":[{"id":"o1","name":"a"}]}]`)
		mustTx(t, s, func(tx *store.Tx) error {
			for _, n := range []*quire.Node{db, other, page} {
				if err := tx.InsertNode(ctx, n); err != nil {
					return err
				}
			}
			return tx.Exec(ctx, `INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES
				($1, 'r1', 'd', 0, '2024-05-10', 1715299200000), ($1, 'r1', 's', 0, 'o1', 0), ($1, 'r1', 'title', 0, 'x', NULL),
				($2, 'r2', 'd', 0, 'o1', 0)`, db.ID, other.ID)
		})
		if err := s.MigrateForTest(ctx, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
		got, err := s.RowsForTest(ctx, `SELECT record_id, property_id, COALESCE(v_text, '-'), CASE WHEN v_num IS NULL THEN '-' ELSE 'n' END
			FROM record_values ORDER BY record_id, property_id`)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"r1|d|-|n", "r1|s|o1|n", "r1|title|x|-", "r2|d|o1|n"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("record_values after 00021 (-want +got):\n%s", diff)
		}
	})
}
