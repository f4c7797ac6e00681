package store

import "context"

// PGRawScanForTest reads the one row of query through PostgreSQL's pgRaw (pg_raw.go) into dest;
// false when the store has none (SQLite).
func (s *Store) PGRawScanForTest(ctx context.Context, query string, args []string, dest ...any) (bool, error) {
	if s.pg == nil {
		return false, nil
	}
	return true, s.pg.one(ctx, query, args, func(r *pgRow) error { return r.Scan(dest...) })
}
