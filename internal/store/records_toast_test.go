package store_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestRecordPropertiesStoredPlain: on PostgreSQL a record whose row is between 2 and 8 KB keeps
// its properties uncompressed (migration 00032's toast_tuple_target), so a query does not
// decompress them; a row past 8 KB is compressed as before. On both engines the properties read
// back as written.
func TestRecordPropertiesStoredPlain(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		db := quire.NewID()
		record := func(size int) *quire.Node {
			n := newNode(w.ID, "")
			n.ParentType, n.ParentID = quire.ParentDatabase, db
			var b strings.Builder
			b.WriteString("{")
			for i := 0; b.Len() < size; i++ {
				// Repetitive, so pglz would compress it: only the target keeps it plain.
				fmt.Fprintf(&b, `"p%04d":{"type":"rich_text","rich_text":"the same words again and again"},`, i)
			}
			n.Properties = []byte(strings.TrimSuffix(b.String(), ",") + "}")
			return n
		}
		mid, large := record(3000), record(12000)
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNodes(ctx, []*quire.Node{mid, large}) })
		for _, want := range []*quire.Node{mid, large} {
			got, err := s.Node(ctx, w.ID, want.ID)
			if err != nil || string(got.Properties) != string(want.Properties) {
				t.Fatalf("Node(%d bytes of properties): %v; want the properties as written", len(want.Properties), err)
			}
		}
		if s.Engine() != store.Postgres {
			return
		}
		tx, err := s.ReadTxForTest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		for _, c := range []struct {
			n          *quire.Node
			compressed bool
		}{{mid, false}, {large, true}} {
			var method sql.NullString
			if err := tx.QueryRowContext(ctx, `SELECT pg_column_compression(properties) FROM nodes WHERE id = $1`, c.n.ID).Scan(&method); err != nil {
				t.Fatal(err)
			}
			if method.Valid != c.compressed {
				t.Errorf("properties of %d bytes: compression %q; want compressed = %v", len(c.n.Properties), method.String, c.compressed)
			}
		}
	})
}
