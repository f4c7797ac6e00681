package store

import (
	"context"
	"database/sql"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/quire-dev/quire/internal/busy"
)

// SQLite's upkeep runs beside the requests instead of inside them. Two pieces of work used to
// fall on whichever write came at the wrong moment, making it wait for the others' share:
//
//   - Checkpoints. The transaction whose commit took the WAL past 1,000 pages copied the whole
//     WAL into the database file, and synced it, before its caller heard back: one append in
//     about fifteen, a tenth of an append's CPU on average. The upkeep loop checkpoints
//     (PASSIVE: no lock a writer or reader waits for) on a connection of its own shortly after
//     writes. walBackstop keeps the writer's own checkpoint for when the loop falls behind (a
//     reader holding an old snapshot, a machine too busy to schedule it), so the WAL never
//     grows past about 40 MB.
//   - FTS5 merges. Each transaction that indexes text adds a segment to the trigram indexes, and
//     with automerge FTS5 merged segments inside the INSERT that made a level full: another
//     tenth of an append's CPU. Migration 00013 turns automerge off; the loop merges on the
//     writer (where requests queue in Go, not on SQLITE_BUSY), a bounded step at a time, at
//     most once per mergeEvery. FTS5's crisismerge (16 segments on a level) still merges
//     inside a write if the loop cannot keep up, so a query never reads an unbounded number of
//     segments.
//   - FTS5 indexing itself (migration 00027): writes add their search_docs rows only, and the
//     loop copies the new rows into the trigram indexes before it merges, a bounded batch per
//     transaction (search_index_tail.go), so a segment holds a quarter second of writes instead
//     of one statement's. Open kicks the loop once migrated, so what a crash or a command that
//     closed the store left unindexed is indexed then.
//   - Requests first (upkeep_yield.go): with a gate, while requests come each merge step is
//     smaller, so that a request waits less behind it for the writer, and indexing waits until
//     the tail reaches a bound.
//
// Durability is unchanged: a commit is durable once its WAL frames are synced (synchronous
// FULL); a checkpoint syncs the WAL before it copies and the database file after. A merge
// rewrites index segments with the same content in its own transaction.
const (
	walBackstop     = 10000                  // pages (4 KiB each)
	checkpointEvery = time.Second            // see checkpoints
	roundPace       = 100 * time.Millisecond // the least time between a write's kick and a round
	mergeEvery      = 250 * time.Millisecond
	mergePages      = 64 // FTS5 pages written per merge step
	mergeSteps      = 32 // per table and round, so a round holds the writer at most a few ms at a time
)

// ftsTables are the FTS5 indexes the upkeep merges.
var ftsTables = []string{"search_fts", "search_title_fts"}

type upkeep struct {
	ckpt      *sql.DB // a connection of its own
	write     *sql.DB // the store's writer
	kick      chan struct{}
	ckptKick  chan struct{} // the checkpointer's own kick (checkpoints)
	stop      context.CancelFunc
	done      chan struct{}
	ckptDone  chan struct{}
	lastMerge time.Time
	ran       atomic.Int64              // checkpoints run, for tests
	gate      atomic.Pointer[busy.Gate] // the requests in flight (upkeep_yield.go); nil: none
	batches   atomic.Int64              // index batches begun, for tests
}

func startUpkeep(ckpt, write *sql.DB) *upkeep {
	ctx, stop := context.WithCancel(context.Background())
	u := &upkeep{ckpt: ckpt, write: write, kick: make(chan struct{}, 1), ckptKick: make(chan struct{}, 1),
		stop: stop, done: make(chan struct{}), ckptDone: make(chan struct{})}
	go u.run(ctx)
	go u.checkpoints(ctx)
	return u
}

// wrote tells the loops that a transaction committed; it never blocks.
func (u *upkeep) wrote() {
	kick(u.kick)
	kick(u.ckptKick)
}

func kick(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// checkpoints runs a checkpoint after each write, at most one per checkpointEvery. It is a loop
// of its own, not a step of run's rounds, because those rounds wait for the writer (the search
// tail's batches, the merge steps) behind every request queued for it: under a stream of writes
// (four mutation batches at a time) a round waited seconds, no checkpoint ran meanwhile, the WAL
// reached walBackstop and the writer checkpointed inside a COMMIT instead, copying up to 10,000
// pages while every other writer waited (docs/performance.md "Seeding, fifth pass"). A PASSIVE
// checkpoint on its own connection never waits for the writer.
//
// At most one a second (a tenth of a second until the tenth pass): a checkpoint copies the
// latest version of each page the WAL holds, and at one connection sending appends the same
// index and FTS5 pages are written again by append after append, so checkpoints ten times a
// second copied them over and over; at one a second the server's CPU per append fell by a
// sixth on average, and the p50 with it (docs/performance.md "Append, tenth pass"). The WAL then
// holds about a second of writes, far below walBackstop.
//
// One timer serves every round: time.After made a timer per write under a stream of writes.
func (u *upkeep) checkpoints(ctx context.Context) {
	defer close(u.ckptDone)
	pace := time.NewTimer(checkpointEvery)
	defer pace.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.ckptKick:
			u.checkpoint(ctx)
		}
		if !wait(ctx, pace, checkpointEvery) {
			return
		}
	}
}

