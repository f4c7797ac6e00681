package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// has_children is stored (migration 00025) instead of probed per block on every read. A write
// that adds, removes, trashes or restores a block notes the block's parent (noteChildren); the
// transaction then sets each noted parent's flag from the children index (settleChildren),
// before it commits and before it reads a block or a list of them, so that no read ever sees
// the flag out of step with the tree. A write that changes no parent's children (an edit of a
// block's content, a rename) notes nothing and settles nothing.
//
// On PostgreSQL (READ COMMITTED) the settling is right, and takes no lock another writer waits
// for, because of one rule the service keeps: a write that changes the children of a parent
// holds that parent's guard from before it settles until it commits. The guard of a page or
// database is its node's row; of a block, its page's node row. Appends, edits and trash of
// blocks, Markdown, imports and new child pages lock it by touching the page (TouchNode); a
// move locks the page it goes to the same way; trash, restore and move of a node under a page
// lock that page's row before the node's (service.writeNode). So:
//
//   - The settling statement starts after the guard is held, on a fresh snapshot: every other
//     writer of the parent's children that settled before has committed and is seen; every one
//     that has not yet settled waits for the guard and settles after this one commits, seeing
//     it. The last to commit computes the flag on all of them. (Two writers trashing a parent's
//     last two children would each leave the flag true, and a page created under a parent
//     while its other child is trashed could leave it false, without a common lock: session 6
//     first took the parents' block rows with FOR UPDATE at commit for that.)
//   - The row it writes, the parent's block (a page's child_page block, or the block itself),
//     is written only by holders of the same guard: a node's own writes (its title, its trash
//     state, a move) hold its row, a block's its page's. Holding the guard, the settling never
//     waits for that row, so it adds no edge to any lock cycle. The FOR UPDATE at commit did:
//     trashing a page P holds P's child_page block and then locks the rows of P's descendants
//     to refresh their trashed_under, while renaming P's child x held x's row and settled P at
//     commit, waiting for P's block: deadlock detected (docs/performance.md, "The deadlock,
//     and the fix").
//
// SQLite has one writer at a time and needs none of this.

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
	return tx.settle(ctx, false)
}

// settleChildrenAtCommit is settleChildren at the end of a transaction, after which nothing is
// read: on PostgreSQL its statements are sent with the COMMIT (deferToCommit), a round trip less
// for every write that adds or removes a block. They still run after the parents' guards are
// held, on a snapshot of their own, which is all the settling needs.
func (tx *Tx) settleChildrenAtCommit(ctx context.Context) error {
	return tx.settle(ctx, tx.engine == Postgres)
}

// settle runs, or defers to the commit, the statements of settleChildren.
func (tx *Tx) settle(ctx context.Context, atCommit bool) error {
	if len(tx.kids) == 0 {
		return nil
	}
	ids := make([]string, 0, len(tx.kids))
	for id := range tx.kids {
		ids = append(ids, id)
	}
	clear(tx.kids)
	slices.Sort(ids) // one order of the rows written, whatever the map's
	for start := 0; start < len(ids); start += settleBatch {
		batch := ids[start:min(start+settleBatch, len(ids))]
		query := `UPDATE blocks SET has_children = NOT has_children
			WHERE id IN ` + tx.list(len(batch)) + ` AND has_children <> ` + childExists
		if atCommit {
			tx.deferToCommit(query, anys(batch)...)
			continue
		}
		if _, err := tx.tx.ExecContext(ctx, query, anys(batch)...); err != nil {
			return err
		}
	}
	return nil
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
