package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"

	"github.com/quire-dev/quire/internal/quire"
)

// childrenQueue is joinedQueue for AuthenticateNodeChildren's first pages on PostgreSQL: the
// joined reads and first-page listings that requests ask for while a round trip of them is in
// flight go together in the next, as the two statements over arrays of childrenMany, in one
// pipeline. At c=16 the children row paid, for each request, a round trip whose two
// statements cost the backends 0.24 ms of CPU (Quire about 0.33): a statement's fixed cost,
// the backend's receive, wait and send, and the listing's own 51 KB. Together, the fixed costs
// are paid once a round trip, and a listing that several waiting requests ask for (the same
// node and size) is read and sent once for all of them.
//
// The rules are joinedQueue's: each read is sent after its request asked for it, never joins a
// round trip already sent, and runs in statements of their own snapshots; a read asked for while
// the lane is free is sent at once, alone, with the statements it always was (at c=1 nothing
// changes); no goroutine of its own. A page after a cursor is always read alone.
type childrenQueue struct {
	mu   sync.Mutex
	busy bool
	wait []*childrenCall
}

// childrenCall is one request's joined read and listing as it waits and is answered.
type childrenCall struct {
	hash, id string
	limit    int
	after    *ChildKey
	sc       *nodeScan
	list     []*quire.Block // the listing, when the joined read found a row
	err      error          // nil, sql.ErrNoRows (no joined row) or the read's failure
	again    bool           // the round trip failed with its sender's context, not this read's
	lead     bool           // under mu: the lane was handed to this read
	ready    chan bool      // true: lead; false: answered
}

// kidsFor is read's childrenQueue on this store.
func (p *pgRaw) kidsFor(read *joinedRead) *childrenQueue {
	if q, ok := p.kids.Load(read); ok {
		return q.(*childrenQueue)
	}
	q, _ := p.kids.LoadOrStore(read, &childrenQueue{})
	return q.(*childrenQueue)
}

// children reads the token of secretHash and node id with read, and at most limit children of
// id after the key after, as AuthenticateNodeChildren does, sharing the round trip of a first
// page with the reads other requests ask for at the same time.
func (p *pgRaw) children(ctx context.Context, read *joinedRead, secretHash, id string, after *ChildKey, limit int) (*childrenCall, error) {
	for {
		c := &childrenCall{hash: secretHash, id: id, limit: limit, after: after, ready: make(chan bool, 1)}
		if after != nil {
			c.err = p.childrenOne(ctx, read, c)
			return c, nil
		}
		q := p.kidsFor(read)
		q.mu.Lock()
		if !q.busy {
			q.busy = true
			q.mu.Unlock()
			p.sendChildren(ctx, q, read, []*childrenCall{c})
		} else {
			q.wait = append(q.wait, c)
			q.mu.Unlock()
			if err := p.awaitChildren(ctx, q, read, c); err != nil {
				return nil, err
			}
		}
		if !c.again {
			return c, nil
		}
	}
}

// awaitChildren is joinedQueue's await for a childrenCall.
func (p *pgRaw) awaitChildren(ctx context.Context, q *childrenQueue, read *joinedRead, c *childrenCall) error {
	for {
		select {
		case lead := <-c.ready:
			if !lead {
				return nil
			}
			q.mu.Lock()
			calls := q.wait // c is the first of them
			q.wait = nil
			q.mu.Unlock()
			p.sendChildren(ctx, q, read, calls)
			return nil
		case <-ctx.Done():
			q.mu.Lock()
			if i := slices.Index(q.wait, c); i >= 0 {
				q.wait = slices.Delete(q.wait, i, i+1)
				if c.lead {
					q.handOn()
				}
			}
			q.mu.Unlock()
			return ctx.Err()
		}
	}
}

// handOn gives the lane to the first waiting read, or frees it. q.mu is held.
func (q *childrenQueue) handOn() {
	if len(q.wait) == 0 {
		q.busy = false
		return
	}
	next := q.wait[0]
	next.lead = true
	next.ready <- true
}

// sendChildren runs the reads of calls in one round trip with ctx (the sending request's),
// answers every call but its sender's own (calls[0]), and hands the lane on.
func (p *pgRaw) sendChildren(ctx context.Context, q *childrenQueue, read *joinedRead, calls []*childrenCall) {
	var err error
	if len(calls) == 1 {
		calls[0].err = p.childrenOne(ctx, read, calls[0])
	} else if err = p.childrenMany(ctx, read, calls); err != nil {
		for _, c := range calls {
			c.err, c.list = err, nil
		}
	}
	q.mu.Lock()
	q.handOn()
	q.mu.Unlock()
	for _, c := range calls[1:] {
		if err != nil && ctx.Err() != nil { // the sender's request ended: the others ask again
			c.again = true
		}
		c.ready <- false
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

// childrenMany reads calls in one pipeline: their joined reads in read.many, and each distinct
// listing among them (node and size) once, in childrenManyQuery.
func (p *pgRaw) childrenMany(ctx context.Context, read *joinedRead, calls []*childrenCall) error {
	type listing struct {
		id    string
		limit int
	}
	hashes, ids := make([]string, len(calls)), make([]string, len(calls))
	var wanted []listing
	of := make([]int, len(calls)) // calls[i]'s listing: wanted[of[i]]
	for i, c := range calls {
		hashes[i], ids[i] = c.hash, c.id
		k := listing{c.id, c.limit}
		j := slices.Index(wanted, k)
		if j < 0 {
			j, wanted = len(wanted), append(wanted, k)
		}
		of[i] = j
	}
	parents, limits := make([]string, len(wanted)), make([]int32, len(wanted))
	for j, w := range wanted {
		parents[j], limits[j] = w.id, int32(w.limit)
	}
	var lists []*childList
	found := make([]bool, len(calls))
	start := func() {
		lists = make([]*childList, len(wanted))
		for j, w := range wanted {
			lists[j] = newChildList(w.limit)
		}
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
	}}, pgStmt{query: childrenManyQuery, args: []any{parents, limits}, row: func(r *pgRow) (bool, error) {
		j := r.int64(0) - 1
		if err := r.failed(); err != nil || j < 0 || int(j) >= len(lists) || lists[j].full() {
			return false, cmp.Or(err, fmt.Errorf("store: listing numbered %d of %d, or past its limit", j+1, len(lists)))
		}
		readChild(lists[j], &pgRow{fds: r.fds[1:], vals: r.vals[1:]}, wanted[j].id)
		return true, r.failed()
	}})
	if err != nil {
		return err
	}
	given := make([]bool, len(wanted))
	for i, c := range calls {
		if !found[i] {
			c.err, c.list = sql.ErrNoRows, nil
			continue
		}
		c.err = nil
		j := of[i]
		if !given[j] {
			c.list, given[j] = lists[j].out, true
			continue
		}
		c.list = cloneBlocks(lists[j].out) // each request's blocks are its own to change
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

// childrenManyQuery is childrenFirst for the nodes $1 and sizes $2 (arrays of one length),
// taken pair by pair: each pair's children in order, its place in the arrays (from 1) first.
// Each pair is childrenFirst's plan, on the blocks_children index (TestChildrenMany_Plan).
const childrenManyQuery = `SELECT r.i, c.* FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS r(parent, n, i)
	CROSS JOIN LATERAL (SELECT ` + childColumns + ` FROM blocks b WHERE b.parent_id = r.parent AND b.in_trash = FALSE
	ORDER BY b.position, b.id LIMIT r.n) c`
