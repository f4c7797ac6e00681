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
// new rows, the embedding log's, a key-share lock on the parent through the foreign key), so
// every writer of a page's blocks still takes the page's row first among the rows it shares
// with others, and the outbox's head last: one order, no deadlock.
//
// The positions are read before the lock, so a writer that committed meanwhile may have placed
// blocks at or after them; once the lock is held nothing more can land there, and the new
// blocks move after whatever did (an UPDATE of their position, which the search index ignores).
// SQLite's writer is one transaction at a time from BEGIN, so there the check finds nothing.
func (s *Service) insertAtEnd(ctx context.Context, tx *store.Tx, p *quire.Principal, c *container, bs []*blocks.Block, now int64) ([]*quire.Block, error) {
	lo, err := tx.LastChildPosition(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	keys, err := order.NBetween(lo, "", len(bs))
	if err != nil {
		return nil, err
	}
	top, err := s.insertTreeAt(ctx, tx, p, c.Page, c.ID, bs, keys, now)
	if err != nil {
		return nil, err
	}
	if err := tx.TouchNode(ctx, c.Page.ID, now, p.Token.OwnerID); err != nil {
		return nil, err
	}
	if err := s.checkWritable(ctx, tx, c); err != nil {
		return nil, err
	}
	n, err := tx.CountChildrenAfter(ctx, c.ID, lo)
	if err != nil || n == len(top) {
		return top, err
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
