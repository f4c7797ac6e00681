package service_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// lockWaiter returns once another session of this database waits for a lock (at most 30 s):
// pg_locks is read afresh on every call, pg_stat_activity only after its snapshot is cleared.
const lockWaiter = `DO $$ BEGIN
	FOR i IN 1..3000 LOOP
		PERFORM pg_stat_clear_snapshot();
		EXIT WHEN EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE NOT l.granted AND a.datname = current_database());
		PERFORM pg_sleep(0.01);
	END LOOP;
END $$`

// TestAppend_MovesAfterConcurrentWrite: an append writes its blocks before it takes the page's
// lock, after positions read while another writer held that lock and added a block at the
// end. Once it has the lock, its blocks move after that block, in their order. PostgreSQL
// only: SQLite's one writer runs transactions one at a time from BEGIN, so the other writer
// cannot hold the page while an append starts.
func TestAppend_MovesAfterConcurrentWrite(t *testing.T) {
	st := testdb.Postgres(t)
	svc, p := caller(t, st)
	page := newPage(t, svc, p)
	if _, _, err := svc.AppendChildren(ctx, p, page.ID, texts("before", 3), service.Placement{}); err != nil {
		t.Fatal(err)
	}
	other, err := blocks.DecodeValue(paragraphs(1, "meanwhile"), "children", nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	err = st.InTx(ctx, func(tx *store.Tx) error {
		now := quire.NowMillis()
		if err := tx.TouchNode(ctx, page.ID, now, p.Token.OwnerID); err != nil {
			return err
		}
		go func() {
			_, _, err := svc.AppendChildren(ctx, p, page.ID, texts("late", 5), service.Placement{})
			done <- err
		}()
		if err := tx.Exec(ctx, lockWaiter); err != nil {
			return err
		}
		lo, err := tx.LastChildPosition(ctx, page.ID)
		if err != nil {
			return err
		}
		pos, err := order.Between(lo, "")
		if err != nil {
			return err
		}
		return tx.InsertBlocks(ctx, []*quire.Block{{ID: quire.NewID(), WorkspaceID: page.WorkspaceID, PageID: page.ID,
			ParentID: page.ID, Position: pos, Type: other[0].Type, Content: blocks.MarshalContent(other[0]), Version: 1,
			CreatedMs: now, CreatedBy: p.Token.OwnerID, EditedMs: now, EditedBy: p.Token.OwnerID}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := childTexts(t, svc, p, page.ID)
	want := []string{"before 0", "before 1", "before 2", "meanwhile", "late 0", "late 1", "late 2", "late 3", "late 4"}
	if !slices.Equal(got, want) {
		t.Fatalf("children = %q, want %q", got, want)
	}
}

// TestConcurrentPageWriters has every kind of write to one page's blocks run at once: appends at
// the end (which lock the page late), appends at the start and edits of a block (which lock it
// first). None may fail (a deadlock would fail one), every block lands once, positions stay
// unique.
func TestConcurrentPageWriters(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			svc, p := caller(t, e.open(t))
			page := newPage(t, svc, p)
			first, _, err := svc.AppendChildren(ctx, p, page.ID, texts("edited", 1), service.Placement{})
			if err != nil {
				t.Fatal(err)
			}
			const rounds = 4
			var wg sync.WaitGroup
			errs := make(chan error, 8*rounds)
			run := func(op func(r int) error) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range rounds {
						if err := op(r); err != nil {
							errs <- err
						}
					}
				}()
			}
			for w := range 4 {
				run(func(r int) error {
					_, _, err := svc.AppendChildren(ctx, p, page.ID, texts(fmt.Sprintf("end %d.%d", w, r), 10), service.Placement{})
					return err
				})
			}
			for w := range 2 {
				run(func(r int) error {
					_, _, err := svc.AppendChildren(ctx, p, page.ID, texts(fmt.Sprintf("start %d.%d", w, r), 3), service.Placement{Start: true})
					return err
				})
				run(func(r int) error {
					body := map[string]any{"paragraph": map[string]any{"rich_text": []any{
						map[string]any{"text": map[string]any{"content": fmt.Sprintf("edited by %d", w)}}}}}
					_, _, err := svc.PatchBlock(ctx, p, first[0].ID, body, "")
					return err
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if got, want := len(childTexts(t, svc, p, page.ID)), 1+4*rounds*10+2*rounds*3; got != want {
				t.Fatalf("%d children, want %d", got, want)
			}
		})
	}
}

// texts is a children array of n paragraphs reading "prefix 0", "prefix 1" ….
func texts(prefix string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = paragraphs(1, fmt.Sprintf("%s %d", prefix, i))[0]
	}
	return out
}
