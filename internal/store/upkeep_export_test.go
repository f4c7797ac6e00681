package store

import "context"

// ConsolidateDueForTest reports whether the upkeep would merge FTS5 table into one segment now
// (upkeep.consolidate); SQLite only.
func (s *Store) ConsolidateDueForTest(ctx context.Context, table string) (bool, error) {
	return s.upkeep.consolidate(ctx, table)
}
