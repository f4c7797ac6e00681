package store

import (
	"context"
	"io/fs"
	"time"

	"github.com/pressly/goose/v3"
)

// MigrateForTest moves the store's schema up or down to version.
func (s *Store) MigrateForTest(ctx context.Context, version int64) error {
	fsys, err := fs.Sub(migrations, "migrations/"+string(s.engine))
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	if s.engine == Postgres {
		dialect = goose.DialectPostgres
	}
	p, err := goose.NewProvider(dialect, s.write, fsys)
	if err != nil {
		return err
	}
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return err
	}
	if version < current {
		_, err = p.DownTo(ctx, version)
	} else {
		_, err = p.UpTo(ctx, version)
	}
	return err
}

// KeptStmtsForTest is how many statements the SQLite writer keeps prepared between transactions.
func (s *Store) KeptStmtsForTest() int {
	if s.kept == nil {
		return 0
	}
	s.kept.mu.Lock()
	defer s.kept.mu.Unlock()
	return len(s.kept.kept)
}

// MaxKeptStmts is maxKeptStmts, for tests.
const MaxKeptStmts = maxKeptStmts

// FileForTest is the SQLite database file ("" on PostgreSQL).
func (s *Store) FileForTest() string { return s.file }

// SweepBatchForTest sets how many events one sweep transaction deletes, returning the old bound.
func SweepBatchForTest(n int64) int64 {
	old := sweepBatch
	sweepBatch = n
	return old
}

// SkipBackgroundIndexForTest keeps the upkeep loop from indexing search entries until the test
// ends, so they stay above the trigram indexes' mark as a crash would leave them.
func SkipBackgroundIndexForTest(t interface{ Cleanup(func()) }) {
	backgroundIndexOff.Store(true)
	t.Cleanup(func() { backgroundIndexOff.Store(false) })
}

// NextIndexBatchForTest is the background indexer's read of its next batch (its plan is pinned).
const NextIndexBatchForTest = nextBatchSQL

// SetWriteGraceForTest sets how long a PostgreSQL write outlives its request's cancellation
// (detachWrite) and returns the function that puts the default back.
func SetWriteGraceForTest(d time.Duration) (restore func()) {
	old := writeGrace
	writeGrace = d
	return func() { writeGrace = old }
}

// SetWriteTurnsForTest gives a PostgreSQL store n turns for its write transactions (writeSlots)
// and sets how long a write waits for one (writeTurnWait); it returns the function that puts the
// wait back.
func (s *Store) SetWriteTurnsForTest(n int, wait time.Duration) (restore func()) {
	s.writers = make(chan struct{}, n)
	old := writeTurnWait
	writeTurnWait = wait
	return func() { writeTurnWait = old }
}
