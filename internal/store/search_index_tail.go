package store

import (
	"context"
	"database/sql"
	"log/slog"
	"sync/atomic"
)

// indexBatch is how many search entries one background batch copies into SQLite's trigram
// indexes (migration 00027). A batch is one transaction on the writer; at about 10 µs of CPU an
// entry (tokenising 70 characters and writing its trigrams into the segment), a batch holds the
// writer for roughly 5 ms, and a request waiting for the writer takes it before the next batch
// (database/sql hands a released connection to a waiting caller first).
const indexBatch = 500

// backgroundIndexOff stops the upkeep loop from indexing (tests that need entries to stay above
// the mark, as after a crash, set it through SkipBackgroundIndexForTest).
var backgroundIndexOff atomic.Bool

// IndexSearch copies every search entry above the trigram indexes' mark into them (SQLite; on
// PostgreSQL it does nothing), a batch at a time, and reports how many it copied. The upkeep loop
// runs it after writes; keyword search is exact before and after, since it reads the entries
// above the mark by substring (internal/search/tail.go).
func (s *Store) IndexSearch(ctx context.Context) (int, error) {
	if s.engine != SQLite {
		return 0, nil
	}
	return indexTail(ctx, s.write, func(context.Context) int { return indexBatch })
}

// index is the upkeep loop's indexing: every entry above the mark, in batches, unless requests
// come and the tail is short (deferred: upkeep_yield.go). A failure is only logged: the entries
// stay above the mark, where search reads them, until the next round.
func (u *upkeep) index(ctx context.Context) (n int, deferred bool) {
	if backgroundIndexOff.Load() {
		return 0, false
	}
	if u.deferIndex(ctx) {
		return 0, true
	}
	n, err := indexTail(ctx, u.write, func(context.Context) int {
		u.batches.Add(1)
		return indexBatch
	})
	if err != nil && ctx.Err() == nil {
		slog.Warn("background search indexing failed", "err", err)
	}
	return n, false
}

// indexTail runs indexBatchOnce until the tail is empty or ctx ends, each batch of size(ctx)
// entries at most.
func indexTail(ctx context.Context, write *sql.DB, size func(context.Context) int) (int, error) {
	total := 0
	for {
		n, err := indexBatchOnce(ctx, write, size(ctx))
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// nextBatchSQL reads the mark and the last rid and count of the next batch ($1 entries at most),
// on search_docs' primary key from the mark on (TestSearchTailPlans).
const nextBatchSQL = `SELECT m.rid, MAX(t.rid), COUNT(t.rid) FROM search_fts_mark m
	LEFT JOIN (SELECT rid FROM search_docs WHERE rid > (SELECT rid FROM search_fts_mark) ORDER BY rid LIMIT $1) t ON TRUE`

// indexBatchOnce indexes the next batch entries above the mark and moves the mark past them,
// in one transaction: a crash before its commit leaves the mark and the indexes as they were, so
// the next batch indexes the same entries once. Between the read of the mark and the commit no
// other writer runs (SQLite has one), so the entries in (mark, hi] are exactly the ones copied.
func indexBatchOnce(ctx context.Context, write *sql.DB, batch int) (int, error) {
	tx, err := write.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var lo int64
	var hi sql.NullInt64
	var n int
	err = tx.QueryRowContext(ctx, nextBatchSQL, batch).Scan(&lo, &hi, &n)
	if err != nil || n == 0 {
		return 0, err
	}
	for _, stmt := range []string{
		`INSERT INTO search_fts (rowid, text) SELECT rid, text || char(1, 1) FROM search_docs WHERE rid > $1 AND rid <= $2`,
		`INSERT INTO search_title_fts (rowid, text) SELECT rid, text || char(1, 1) FROM search_docs WHERE rid > $1 AND rid <= $2 AND field = 'title'`,
		`UPDATE search_fts_mark SET rid = $2 WHERE rid = $1`,
	} {
		if _, err := tx.ExecContext(ctx, stmt, lo, hi.Int64); err != nil {
			return 0, err
		}
	}
	return n, tx.Commit()
}
