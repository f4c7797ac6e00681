package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Snapshot is a read-only view of the whole store as of one moment, for a backup: on SQLite a
// read transaction (in WAL mode, writers go on and it keeps seeing the moment it began); on
// PostgreSQL a REPEATABLE READ READ ONLY transaction. Every write committed before the
// snapshot began is in it, and no part of a later one.
type Snapshot struct {
	tx *sql.Tx
}

// ReadSnapshot runs fn inside one snapshot. The snapshot is taken before fn is called (the
// schema version is read first), so a write acknowledged before ReadSnapshot was called is
// seen by fn.
func (s *Store) ReadSnapshot(ctx context.Context, fn func(sn *Snapshot, schemaVersion int64) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.engine == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	} else {
		// The read pool is query_only already; SQLite's BEGIN takes no read-only option.
		opts = nil
	}
	tx, err := s.read.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin snapshot: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only: nothing to keep or lose
	// SQLite (deferred BEGIN) and PostgreSQL (REPEATABLE READ) both fix the snapshot at the
	// first statement, which is this one.
	v, err := schemaVersion(ctx, tx)
	if err != nil {
		return err
	}
	return fn(&Snapshot{tx: tx}, v)
}

// Query runs a read in the snapshot.
func (sn *Snapshot) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return sn.tx.QueryContext(ctx, query, args...)
}

// SchemaVersion is the number of the last migration applied to the store.
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	return schemaVersion(ctx, s.read)
}

func schemaVersion(ctx context.Context, q querier) (int64, error) {
	var v int64
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// Query runs a read in the write transaction (a restore checks what it wrote).
func (tx *Tx) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return tx.tx.QueryContext(ctx, query, args...)
}

// Load runs one statement of a bulk load (a restore) in the transaction, unprepared: its
// multi-row texts are used once and would only crowd the statement cache.
func (tx *Tx) Load(ctx context.Context, query string, args ...any) error {
	_, err := tx.tx.execUncached(ctx, query, args...)
	return err
}

// Analyze refreshes PostgreSQL's planner statistics after a bulk load, which would otherwise
// wait for autovacuum; on SQLite it does nothing.
func (s *Store) Analyze(ctx context.Context) error {
	if s.engine != Postgres {
		return nil
	}
	_, err := s.write.ExecContext(ctx, `ANALYZE`)
	return err
}
