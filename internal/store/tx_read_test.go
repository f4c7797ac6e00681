package store_test

import (
	"database/sql"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestStore_ReadTxOneSnapshot: the read transaction of a query or a search sees one snapshot, so
// a write committed between two of its statements is not seen by the second, and it writes
// nothing. On PostgreSQL this needs REPEATABLE READ: READ COMMITTED, its default, shows the
// second statement the write.
func TestStore_ReadTxOneSnapshot(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		rtx, err := s.ReadTxForTest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer rtx.Rollback() //nolint:errcheck // read-only
		read := func(q interface {
			QueryRow(query string, args ...any) *sql.Row
		}) string {
			t.Helper()
			var n string
			if err := q.QueryRow(`SELECT name FROM workspaces WHERE id = $1`, w.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if got := read(rtx); got != "Acme" {
			t.Fatalf("first read = %q; want Acme", got)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `UPDATE workspaces SET name = $1 WHERE id = $2`, "Renamed", w.ID)
		}); err != nil {
			t.Fatal(err)
		}
		if got := read(rtx); got != "Acme" {
			t.Errorf("second read in the same transaction = %q; want Acme, the snapshot of its first read", got)
		}
		if _, err := rtx.Exec(`UPDATE workspaces SET name = $1 WHERE id = $2`, "Written", w.ID); err == nil {
			t.Errorf("an UPDATE in the read transaction succeeded; want it refused")
		}
		_ = rtx.Rollback()
		next, err := s.ReadTxForTest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer next.Rollback() //nolint:errcheck // read-only
		if got := read(next); got != "Renamed" {
			t.Errorf("read in the next transaction = %q; want Renamed", got)
		}
	})
}