// wait waits d on t (a timer not in use elsewhere); false when ctx ended first. Since Go 1.23
// Reset discards a value the timer sent and nobody received, so t need not be drained.
func wait(ctx context.Context, t *time.Timer, d time.Duration) bool {
	t.Reset(d)
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (u *upkeep) run(ctx context.Context) {
	defer close(u.done)
	// A round soon after opening: a store may have been closed with merges left (a bulk write
	// just before, a consolidation under way), which would otherwise wait for the next write.
	// It waits for Open's kick, sent once the store is migrated (store.go): before that a fresh
	// store has no index to merge, and the round would only log that.
	mergeDue := false
	// wrote says a write committed since the last round: a consolidation starts only in a
	// round without one, so that writes in a stream (appends) never wait on one, and the round
	// after a write is always run to see whether one is due.
	wrote := false
	round := time.NewTimer(mergeEvery) // both timers reused across rounds
	defer round.Stop()
	pace := time.NewTimer(roundPace)
	defer pace.Stop()
	for {
		var timer <-chan time.Time
		if mergeDue {
			round.Reset(time.Until(u.lastMerge.Add(mergeEvery)))
			timer = round.C
		}
		select {
		case <-ctx.Done():
			return
		case <-u.kick:
			mergeDue, wrote = true, true
		case <-timer:
			indexed, deferred := u.index(ctx)
			worked, err := u.merge(ctx, !wrote)
			if err != nil && ctx.Err() == nil {
				slog.Warn("background search index merge failed", "err", err)
			}
			if worked || indexed > 0 {
				kick(u.ckptKick)
			}
			// A round that merged, indexed or deferred indexing may have left work (a consolidation
			// spans rounds): the next round follows after mergeEvery rather than after the next write.
			u.lastMerge, mergeDue, wrote = time.Now(), worked || wrote || indexed > 0 || deferred, false
		}
		// The rounds' pace is as it was when this loop also checkpointed: a round starts no
		// sooner than roundPace after a write's kick, so the search tail's first segment
		// after a quiet spell holds that much of the writes that follow, not one write's.
		if !wait(ctx, pace, roundPace) {
			return
		}
	}
}

// checkpoint copies the WAL's committed frames into the database file. A failed checkpoint
// loses nothing (the frames stay in the WAL, and the next one or the writer's backstop copies
// them), so it is only logged.
func (u *upkeep) checkpoint(ctx context.Context) {
	u.ran.Add(1)
	if _, err := u.ckpt.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil && ctx.Err() == nil {
		slog.Warn("background checkpoint failed", "err", err)
	}
}

// merge runs bounded FTS5 merge steps on each table until one finds nothing to merge: a step
// that worked changes at least two rows (FTS5's own test, on total_changes), and each step is
// its own statement on the writer, so requests wait for one step at most. A table whose level
// merges are done is consolidated when its segments call for it (consolidate), if idle: no
// write since the last round (a consolidation once begun is carried on by the level merges'
// steps).
func (u *upkeep) merge(ctx context.Context, idle bool) (worked bool, err error) {
tables:
	for _, table := range ftsTables {
		pages := mergePages
		for step := 0; step < mergeSteps; step++ {
			n := pages
			if pages > 0 && u.small(ctx) {
				n = mergeBusyPages
			}
			w, err := u.mergeStep(ctx, table, n)
			if err != nil {
				return worked, err
			}
			if w {
				worked, pages = true, mergePages
				continue
			}
			if pages < 0 || !idle {
				break // the consolidation's first step found nothing to merge, or writes go on
			}
			due, err := u.consolidate(ctx, table)
			if err != nil {
				return worked, err
			}
			if !due {
				continue tables
			}
			// FTS5's 'merge' with a negative page count first puts every segment on one level,
			// then merges that level like any other: the steps after it go on with that merge.
			pages = -mergePages
		}
	}
	return worked, nil
}

// consolidateShare: an index is merged into one segment when its segments other than the
// largest hold at least 1/consolidateShare of the largest one's pages. Each trigram looked up
// probes every segment, and the level merges leave 7 to 9 of them after a bulk import (a tenth
// of a keyword search's CPU; issue 15). Rewriting the index whole only once the rest has grown
// to an eighth of it keeps what the consolidations write to about consolidateShare+1 times the
// index's size over its life, like the level merges; smaller segments are left to those.
const consolidateShare = 8

// consolidate reports whether table's segments call for merging into one (consolidateShare).
// A segment's pages are counted by its rows in the table's %_idx (one per leaf page that starts
// a term): pages of one long list are not counted, which is close enough for a ratio.
func (u *upkeep) consolidate(ctx context.Context, table string) (bool, error) {
	// The table name is one of ftsTables, never input.
	rows, err := u.ckpt.QueryContext(ctx, `SELECT COUNT(*) FROM `+table+`_idx GROUP BY segid`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var segments, largest, total int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return false, err
		}
		segments, total, largest = segments+1, total+n, max(largest, n)
	}
	return segments > 1 && (total-largest)*consolidateShare >= largest, rows.Err()
}

func (u *upkeep) mergeStep(ctx context.Context, table string, pages int) (bool, error) {
	conn, err := u.write.Conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	var before, after int64
	if err := conn.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&before); err != nil {
		return false, err
	}
	// The table name is one of ftsTables, never input.
	if _, err := conn.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`, rank) VALUES ('merge', $1)`, pages); err != nil {
		return false, err
	}
	if err := conn.QueryRowContext(ctx, `SELECT total_changes()`).Scan(&after); err != nil {
		return false, err
	}
	return after-before >= 2, nil
}

// close stops the loop and releases its connection; closing the file's last connection
// checkpoints what is left.
func (u *upkeep) close() error {
	u.stop()
	<-u.done
	<-u.ckptDone
	return u.ckpt.Close()
}
