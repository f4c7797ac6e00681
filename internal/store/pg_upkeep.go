package store

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL's upkeep merges the trigram GIN indexes' pending lists shortly after writes,
// beside the requests instead of inside them. A GIN index puts new entries in its pending list
// (fastupdate), which every lookup of the index reads whole, entry by entry, until an insert
// takes the list past gin_pending_list_limit (1 MB, migration 00031), VACUUM, or
// gin_clean_pending_list merges it into the index. So after a burst of writes each search paid
// for whatever the last write left pending, up to 128 pages: a word's lookup read 101 pages of
// search_docs_lower instead of 45 with 56 pages pending, 1.0 ms instead of 0.7 ms of the
// backend at load 13; and one append in about six paid for merging the list inside its INSERT
// (docs/performance.md, "PostgreSQL keyword search, twelfth pass" and "PostgreSQL append,
// eighth pass").
//
// The loop merges once the writes pause for pendingQuiet: a burst's entries are merged a second
// after it. Under a stream of writes it waits for the pause, and the stream's inserts merge the
// list inside themselves as before: merging beside a stream of appends made them slower in
// turns at c=1 (at most a second after the first unmerged write: p50 46 → 58 ms, medians of
// four turns at load 11-13; after 200 ms without a commit, which at load 14-17 came between
// appends of 200-350 ms: 87 → 95 ms; the cause not pinned down). One statement at a
// time, on one of the pool's connections, through pgRaw's hold of it and so not reported to
// Config.Observe (it is no request's statement). A merge rewrites index pages with the same
// entries, WAL-logged as any write: nothing a reader sees changes but the time its lookup
// takes.
const pendingQuiet = time.Second

// pendingMerge merges both trigram indexes' pending lists.
const pendingMerge = `SELECT gin_clean_pending_list('search_docs_lower'::regclass) + gin_clean_pending_list('nodes_title_trgm'::regclass)`

type pgUpkeep struct {
	pg   *pgRaw
	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}
	ran  atomic.Int64 // merges run, for tests
}

func startPGUpkeep(pg *pgRaw) *pgUpkeep {
	ctx, stop := context.WithCancel(context.Background())
	u := &pgUpkeep{pg: pg, kick: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go u.run(ctx)
	return u
}

// wrote tells the loop that a transaction committed; it never blocks.
func (u *pgUpkeep) wrote() { kick(u.kick) }

func (u *pgUpkeep) close() {
	u.stop()
	<-u.done
}

func (u *pgUpkeep) run(ctx context.Context) {
	defer close(u.done)
	quiet := time.NewTimer(pendingQuiet)
	quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.kick:
		}
		quiet.Reset(pendingQuiet)
	wait:
		for {
			select {
			case <-ctx.Done():
				return
			case <-u.kick:
				quiet.Reset(pendingQuiet)
			case <-quiet.C:
				break wait
			}
		}
		quiet.Stop()
		if !u.merge(ctx) {
			return
		}
	}
}

// merge runs pendingMerge, and reports whether the loop goes on: not once the store closes, nor
// when the database's user may not merge (gin_clean_pending_list wants the index's owner; a
// server whose migrations ran as another user leaves the merges to autovacuum, as before).
func (u *pgUpkeep) merge(ctx context.Context) bool {
	mctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := u.pg.raw(mctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(mctx, pendingMerge)
		return err
	})
	u.ran.Add(1)
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return true
	case ctx.Err() != nil:
		return false
	case errors.As(err, &pgErr) && pgErr.Code == "42501": // insufficient_privilege
		slog.Warn("the trigram indexes' pending lists are left to autovacuum", "err", err)
		return false
	}
	slog.Warn("merging the trigram indexes' pending lists failed", "err", err)
	return true
}
