package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// has_children is stored (migration 00023) instead of probed per block on every read. A write
// that adds, removes, trashes or restores a block notes the block's parent (noteChildren); the
// transaction then sets each noted parent's flag from the children index (settleChildren),
// before it commits and before it reads a block or a list of them, so that no read ever sees
// the flag out of step with the tree.
//
// Settling at the end rather than at each write keeps it to one statement a transaction, and
// keeps the lock order of the writers: on PostgreSQL a parent's row is locked (FOR UPDATE)
// after the rows the writer locked first, the page's row among them, never before (an append
// writes its blocks before it takes its page's lock; locking a child page's block row there
// would deadlock with a page update that holds the page and syncs that block). The lock comes in
// a statement of its own so that the flag is computed afterwards on a fresh snapshot (READ
// COMMITTED): two writers trashing a parent's last two children each see the other's child
// still there if they compute unlocked, and would both leave the flag true. Locked, the second
// computes after the first commits. SQLite has one writer at a time and needs no lock.

// settleBatch is how many parents one statement settles.
const settleBatch = 100

// childExists tells whether block b has a child out of trash: on the children index, ordered
// and limited to one row so that PostgreSQL walks the index whatever its estimate of how many
// children a parent has (an EXISTS became a sequential scan per block there).
const childExists = `((SELECT 1 FROM blocks c WHERE c.parent_id = blocks.id AND c.in_trash = FALSE
		ORDER BY c.parent_id, c.position, c.id LIMIT 1) IS NOT NULL)`

// noteChildren records that the children of each of ids (blocks, or nodes whose child_page
// block may exist) changed in this transaction.
func (tx *Tx) noteChildren(ids ...string) {
	if tx.kids == nil {
		tx.kids = make(map[string]struct{}, len(ids))
	}
	for _, id := range ids {
		tx.kids[id] = struct{}{}
	}
}

// settleChildren writes has_children of every noted parent whose flag differs from its
// children, and forgets them.
func (tx *Tx) settleChildren(ctx context.Context) error {
	if len(tx.kids) == 0 {
		return nil
	}
	ids := make([]string, 0, len(tx.kids))
	for id := range tx.kids {
		ids = append(ids, id)
	}
	clear(tx.kids)
	slices.Sort(ids) // one lock order for every writer
	for start := 0; start < len(ids); start += settleBatch {
		batch := ids[start:min(start+settleBatch, len(ids))]
		if tx.engine == Postgres {
			var err error
			if batch, err = tx.lockBlocks(ctx, batch); err != nil || len(batch) == 0 {
				return err
			}
		}
		if _, err := tx.tx.ExecContext(ctx, `UPDATE blocks SET has_children = NOT has_children
			WHERE id IN `+tx.list(len(batch))+` AND has_children <> `+childExists, anys(batch)...); err != nil {
			return err
		}
	}
	return nil
}

// lockBlocks locks the rows of those of ids that are blocks, in id order, and returns their ids.
func (tx *Tx) lockBlocks(ctx context.Context, ids []string) ([]string, error) {
	return scanIDs(tx.tx.QueryContext(ctx, `SELECT id FROM blocks WHERE id IN `+tx.list(len(ids))+` ORDER BY id FOR UPDATE`, anys(ids)...))
}

// scanIDs reads the one text column of each row.
func scanIDs(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// list is "($1, $2, … $n)".
func (tx *Tx) list(n int) string {
	var sb strings.Builder
	tx.values(&sb, 0, n)
	return sb.String()
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// insertedChildren sets HasChildren of new blocks bs: true for those with a child out of trash
// among bs, written with them. It notes the parents outside bs whose children they add to,
// settled at the end, and each child_page or child_database block too, as the node it stands
// for may have content already (a moved page's block is written anew).
func (tx *Tx) insertedChildren(bs []*quire.Block) {
	at := make(map[string]int, len(bs))
	for i, b := range bs {
		at[b.ID] = i
		b.HasChildren = false
	}
	for _, b := range bs {
		if b.Type == "child_page" || b.Type == "child_database" {
			tx.noteChildren(b.ID)
		}
		if b.InTrash {
			continue
		}
		if i, ok := at[b.ParentID]; ok {
			bs[i].HasChildren = true
		} else {
			tx.noteChildren(b.ParentID)
		}
	}
}

// ChildrenDrift lists the blocks whose stored has_children differs from their children, in id
// order: none, unless a write went around the store's methods. It reads every block, for tests
// and checks, not for requests.
func (s *Store) ChildrenDrift(ctx context.Context) ([]string, error) {
	return scanIDs(s.read.QueryContext(ctx, `SELECT id FROM blocks WHERE has_children <> `+childExists+` ORDER BY id`))
}
