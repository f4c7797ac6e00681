package store

import (
	"context"
	"database/sql"
)

// ReadTxForTest begins the read transaction a request of several statements reads in (readTx).
func (s *Store) ReadTxForTest(ctx context.Context) (*sql.Tx, error) { return s.readTx(ctx) }

// GroupsForTest reports whether writers share COMMITs (SQLite), and the group COMMITs run.
func (s *Store) GroupsForTest() (bool, int64) {
	if s.writer == nil {
		return false, 0
	}
	return true, s.writer.commits.Load()
}

// WritersWaitingForTest is the writers waiting for SQLite's write turn.
func (s *Store) WritersWaitingForTest() int { return int(s.writer.waiting.Load()) }
