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
// With a gate (YieldTo), while requests come the merge steps are smaller (a quarter of the
// pages), so that a request waits for less. The whole work is the same, in more statements.
//
// Waiting for the requests in flight to end before each piece was tried and was worse: a piece
// then starts just as the client sends its next request, while without the wait it starts as
// soon as a request commits, with the answer's encoding and the next request's decoding still
// ahead of that request's successor (the section above has the figures).
//
// Once the entries above the mark reach smallTailMax, the merge steps are full size again.
//
// Indexing waits while requests come (docs/performance.md "Append, tenth pass"). The eighth pass
// made index batches a fifth of indexBatch while requests came; but each batch adds a segment to
// the trigram indexes, and batches of 100 entries, one or two per 100-paragraph append, made
// segments so fast that FTS5's crisis merges ran inside the batches, on the writer, beside the
// upkeep's own merge steps. While a request is in flight or one ended less than busy.Quiet ago,
// the upkeep leaves the entries above the mark until they reach deferTailMax, then indexes them
// in full batches; once requests stop, whatever is left.
// Keyword search reads the entries above the mark by substring (internal/search/tail.go), so it
// is exact at any tail, and the bound keeps that read short.
const mergeBusyPages = mergePages / 4

// smallTailMax and deferTailMax are variables so that tests can lower them.
var (
	smallTailMax int64 = 5000
	deferTailMax int64 = 2000
)

// YieldTo makes SQLite's upkeep step aside while g counts requests, as the semantic indexer
// paces itself by g (service.Indexer.Yield): it defers indexing and merges in smaller steps. A
// nil gate, the default, keeps the work as it comes. It does nothing on PostgreSQL, which has
// no upkeep loop.
func (s *Store) YieldTo(g *busy.Gate) {
	if s.upkeep != nil {
		s.upkeep.gate.Store(g)
	}
}

// busy reports whether requests are being answered: one in flight, or one ended less than
// busy.Quiet ago.
func (u *upkeep) busy() bool {
	g := u.gate.Load()
	return g != nil && g.IdleFor() < busy.Quiet
}

// small reports whether the next merge step should be small: requests are being answered and
// the tail is short.
func (u *upkeep) small(ctx context.Context) bool {
	return u.busy() && !u.tailAtLeast(ctx, smallTailMax)
}

// deferIndex reports whether the round should leave the entries above the mark for later:
// requests are being answered and fewer than deferTailMax entries wait.
func (u *upkeep) deferIndex(ctx context.Context) bool {
	return u.busy() && !u.tailAtLeast(ctx, deferTailMax)
}

// tailAtLeast reports whether at least n entries are above the trigram indexes' mark, from the
// last rid given (search_docs' rids are never reused: migration 00033) less the mark: two
// single-row reads on the checkpointer's connection, never the writer. Deleted entries count
// too, which only ends a wait sooner. An error counts as a long tail: the loop then works as
// it did without a gate.
func (u *upkeep) tailAtLeast(ctx context.Context, n int64) bool {
	var tail int64
	err := u.ckpt.QueryRowContext(ctx, searchTailSQL).Scan(&tail)
	return err != nil || tail >= n
}

// searchTailSQL counts the entries above the trigram indexes' mark (tailAtLeast).
const searchTailSQL = `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'search_docs'), 0)
	- (SELECT rid FROM search_fts_mark)`

// SearchTail is how many search entries are above SQLite's trigram indexes' mark as tx sees
// them (0 on PostgreSQL). A restore counts them in its own transaction: once it commits, the
// upkeep loop may index them before the restore's IndexSearch does, which then finds none.
func (tx *Tx) SearchTail(ctx context.Context) (int64, error) {
	if tx.engine != SQLite {
		return 0, nil
	}
	var tail int64
	err := tx.tx.QueryRowContext(ctx, searchTailSQL).Scan(&tail)
	return tail, err
}
