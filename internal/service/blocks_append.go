package service

import (
	"context"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// atEnd tells whether pl places new blocks after every child (the default).
func (pl Placement) atEnd() bool { return !pl.Start && pl.After == "" && pl.Before == "" }

// insertAtEnd stores bs after the last child of container c, taking the page's lock only once
// they are written (docs/performance.md, "Append, second pass"). The blocks' INSERT and their
// search entries are most of an append's time; appenders to one page used to wait for the
// page's row before it, so on PostgreSQL they ran one whole transaction at a time. Now they
// write their blocks side by side and queue only for the short rest: the page's row, the trash
// check, the positions. Before the lock an append holds no row another writer asks for (its own
// new rows, the embedding log's; since 00030 no key-share lock of the workspace either), so
// every writer of a page's blocks still takes the page's row first among the rows it shares
// with others, and the outbox's head last: one order, no deadlock.
//
// The positions are read before the lock, so a writer that committed meanwhile may have placed
// blocks at or after them; once the lock is held nothing more can land there, and the new
// blocks move after whatever did (an UPDATE of their position, which the search index ignores).
// SQLite's writer is one transaction at a time from BEGIN, so there the check finds nothing.
//
// An append at the end of a page whose first embedMaxEntries entries (all the semantic indexer
// reads of it) come before the new blocks takes back its queueing of the page for the indexer
// (store.QuietAppend). An append into a block may land within them, and always queues.
func (s *Service) insertAtEnd(ctx context.Context, tx *store.Tx, p *quire.Principal, c *container, bs []*blocks.Block, now int64) ([]*quire.Block, error) {
	lo, err := tx.LastChildPosition(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	keys, err := order.NBetween(lo, "", len(bs))
	if err != nil {
		return nil, err
	}
	var quiet store.QuietAppend
	if c.Block == nil {
		if quiet, err = tx.BeginAppend(ctx, c.Page.ID, embedMaxEntries); err != nil {
			return nil, err
		}
	}
	top, rows, err := buildTree(p, c.Page, c.ID, bs, keys, now)
	if err != nil {
		return nil, err
	}
	n, err := s.insertLockWritable(ctx, tx, p, c, rows, now, lo)
	if err != nil {
		return nil, err
	}
	if c.Block == nil {
		if err := tx.EndAppend(ctx, quiet); err != nil {
			return nil, err
		}
	}
	if n == len(top) {
		return top, nil
	}
	ids := blockIDs(top)
	last, err := tx.LastOtherChildPosition(ctx, c.ID, lo, ids)
	if err != nil {
		return nil, err
	}
	if keys, err = order.NBetween(last, "", len(top)); err != nil {
		return nil, err
	}
	for i, b := range top {
		b.Position = keys[i]
	}
	return top, tx.PlaceBlocks(ctx, ids, keys)
}

// insertLockWritable writes the blocks' rows, then takes the page's row, as TouchNode does, and
// refuses the append when the page is in trash or under a page in trash, read from the row the
// lock returns: one statement where TouchNode and checkWritable's re-read of the page were two
// (a round trip of an append's eleven on PostgreSQL). The row is the one the lock holds, so a
// trash that committed while the append waited for it is seen, as the re-read saw it. A block
// container is still re-read. It returns how many children of the container are placed after
// lo, counted once the lock is held. On PostgreSQL the INSERT, the lock and the count go to the
// server in one round trip (store.InsertBlocksTouching), each statement after the one before.
func (s *Service) insertLockWritable(ctx context.Context, tx *store.Tx, p *quire.Principal, c *container, rows []*quire.Block, now int64, lo string) (int, error) {
	hidden, n, err := tx.InsertBlocksTouching(ctx, rows, c.Page.WorkspaceID, c.Page.ID, now, p.Token.OwnerID, c.ID, lo)
	switch {
	case err != nil:
		return 0, err
	case hidden:
		return 0, quire.Invalid("block_id", quire.ReasonArchived, "The page is in trash; restore it first.")
	case c.Block != nil:
		return n, s.checkWritable(ctx, tx, c)
	}
	return n, nil
}
