package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestDeferToCommit_RunsLastAndAtomically (PostgreSQL): a statement deferred to the commit runs
// after every other statement of its transaction, on a snapshot of its own, whether the commit
// is the events' pipeline or a plain one; when it fails, nothing of the write is kept and the
// pool's connections serve the next write, none left inside a transaction.
func TestDeferToCommit_RunsLastAndAtomically(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if s.Engine() != store.Postgres {
			t.Skip("SQLite defers no statement")
		}
		ws, _ := seed(t, s)
		count := func(q string, args ...any) string {
			t.Helper()
			rows, err := s.RowsForTest(ctx, q, args...)
			if err != nil || len(rows) != 1 {
				t.Fatalf("%s: %v, %v", q, rows, err)
			}
			return rows[0]
		}
		for _, pipeline := range []bool{false, true} {
			name := fmt.Sprintf("pipeline=%v", pipeline)
			mustTx(t, s, func(tx *store.Tx) error {
				// Deferred first, it counts rows the statements after it write.
				tx.DeferForTest(`INSERT INTO event_heads (workspace_id, seq, swept_seq)
					SELECT $1, COUNT(*), 0 FROM event_heads WHERE workspace_id LIKE $2`, "deferred "+name, "later "+name+"%")
				for i := range 2 {
					if err := tx.ExecForTest(ctx, `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, 0, 0)`,
						fmt.Sprintf("later %s %d", name, i)); err != nil {
						return err
					}
				}
				if pipeline {
					tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				}
				return nil
			})
			if got := count(`SELECT seq FROM event_heads WHERE workspace_id = $1`, "deferred "+name); got != "2" {
				t.Errorf("%s: the deferred statement counted %s rows; want 2 (it runs after the writes that follow it)", name, got)
			}
			for range 3 { // more than once: a connection left in a failed state would fail the next
				err := s.InTx(ctx, func(tx *store.Tx) error {
					if err := tx.ExecForTest(ctx, `INSERT INTO event_heads (workspace_id, seq, swept_seq) VALUES ($1, 0, 0)`,
						"failed "+name); err != nil {
						return err
					}
					tx.DeferForTest(`SELECT 1 / (COUNT(*) - COUNT(*)) FROM event_heads WHERE workspace_id = $1`, "failed "+name)
					if pipeline {
						tx.Record(event(ws.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
					}
					return nil
				})
				if err == nil {
					t.Fatalf("%s: a write whose deferred statement fails: no error", name)
				}
			}
			if got := count(`SELECT COUNT(*) FROM event_heads WHERE workspace_id = $1`, "failed "+name); got != "0" {
				t.Errorf("%s: %s rows of the failed writes kept; want none", name, got)
			}
		}
		if got := count(`SELECT COUNT(*) FROM events WHERE workspace_id = $1`, ws.ID); got != "1" {
			t.Errorf("events = %s; want the one of the committed write (none of the failed ones)", got)
		}
		rows, err := s.RowsForTest(ctx, `SELECT state FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'`)
		if err != nil || len(rows) != 0 {
			t.Fatalf("connections inside a transaction after the writes: %v, %v", rows, err)
		}
	})
}

// TestDeferToCommit_AppendsSettleAndQuiet: the statements an append defers to its commit on
// PostgreSQL do their work there, with the events' pipeline and without it: a parent block's
// has_children follows the children added and trashed (settleChildrenAtCommit), readable as soon
// as the write returns, and an append at the end of a page past the indexer's window takes back
// its queueing of the page (EndAppend), while an append to a page under the window keeps it.
func TestDeferToCommit_AppendsSettleAndQuiet(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		para := func(page *quire.Node, parent, pos, text string) *quire.Block {
			return &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: parent, Position: pos,
				Type: "paragraph", Content: []byte(`{"rich_text":[{"plain_text":"` + text + `"}]}`),
				Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
		}
		newPage := func(n int) *quire.Node {
			page := newNode(w.ID, "")
			keys, _ := order.NBetween("", "", n)
			var bs []*quire.Block
			for i := range n {
				bs = append(bs, para(page, page.ID, keys[i], "word"))
			}
			mustTx(t, s, func(tx *store.Tx) error {
				if err := tx.InsertNode(ctx, page); err != nil {
					return err
				}
				return tx.InsertBlocks(ctx, bs)
			})
			return page
		}
		page := newPage(1)
		parent, err := s.Children(ctx, page.ID, nil, 10)
		if err != nil || len(parent) != 1 {
			t.Fatalf("children = %v, %v", parent, err)
		}
		hasChildren := func() bool {
			t.Helper()
			b, err := s.Block(ctx, w.ID, parent[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			return b.HasChildren
		}
		for _, pipeline := range []bool{false, true} {
			child := para(page, parent[0].ID, order.First, "child")
			mustTx(t, s, func(tx *store.Tx) error {
				if pipeline {
					tx.Record(event(w.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				}
				return tx.InsertBlocks(ctx, []*quire.Block{child})
			})
			if !hasChildren() {
				t.Fatalf("pipeline=%v: has_children false after a child was added", pipeline)
			}
			mustTx(t, s, func(tx *store.Tx) error {
				if pipeline {
					tx.Record(event(w.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
				}
				b, err := tx.Block(ctx, w.ID, child.ID)
				if err != nil {
					return err
				}
				b.InTrash = true
				return tx.UpdateBlock(ctx, b)
			})
			if hasChildren() {
				t.Fatalf("pipeline=%v: has_children true after its only child was trashed", pipeline)
			}
		}
		full, short := newPage(200), newPage(3)
		for _, pipeline := range []bool{false, true} {
			for _, tc := range []struct {
				page *quire.Node
				want []string
			}{{full, nil}, {short, []string{short.ID}}} {
				drainQueue(t, s)
				mustTx(t, s, func(tx *store.Tx) error {
					q, err := tx.BeginAppend(ctx, tc.page.ID, 200)
					if err != nil {
						return err
					}
					last, err := tx.LastChildPosition(ctx, tc.page.ID)
					if err != nil {
						return err
					}
					key, _ := order.NBetween(last, "", 1)
					if err := tx.InsertBlocks(ctx, []*quire.Block{para(tc.page, tc.page.ID, key[0], "more")}); err != nil {
						return err
					}
					if _, err := tx.TouchPage(ctx, w.ID, tc.page.ID, 2, "u"); err != nil {
						return err
					}
					if pipeline {
						tx.Record(event(w.ID, quire.EventPageCreated, quire.NewID(), quire.EventData{}))
					}
					return tx.EndAppend(ctx, q)
				})
				if got := pendingNodes(t, s); !slices.Equal(got, tc.want) {
					t.Errorf("pipeline=%v, append to a page of %d blocks: queued %q; want %q", pipeline,
						map[bool]int{true: 200, false: 3}[tc.page == full], got, tc.want)
				}
			}
		}
	})
}
