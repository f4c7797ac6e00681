package store

import "context"

// RawScanForTest reads the one row of query through SQLite's raw reads (sqlite_raw.go) into
// dest; false when the store has none (PostgreSQL).
func (s *Store) RawScanForTest(ctx context.Context, query string, args []string, dest ...any) (bool, error) {
	if s.raw == nil {
		return false, nil
	}
	return true, s.raw.one(ctx, query, args, func(r rawRow) error { return r.Scan(dest...) })
}

// ScanForTest reads the one row of query through database/sql's read pool into dest.
func (s *Store) ScanForTest(ctx context.Context, query string, args []any, dest ...any) error {
	return s.read.QueryRowContext(ctx, query, args...).Scan(dest...)
}

// MmapSizesForTest reads PRAGMA mmap_size on a connection of SQLite's lookups pool and on one of
// its listings pool (sqlite_raw.go); ok is false when the store has none (PostgreSQL).
// cache is the lookups connection's PRAGMA cache_size.
func (s *Store) MmapSizesForTest(ctx context.Context) (lookups, listings, cache int64, ok bool, err error) {
	if s.raw == nil {
		return 0, 0, 0, false, nil
	}
	// Every connection of a pool is opened alike, so two reads may take two connections.
	if err := s.lookups.one(ctx, `PRAGMA mmap_size`, nil, func(r rawRow) error { return r.Scan(&lookups) }); err != nil {
		return 0, 0, 0, true, err
	}
	if err := s.lookups.one(ctx, `PRAGMA cache_size`, nil, func(r rawRow) error { return r.Scan(&cache) }); err != nil {
		return 0, 0, 0, true, err
	}
	err = s.raw.one(ctx, `PRAGMA mmap_size`, nil, func(r rawRow) error { return r.Scan(&listings) })
	return lookups, listings, cache, true, err
}
