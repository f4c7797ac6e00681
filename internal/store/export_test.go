package store

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/pressly/goose/v3"
)

// RowsForTest runs a query on the read pool and returns each row's columns joined by "|".
func (s *Store) RowsForTest(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out, rows.Err()
}

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
