package store

import (
	"context"

	"github.com/quire-dev/quire/internal/dbquery"
)

// BeforeWalkQueryForTest is the statement a query runs before its walk on database db, for
// properties props and a pair sorted by sortProp.
func BeforeWalkQueryForTest(db string, props []string, sortProp string, byText bool) (string, []any) {
	return beforeWalkQuery(db, props, dbquery.PairWant{SortProperty: sortProp, ByText: byText}, true)
}

// QueryRecordsSQLForTest is QueryRecords with every statement's rows read through database/sql,
// as before pgRowsDB (the same as QueryRecords on SQLite).
func (s *Store) QueryRecordsSQLForTest(ctx context.Context, ws string, q dbquery.Query, pageSize int, numbers bool) (*RecordPage, error) {
	if s.engine != Postgres {
		return s.QueryRecords(ctx, ws, q, pageSize, numbers)
	}
	return s.queryRecords(ctx, s.read, s.read, ws, q, pageSize, numbers)
}

// RawQueryTextsForTest is how many walk texts pgRowsDB has read through pgRaw; 0 on SQLite.
func (s *Store) RawQueryTextsForTest() int64 {
	if s.pg == nil {
		return 0
	}
	return s.pg.queryTexts.n.Load()
}
