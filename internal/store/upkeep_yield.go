package store

import (
	"context"

	"github.com/quire-dev/quire/internal/busy"
)

// Requests first (docs/performance.md "Append, eighth pass"). The upkeep's indexing and merges
// run on the writer, a transaction or a statement at a time, and a request that wants the
// writer meanwhile waits for the piece under way. At one connection sending 100-paragraph
// appends back to back on the full-scale store, a third of the appends waited more than 1 ms
// for the writer, 50 ms on average, behind batches of 500 entries and merge steps of 64 pages.
// With a gate (YieldTo), while requests come the pieces are smaller (a fifth of the entries, a
// quarter of the pages), so that a request waits for less. The whole work is the same, in
// more transactions.
//
// Waiting for the requests in flight to end before each piece was tried and was worse: a piece
// then starts just as the client sends its next request, while without the wait it starts as
// soon as a request commits, with the answer's encoding and the next request's decoding still
// ahead of that request's successor (the section above has the figures).
//
// Once the entries above the mark reach smallTailMax, the pieces are full size again, so that
// the tail a search reads by substring (internal/search/tail.go) stays as short as before.
const (
	indexBusyBatch = indexBatch / 5
	mergeBusyPages = mergePages / 4
)

// smallTailMax is a variable so that tests can lower it.
var smallTailMax int64 = 5000

// YieldTo makes SQLite's upkeep work in smaller pieces while g counts requests, as the semantic
// indexer paces itself by g (service.Indexer.Yield). A nil gate, the default, keeps the pieces
// full size. It does nothing on PostgreSQL, which has no upkeep loop.
func (s *Store) YieldTo(g *busy.Gate) {
	if s.upkeep != nil {
		s.upkeep.gate.Store(g)
	}
}

// small reports whether the next piece of work on the writer should be small: requests are
// being answered (one in flight, or one ended less than busy.Quiet ago) and the tail is short.
func (u *upkeep) small(ctx context.Context) bool {
	g := u.gate.Load()
	return g != nil && g.IdleFor() < busy.Quiet && !u.tailAtLeast(ctx, smallTailMax)
}

// tailAtLeast reports whether at least n entries are above the trigram indexes' mark, from the
// last rid given (search_docs' rids are never reused: migration 00033) less the mark: two
// single-row reads on the checkpointer's connection, never the writer. Deleted entries count
// too, which only brings back full pieces sooner. An error counts as a long tail: the loop then
// works as it did without a gate.
func (u *upkeep) tailAtLeast(ctx context.Context, n int64) bool {
	var tail int64
	err := u.ckpt.QueryRowContext(ctx, `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'search_docs'), 0)
		- (SELECT rid FROM search_fts_mark)`).Scan(&tail)
	return err != nil || tail >= n
}

// batchSize is the upkeep's next index batch: indexBusyBatch entries while requests come,
// else indexBatch.
func (u *upkeep) batchSize(ctx context.Context) int {
	if u.small(ctx) {
		u.smalls.Add(1)
		return indexBusyBatch
	}
	return indexBatch
}
