package store

import (
	"context"
	"time"
)

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

// YieldForTest sets how long the upkeep waits for the requests in flight before each piece of
// work, and the tail at which it stops waiting, until the test ends; YieldsForTest is how many
// times it has begun to wait for them (SQLite only).
func YieldForTest(t interface{ Cleanup(func()) }, maxWait time.Duration, tailMax int64) {
	w, n := yieldMaxWait, yieldTailMax
	yieldMaxWait, yieldTailMax = maxWait, tailMax
	t.Cleanup(func() { yieldMaxWait, yieldTailMax = w, n })
}

func (s *Store) YieldsForTest() int64 { return s.upkeep.yields.Load() }
