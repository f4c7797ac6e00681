package store

import (
	"context"
	"database/sql"
	"log/slog"
	"time"
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
//
// Durability is unchanged: a commit is durable once its WAL frames are synced (synchronous
// FULL); a checkpoint syncs the WAL before it copies and the database file after. A merge
// rewrites index segments with the same content in its own transaction.
const (
	walBackstop     = 10000 // pages (4 KiB each)
	checkpointEvery = 100 * time.Millisecond
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
	stop      context.CancelFunc
	done      chan struct{}
	lastMerge time.Time
}

func startUpkeep(ckpt, write *sql.DB) *upkeep {
	ctx, stop := context.WithCancel(context.Background())
	u := &upkeep{ckpt: ckpt, write: write, kick: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go u.run(ctx)
	return u
}

// wrote tells the loop that a transaction committed; it never blocks.
func (u *upkeep) wrote() {
	select {
	case u.kick <- struct{}{}:
	default:
	}
}

func (u *upkeep) run(ctx context.Context) {
	defer close(u.done)
	mergeDue := false
	for {
		var timer <-chan time.Time
		if mergeDue {
			timer = time.After(time.Until(u.lastMerge.Add(mergeEvery)))
		}
		select {
		case <-ctx.Done():
			return
		case <-u.kick:
			u.checkpoint(ctx)
			mergeDue = true
		case <-timer:
			indexed := u.index(ctx)
			worked, err := u.merge(ctx)
			if err != nil && ctx.Err() == nil {
				slog.Warn("background search index merge failed", "err", err)
			}
			if worked || indexed > 0 {
				u.checkpoint(ctx)
			}
			u.lastMerge, mergeDue = time.Now(), false
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(checkpointEvery):
		}
	}
}

// checkpoint copies the WAL's committed frames into the database file. A failed checkpoint
// loses nothing (the frames stay in the WAL, and the next one or the writer's backstop copies
// them), so it is only logged.
func (u *upkeep) checkpoint(ctx context.Context) {
	if _, err := u.ckpt.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil && ctx.Err() == nil {
		slog.Warn("background checkpoint failed", "err", err)
	}
}

// merge runs bounded FTS5 merge steps on each table until one finds nothing to merge: a step
// that worked changes at least two rows (FTS5's own test, on total_changes), and each step is
// its own statement on the writer, so requests wait for one step at most.
func (u *upkeep) merge(ctx context.Context) (worked bool, err error) {
	for _, table := range ftsTables {
		for range mergeSteps {
			w, err := u.mergeStep(ctx, table)
			if err != nil {
				return worked, err
			}
			if !w {
				break
			}
			worked = true
		}
	}
	return worked, nil
}

func (u *upkeep) mergeStep(ctx context.Context, table string) (bool, error) {
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
	if _, err := conn.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`, rank) VALUES ('merge', $1)`, mergePages); err != nil {
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
	return u.ckpt.Close()
}
