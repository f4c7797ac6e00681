package store

import (
	"context"
	"database/sql"
)

// ReadTxForTest begins the read transaction a request of several statements reads in (readTx).
func (s *Store) ReadTxForTest(ctx context.Context) (*sql.Tx, error) { return s.readTx(ctx) }
