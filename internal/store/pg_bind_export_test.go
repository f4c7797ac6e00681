package store

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// ExecBoundForTest runs query with args through Tx.execBound (pg_bind.go); false when it left
// the statement to database/sql.
func (tx *Tx) ExecBoundForTest(ctx context.Context, query string, args []any) (bool, error) {
	return tx.execBound(ctx, query, args)
}

// EncodeBindForTest is the Bind, Execute and Sync execBound sends for args to a statement
// named name whose parameters have types oids.
func EncodeBindForTest(name string, oids []uint32, args []any) ([]byte, error) {
	m, err := newBindExecute(&pgconn.StatementDescription{Name: name, ParamOIDs: oids}, args)
	if err != nil {
		return nil, err
	}
	return m.Encode(make([]byte, 0, 16))
}
