package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"

	"github.com/quire-dev/quire/internal/quire"
)

// joinedQueue is the lane (pg_lane.go) of one NodeFields' joined reads (AuthenticateNode) on
// PostgreSQL: the reads requests ask for while a round trip of them is in flight go together
// in the next, as one statement over arrays (joinedRead.many). At c=16 the page GET spent a
// quarter of Quire's CPU in pgx's write of its statement (on loopback TCP the write runs the
// backend's wake-up inside the system call), and the backends as much CPU a request as Quire,
// mostly a statement's fixed cost and its receive, wait and send: paid once for a round trip
// of several requests instead of once for each (about half the CPU a request all told). Each
// read runs in a statement of its own snapshot; one sent alone is joinedRead.query, the
// statement it always was.
type joinedQueue = lane[*joinedCall]

// joinedCall is one request's read as it waits and is answered.
type joinedCall struct {
	laneWait
	hash, id string
	sc       *nodeScan
	err      error // the read's outcome: nil (sc read), sql.ErrNoRows (no row) or its failure
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
	send := func(ctx context.Context, calls []*joinedCall) error {
		if len(calls) == 1 {
			c := calls[0]
			c.err = p.one(ctx, read.query, []string{c.hash, c.id}, func(r *pgRow) error { return read.scan(c.sc, r) })
			return nil
		}
		err := p.many(ctx, read, calls)
		if err != nil {
			for _, c := range calls {
				c.err = err
			}
		}
		return err
	}
	for {
		c := &joinedCall{laneWait: newLaneWait(), hash: secretHash, id: id, sc: &nodeScan{p: &quire.Principal{}}}
		if err := q.do(ctx, c, send); err != nil {
			return nil, err
		}
		if !c.again {
			return c.sc, c.err
		}
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
