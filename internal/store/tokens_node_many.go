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

// joinedQueue gathers, on PostgreSQL, the joined reads (AuthenticateNode) of one NodeFields
// that requests ask for while a round trip of them is in flight, and sends them together in
// the next, as one statement over arrays (joinedRead.many). At c=16 the page GET spent a
// quarter of Quire's CPU in pgx's write of its statement (on loopback TCP the write runs the
// backend's wake-up inside the system call), and the backends as much CPU a request as Quire,
// mostly a statement's fixed cost and its receive, wait and send: paid once for a round trip
// of several requests instead of once for each (about half the CPU a request all told).
//
// Nothing is kept: each read is sent after its request asked for it (it waits for a round trip
// that starts later, never joins one already sent) and runs in a statement of its own
// snapshot, so a revoked token or a withdrawn grant is seen by the very next request, as when
// each request sent its own. A read asked for while the lane is free is sent at once, alone,
// with joinedRead.query: at c=1 nothing waits and the statement is the one it always was.
//
// There are no goroutines of its own: the request that finds the lane free sends; when its
// round trip is back, the lane goes to the first waiting read, whose request sends every read
// waiting by then, its own included (one goroutine wake-up, which that read needed anyway).
//
// One round trip of a NodeFields' reads is in flight at a time (one lane): a second would need
// the lane's hand-off to tell two waiting senders apart, and at c=16 on 2 cores two lanes were
// not measurably better (docs/performance.md, "PostgreSQL page GET, tenth pass").
type joinedQueue struct {
	mu   sync.Mutex
	busy bool          // a round trip is in flight, or the lane was handed to a waiting read
	wait []*joinedCall // reads asked for while the lane was busy, in order; empty when it is free
}

// joinedCall is one request's read as it waits and is answered.
type joinedCall struct {
	hash, id string
	sc       *nodeScan
	err      error     // the read's outcome: nil (sc read), sql.ErrNoRows (no row) or its failure
	again    bool      // the round trip failed with its sender's context, not this read's: ask again
	lead     bool      // under mu: the lane was handed to this read, which is to send the waiting reads
	ready    chan bool // true: lead; false: answered
}

// queueFor is read's joinedQueue on this store.
func (p *pgRaw) queueFor(read *joinedRead) *joinedQueue {
	if q, ok := p.joins.Load(read); ok {
		return q.(*joinedQueue)
	}
	q, _ := p.joins.LoadOrStore(read, &joinedQueue{})
	return q.(*joinedQueue)
}

// joined reads the token of secretHash and node id with read, as AuthenticateNode's hotRow
// does (sql.ErrNoRows: no row), sharing the round trip with the reads other requests ask for
// at the same time.
func (p *pgRaw) joined(ctx context.Context, read *joinedRead, secretHash, id string) (*nodeScan, error) {
	q := p.queueFor(read)
	for {
		c := &joinedCall{hash: secretHash, id: id, sc: &nodeScan{p: &quire.Principal{}}, ready: make(chan bool, 1)}
		q.mu.Lock()
		if !q.busy {
			q.busy = true
			q.mu.Unlock()
			p.send(ctx, q, read, []*joinedCall{c})
		} else {
			q.wait = append(q.wait, c)
			q.mu.Unlock()
			if err := p.await(ctx, q, read, c); err != nil {
				return nil, err
			}
		}
		if !c.again {
			return c.sc, c.err
		}
	}
}

// await waits until c is answered, sending the waiting reads when the lane is handed to it,
// or until ctx ends.
func (p *pgRaw) await(ctx context.Context, q *joinedQueue, read *joinedRead, c *joinedCall) error {
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
			p.send(ctx, q, read, calls)
			return nil
		case <-ctx.Done():
			q.mu.Lock()
			if i := slices.Index(q.wait, c); i >= 0 {
				q.wait = slices.Delete(q.wait, i, i+1)
				if c.lead { // handed the lane, not to send now: the next waiting read sends
					q.handOn()
				}
			}
			q.mu.Unlock()
			// Not waiting any more, c has been sent: its answer, if it comes, is read by no one.
			return ctx.Err()
		}
	}
}

// handOn gives the lane of a round trip that is done to the first waiting read, or frees it.
// q.mu is held.
func (q *joinedQueue) handOn() {
	if len(q.wait) == 0 {
		q.busy = false
		return
	}
	next := q.wait[0]
	next.lead = true
	next.ready <- true
}

// send runs the reads of calls in one round trip with ctx (the sending request's), answers
// every call but its sender's own (calls[0]), and hands the lane on.
func (p *pgRaw) send(ctx context.Context, q *joinedQueue, read *joinedRead, calls []*joinedCall) {
	var err error
	if len(calls) == 1 {
		c := calls[0]
		c.err = p.one(ctx, read.query, []string{c.hash, c.id}, func(r *pgRow) error { return read.scan(c.sc, r) })
	} else if err = p.many(ctx, read, calls); err != nil {
		for _, c := range calls {
			c.err = err
		}
	}
	q.mu.Lock()
	q.handOn()
	q.mu.Unlock()
	for _, c := range calls[1:] {
		// A round trip that failed because its sender's request ended (a client gone) is
		// not the others' failure: they ask again.
		if err != nil && ctx.Err() != nil {
			c.again = true
		}
		c.ready <- false
	}
}

// many runs the reads of calls in read.many: one statement, one row per call that finds its
// token and node, numbered by the call's place.
func (p *pgRaw) many(ctx context.Context, read *joinedRead, calls []*joinedCall) error {
	hashes, ids := make([]string, len(calls)), make([]string, len(calls))
	for i, c := range calls {
		hashes[i], ids[i] = c.hash, c.id
		c.err = sql.ErrNoRows
	}
	return p.query(ctx, read.many, []any{hashes, ids}, func(r *pgRow) (bool, error) {
		i := r.int64(0) - 1
		if err := r.failed(); err != nil || i < 0 || int(i) >= len(calls) {
			return false, cmp.Or(err, fmt.Errorf("store: joined read numbered %d of %d", i+1, len(calls)))
		}
		c := calls[i]
		c.err = read.scan(c.sc, &pgRow{fds: r.fds[1:], vals: r.vals[1:]})
		return true, nil
	})
}

// joinedManyQuery is authenticateNodeQuery on PostgreSQL for the tokens of secret hashes $1
// and the nodes $2 (two text arrays of one length), taken pair by pair: one row for each pair
// whose read finds a row, its place in the arrays (from 1) first. OFFSET 0 keeps PostgreSQL
// from pulling the read up into a join of its own choosing: each pair is the single read's
// plan, its token and its node on their keys (TestJoinedMany_Plan).
func joinedManyQuery(tokenColumns, join, columns string) string {
	return `SELECT r.i, x.* FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(h, id, i)
		CROSS JOIN LATERAL (` + authenticateNodeQuery(Postgres, tokenColumns, join, columns, "r.h", "r.id") + `
		OFFSET 0) x`
}
