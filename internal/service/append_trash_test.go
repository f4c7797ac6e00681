package service_test

import (
	"errors"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestAppend_RefusedAfterConcurrentTrash: an append at the end reads the page's trash state from
// the row its lock returns (service.insertLockWritable), not from a read before it. Another writer
// holds the page's row and puts the page in trash, or marks it under a page in trash, while the
// append waits for that row; once it commits, the append is refused as archived and writes no
// block. PostgreSQL only: SQLite's one writer runs transactions one at a time from BEGIN.
func TestAppend_RefusedAfterConcurrentTrash(t *testing.T) {
	for _, column := range []string{"in_trash", "trashed_under"} {
		t.Run(column, func(t *testing.T) {
			st := testdb.Postgres(t)
			svc, p := caller(t, st)
			page := newPage(t, svc, p)
			if _, _, err := svc.AppendChildren(ctx, p, page.ID, texts("before", 2), service.Placement{}); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			err := st.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.Exec(ctx, `UPDATE nodes SET `+column+` = TRUE WHERE id = $1`, page.ID); err != nil {
					return err
				}
				go func() {
					_, _, err := svc.AppendChildren(ctx, p, page.ID, texts("late", 3), service.Placement{})
					done <- err
				}()
				return tx.Exec(ctx, lockWaiter)
			})
			if err != nil {
				t.Fatal(err)
			}
			err = <-done
			var qe *quire.Error
			if !errors.As(err, &qe) || len(qe.Details) != 1 || qe.Details[0].Path != "block_id" || qe.Details[0].Reason != quire.ReasonArchived {
				t.Fatalf("append to a page trashed while it waited: %v; want block_id archived", err)
			}
			var n int
			if err := st.InTx(ctx, func(tx *store.Tx) error {
				return tx.QueryRowForTest(ctx, `SELECT COUNT(*) FROM blocks WHERE parent_id = $1`, page.ID).Scan(&n)
			}); err != nil {
				t.Fatal(err)
			}
			if n != 2 {
				t.Fatalf("blocks under the page = %d, want the 2 written before", n)
			}
		})
	}
}
