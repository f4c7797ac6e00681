package store

import (
	"context"
	"database/sql"
)

// ReadTxForTest begins the read transaction a request of several statements reads in (readTx).
func (s *Store) ReadTxForTest(ctx context.Context) (*sql.Tx, error) { return s.readTx(ctx) }

// DeferForTest runs query at the transaction's end, as the store's own deferred statements
// (deferToCommit): on PostgreSQL only; SQLite defers nothing.
func (tx *Tx) DeferForTest(query string, args ...any) { tx.deferToCommit(query, args...) }
