package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"

	"github.com/quire-dev/quire/internal/quire"
)

// childrenQueue is the lane (pg_lane.go) of AuthenticateNodeChildren's first pages on
// PostgreSQL, one per listing (node and size): the reads of one listing that requests ask for
// while a round trip of it is in flight go together in the next, their joined reads in
// read.many and the listing once, in one pipeline. At c=16 on one page (the speed table's
// children row) each request paid a round trip whose two statements cost the backends 0.24 ms
// of CPU (Quire about 0.33), most of it the listing's own 51 KB read, formatted and sent, and a
// statement's fixed cost: now paid once for the requests that waited for the same listing.
//
// Listings of different nodes or sizes never wait for each other: each has its own lane, so
// their statements run on as many backends as before (in one statement over arrays, tried
// first, the listings of different pages ran one after another in one backend and the row of
// distinct pages served fewer requests). The lane's rules hold (each read sent after its
// request asked for it, in statements of their own snapshots; a read asked for while its lane
// is free is sent at once, alone, with the statements it always was). A lane is forgotten when
// it falls free (kids holds only listings in flight); a read that still holds a forgotten lane
// sends on it alone or with those already waiting on it. A page after a cursor is always read
// alone.
type childrenQueue = lane[*childrenCall]

// childrenKey is a listing's lane: the joined read's columns, the node and the size.
type childrenKey struct {
	read  *joinedRead
	id    string
	limit int
}

// childrenCall is one request's joined read and listing as it waits and is answered.
type childrenCall struct {
	laneWait
	hash, id string
	limit    int
	after    *ChildKey
	sc       *nodeScan
	list     []*quire.Block // the listing, when the joined read found a row
	err      error          // nil, sql.ErrNoRows (no joined row) or the read's failure
}

// kidsFor is the lane of key on this store, forgotten when it falls free.
func (p *pgRaw) kidsFor(key childrenKey) *childrenQueue {
	if q, ok := p.kids.Load(key); ok {
		return q.(*childrenQueue)
	}
	q := &childrenQueue{}
	q.freed = func() { p.kids.CompareAndDelete(key, q) }
	v, _ := p.kids.LoadOrStore(key, q)
	return v.(*childrenQueue)
}

// children reads the token of secretHash and node id with read, and at most limit children of
// id after the key after, as AuthenticateNodeChildren does, sharing the round trip of a first
// page with the reads other requests ask for at the same time.
func (p *pgRaw) children(ctx context.Context, read *joinedRead, secretHash, id string, after *ChildKey, limit int) (*childrenCall, error) {
	send := func(ctx context.Context, calls []*childrenCall) error {
		if len(calls) == 1 {
			calls[0].err = p.childrenOne(ctx, read, calls[0])
			return nil
		}
		err := p.childrenMany(ctx, read, calls)
		if err != nil {
			for _, c := range calls {
				c.err, c.list = err, nil
			}
		}
		return err
	}
	for {
		c := &childrenCall{laneWait: newLaneWait(), hash: secretHash, id: id, limit: limit, after: after}
		if after != nil {
			c.err = p.childrenOne(ctx, read, c)
			return c, nil
		}
		if err := p.kidsFor(childrenKey{read, id, limit}).do(ctx, c, send); err != nil {
			return nil, err
		}
		if !c.again {
			return c, nil
		}
	}
}

// childrenOne reads c alone: the joined read and c's listing (Children's statement) in one
// pipeline, the listing kept only when the joined read found a row.
func (p *pgRaw) childrenOne(ctx context.Context, read *joinedRead, c *childrenCall) error {
	query, args := childrenFirst, []any{c.id, c.limit}
	if c.after != nil {
		query, args = childrenAfter, []any{c.id, c.limit, c.after.Position, c.after.ID}
	}
	var l *childList
	found := false
	start := func() { c.sc, l, found = &nodeScan{p: &quire.Principal{}}, newChildList(c.limit), false }
	err := p.pipeline(ctx, start, pgStmt{query: read.query, args: []any{c.hash, c.id}, row: func(r *pgRow) (bool, error) {
		found = true
		return false, read.scan(c.sc, r)
	}}, pgStmt{query: query, args: args, row: func(r *pgRow) (bool, error) {
		readChild(l, r, c.id)
		return !l.full(), r.failed()
	}})
	if err != nil {
		return err
	}
	if !found {
		return sql.ErrNoRows
	}
	c.list = l.out
	return nil
}

// childrenMany reads calls, all of one listing, in one pipeline: their joined reads in
// read.many, and the listing once with childrenFirst.
func (p *pgRaw) childrenMany(ctx context.Context, read *joinedRead, calls []*childrenCall) error {
	id, limit := calls[0].id, calls[0].limit
	hashes, ids := make([]string, len(calls)), make([]string, len(calls))
	for i, c := range calls {
		hashes[i], ids[i] = c.hash, c.id
	}
	var l *childList
	found := make([]bool, len(calls))
	start := func() {
		l = newChildList(limit)
		for i, c := range calls {
			c.sc, found[i] = &nodeScan{p: &quire.Principal{}}, false
		}
	}
	err := p.pipeline(ctx, start, pgStmt{query: read.many, args: []any{hashes, ids}, row: func(r *pgRow) (bool, error) {
		i := r.int64(0) - 1
		if err := r.failed(); err != nil || i < 0 || int(i) >= len(calls) {
			return false, cmp.Or(err, fmt.Errorf("store: joined read numbered %d of %d", i+1, len(calls)))
		}
		found[i] = true
		return true, read.scan(calls[i].sc, &pgRow{fds: r.fds[1:], vals: r.vals[1:]})
	}}, pgStmt{query: childrenFirst, args: []any{id, limit}, row: func(r *pgRow) (bool, error) {
		readChild(l, r, id)
		return !l.full(), r.failed()
	}})
	if err != nil {
		return err
	}
	given := false
	for i, c := range calls {
		switch {
		case !found[i]:
			c.err, c.list = sql.ErrNoRows, nil
		case !given:
			c.err, c.list, given = nil, l.out, true
		default:
			c.err, c.list = nil, cloneBlocks(l.out) // each request's blocks are its own to change
		}
	}
	return nil
}

// cloneBlocks is a copy of each of bs; their strings and contents are shared (nothing writes
// into a listed block's content, which is capped).
func cloneBlocks(bs []*quire.Block) []*quire.Block {
	vals := make([]quire.Block, len(bs))
	out := make([]*quire.Block, len(bs))
	for i, b := range bs {
		vals[i] = *b
		out[i] = &vals[i]
	}
	return out
}
