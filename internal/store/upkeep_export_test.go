package store

import "context"

// ConsolidateDueForTest reports whether the upkeep would merge FTS5 table into one segment now
// (upkeep.consolidate); SQLite only.
func (s *Store) ConsolidateDueForTest(ctx context.Context, table string) (bool, error) {
	return s.upkeep.consolidate(ctx, table)
}

// HoldWriterForTest takes the writer's only connection until release is called, as a queue of
// writers does; SQLite only.
func (s *Store) HoldWriterForTest(ctx context.Context) (release func(), err error) {
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return func() { conn.Close() }, nil
}

// KickUpkeepForTest tells the upkeep that a write committed, and CheckpointsForTest counts the
// checkpoints it has run; SQLite only.
func (s *Store) KickUpkeepForTest()        { s.upkeep.wrote() }
func (s *Store) CheckpointsForTest() int64 { return s.upkeep.ran.Load() }

// DeferTailForTest sets the tail at which the upkeep indexes while requests come, until the test
// ends; IndexBatchesForTest counts the index batches it has begun (SQLite only).
func DeferTailForTest(t interface{ Cleanup(func()) }, tailMax int64) {
	n := deferTailMax
	deferTailMax = tailMax
	t.Cleanup(func() { deferTailMax = n })
}

func (s *Store) IndexBatchesForTest() int64 { return s.upkeep.batches.Load() }

// PendingMergesForTest counts the merges of the trigram indexes' pending lists PostgreSQL's
// upkeep has run (pg_upkeep.go); PostgreSQL only.
func (s *Store) PendingMergesForTest() int64 { return s.pgUpkeep.ran.Load() }
