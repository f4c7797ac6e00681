package store

import (
	"context"

	"github.com/quire-dev/quire/internal/busy"
)

// Requests first (docs/performance.md "Append, eighth pass"). The upkeep's indexing and merges
// run on the writer, a transaction or a statement at a time, and a request that wants the
// writer meanwhile waits for the piece under way: at one connection sending 100-paragraph
// appends back to back, a third of the appends waited for a batch of 500 entries. With a gate
// (YieldTo), each piece waits first for the requests in flight to end, so that it starts in the
// gap after an answer, while the next request is still on its way and being decoded, and a
// piece while requests come is a fifth of a quiet one, so that it fits in that gap.
//
// The wait is bounded two ways, so the indexes never fall far behind: at most yieldMaxWait per
// piece (a stream of requests always has one in flight), and not at all once the entries above
// the mark reach yieldTailMax, when the pieces are full size again. A search reads the entries
// above the mark by substring (internal/search/tail.go), so it is exact either way; the bound
// keeps that read about as long as it was when the loop ran every quarter second
// (a quarter second of appends at one connection is about 3,500 entries).
const (
	indexBusyBatch = indexBatch / 5
	mergeBusyPages = mergePages / 4
)

// yieldMaxWait and yieldTailMax are variables so that tests can make them wait for ever or
// hardly at all.
var (
	yieldMaxWait       = busy.MaxWait
	yieldTailMax int64 = 5000
)

// YieldTo makes SQLite's upkeep step aside for the requests g counts, as the semantic indexer
// does (service.Indexer.Yield). A nil gate, the default, never waits. It does nothing on
// PostgreSQL, which has no upkeep loop.
func (s *Store) YieldTo(g *busy.Gate) {
	if s.upkeep != nil {
		s.upkeep.gate.Store(g)
	}
}

// yield is called before each piece of work on the writer. While requests are being answered
// (one in flight, or one ended less than busy.Quiet ago) and the tail is short, it waits for the
// ones in flight to end (yieldMaxWait at most) and reports true: the piece should be small.
func (u *upkeep) yield(ctx context.Context) (small bool) {
	g := u.gate.Load()
	if g == nil || g.IdleFor() >= busy.Quiet || u.tailAtLeast(ctx, yieldTailMax) {
		return false
	}
	if g.InFlight() > 0 {
		u.yields.Add(1)
		_ = g.Wait(ctx, yieldMaxWait)
	}
	return true
}

// tailAtLeast reports whether at least n entries are above the trigram indexes' mark, from the
// last rid given (search_docs' rids are never reused: migration 00033) less the mark: two
// single-row reads on the checkpointer's connection, never the writer. Deleted entries count
// too, which only ends the waits sooner. An error counts as a long tail: the loop then works
// as it did without a gate.
func (u *upkeep) tailAtLeast(ctx context.Context, n int64) bool {
	var tail int64
	err := u.ckpt.QueryRowContext(ctx, `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'search_docs'), 0)
		- (SELECT rid FROM search_fts_mark)`).Scan(&tail)
	return err != nil || tail >= n
}

// batchSize is the upkeep's next index batch: indexBusyBatch entries after yielding to
// requests, else indexBatch.
func (u *upkeep) batchSize(ctx context.Context) int {
	if u.yield(ctx) {
		return indexBusyBatch
	}
	return indexBatch
}
