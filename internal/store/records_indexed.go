package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// Indexed properties (migration 00026): a database keeps record_values rows only for the
// properties registered in record_indexed, those a query or a view has filtered or sorted on,
// and for the record number (NumberProperty), always. Every other property's value lives only
// in the record's stored JSON, which is what a seeding batch saves: an entry of a value index at
// a random place per property per record was most of its serial write.
//
// The invariant every writer keeps: a property with rows is registered, and a registered
// property that is built (lease_ms 0) has the rows of every record's values. A property is
// registered as building in a short transaction (ClaimIndexing), from which on every writer
// writes its rows; the records that existed then get theirs in batches, each its own short
// transaction that rewrites a batch's rows from the records' stored values read inside it
// (Service.indexProperties); the last marks it built. A query that reads a property not built
// is answered only after that.
//
// Concurrent writers on PostgreSQL: a writer of a database's rows takes a shared transaction
// advisory lock of the database before it reads which properties are registered (indexedOf), and
// a registration, and each batch of its build, takes it exclusively before it reads the
// database's schema and records. So a writer either committed before the registration reads the
// record ids (and the record is built from its stored values) or reads the registration after
// it committed (and writes the new property's rows itself); and a batch reads each record's
// values with no writer between its read and its rows, so it never writes older values over a
// writer's newer rows.
// SQLite has one writer, so its transactions are in one order already.

// NotIndexedError is what QueryRecords answers when the query reads properties that are not
// registered yet: the caller registers them (and writes their rows), then asks again.
type NotIndexedError struct {
	DatabaseID string
	Properties []string
}

func (e *NotIndexedError) Error() string {
	return fmt.Sprintf("properties %s of database %s are not indexed", strings.Join(e.Properties, ", "), e.DatabaseID)
}

// indexedQuery reads the registered properties of database $1 on record_indexed's primary key
// (TestIndexedPlans).
const indexedQuery = `SELECT property_id FROM record_indexed WHERE database_id = $1`

// lockIndexed holds database db's indexing lock until the transaction ends, shared or
// exclusive (PostgreSQL; SQLite has one writer).
func (tx *Tx) lockIndexed(ctx context.Context, db string, exclusive bool) error {
	if tx.engine != Postgres {
		return nil
	}
	fn := "pg_advisory_xact_lock_shared"
	if exclusive {
		fn = "pg_advisory_xact_lock"
	}
	_, err := tx.tx.ExecContext(ctx, `SELECT `+fn+`(hashtextextended($1, 0))`, "indexed:"+db)
	return err
}

// indexedOf returns the properties of database db whose rows are kept, the record number
// among them, read once per transaction: on PostgreSQL the shared lock taken first keeps any
// registration of db out until the transaction ends, and on SQLite no other writer runs.
func (tx *Tx) indexedOf(ctx context.Context, db string) (map[string]bool, error) {
	if set, ok := tx.indexed[db]; ok {
		return set, nil
	}
	if err := tx.lockIndexed(ctx, db, false); err != nil {
		return nil, err
	}
	rows, err := tx.tx.QueryContext(ctx, indexedQuery, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set := map[string]bool{NumberProperty: true}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		set[p] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if tx.indexed == nil {
		tx.indexed = map[string]map[string]bool{}
	}
	tx.indexed[db] = set
	return set, nil
}

// IsIndexed reports whether property prop of database db keeps record_values rows: a schema
// change rewrites the rows of those only.
func (tx *Tx) IsIndexed(ctx context.Context, db, prop string) (bool, error) {
	set, err := tx.indexedOf(ctx, db)
	return set[prop], err
}

// keptRows returns the rows of recs whose properties database db keeps.
func (tx *Tx) keptRows(ctx context.Context, db string, recs []RecordRows) ([]RecordRows, error) {
	set, err := tx.indexedOf(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make([]RecordRows, 0, len(recs))
	for _, rec := range recs {
		kept := make([]RecordValue, 0, len(rec.Rows))
		for _, r := range rec.Rows {
			if set[r.PropertyID] {
				kept = append(kept, r)
			}
		}
		if len(kept) > 0 {
			out = append(out, RecordRows{RecordID: rec.RecordID, Rows: kept})
		}
	}
	return out, nil
}

// LockIndexing holds database db's indexing lock exclusively until the transaction ends: a
// registration takes it before it reads the schema and the records it writes rows from. It
// must be the transaction's first use of db's lock (a shared lock held first would be upgraded
// while other writers wait for it).
func (tx *Tx) LockIndexing(ctx context.Context, db string) error {
	if _, ok := tx.indexed[db]; ok && tx.engine == Postgres {
		return fmt.Errorf("store: the indexing lock of %s is taken after its shared lock", db)
	}
	return tx.lockIndexed(ctx, db, true)
}

// ClaimIndexing registers properties props of database db, under LockIndexing, as building
// with a builder's lease until leaseMs, and returns those the caller now builds (new ones, and
// building ones whose lease expired before nowMs: their builder died) and those another builder
// holds (building, lease alive), which the caller waits for. Writers keep the rows of a building
// property from this commit on (indexedOf lists it), so the build only writes those of the
// records that existed then, a batch per transaction (WriteIndexedBatch).
func (tx *Tx) ClaimIndexing(ctx context.Context, db string, props []string, nowMs, leaseMs int64) (claimed, held []string, err error) {
	if _, err := tx.indexedOf(ctx, db); err != nil {
		return nil, nil, err
	}
	for _, p := range props {
		var lease int64
		err := tx.tx.QueryRowContext(ctx, `SELECT lease_ms FROM record_indexed WHERE database_id = $1 AND property_id = $2`, db, p).Scan(&lease)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.tx.ExecContext(ctx, `INSERT INTO record_indexed (database_id, property_id, created_ms, lease_ms)
				VALUES ($1, $2, $3, $4)`, db, p, nowMs, leaseMs)
			tx.indexed[db][p] = true
		case err != nil:
		case lease == 0:
			continue
		case lease > nowMs:
			held = append(held, p)
			continue
		default:
			_, err = tx.tx.ExecContext(ctx, `UPDATE record_indexed SET lease_ms = $3 WHERE database_id = $1 AND property_id = $2`, db, p, leaseMs)
		}
		if err != nil {
			return nil, nil, err
		}
		claimed = append(claimed, p)
	}
	return claimed, held, nil
}

// RegisterIndexed registers properties props of database db as built, under LockIndexing, and
// returns those that were not registered yet: the caller writes their rows in the same
// transaction (seeding a database it creates, the tests' always-indexed databases).
func (tx *Tx) RegisterIndexed(ctx context.Context, db string, props []string) ([]string, error) {
	added, _, err := tx.ClaimIndexing(ctx, db, props, 0, 0)
	return added, err
}

// SetIndexingLease sets the lease of properties props of database db that are still building to
// leaseMs: a builder renews it with each batch, and marks them built with 0 after the last.
func (tx *Tx) SetIndexingLease(ctx context.Context, db string, props []string, leaseMs int64) error {
	a := sqlq.NewArgs(db, leaseMs)
	_, err := tx.tx.ExecContext(ctx, `UPDATE record_indexed SET lease_ms = $2 WHERE database_id = $1 AND lease_ms <> 0
		AND property_id IN (`+sqlq.In(a, props)+`)`, a.List...)
	return err
}

// recordIDsQuery reads a database's record ids on an index of nodes led by parent_id
// (TestRecordWalkPlans), unordered: ORDER BY id could make SQLite walk the id index over every
// node of the store instead; RecordIDs sorts them.
const recordIDsQuery = `SELECT id FROM nodes WHERE parent_id = $1 AND parent_type = 'database_id'`

// RecordIDs returns the ids of every record of database db (trashed ones too), in id order (the
// order they were made in): a registration, a schema change's reindex and an export read the
// records by these, a batch at a time on the primary key (RecordsIn). A walk in id order
// (parent_id = $1 AND id > $2 ORDER BY id LIMIT n) has no index to follow and read every record
// of the database once per batch: 200 reads of 100,000 records for a reindex of that size.
// Memory: the list is about 60 bytes a record (6 MB per 100,000).
func (tx *Tx) RecordIDs(ctx context.Context, db string) ([]string, error) {
	rows, err := tx.tx.QueryContext(ctx, recordIDsQuery, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, rows.Err()
}

// RecordsIn returns those of nodes ids of workspace ws that are records of database db, in the
// order of ids: a walk over RecordIDs' list a batch at a time, each read on the primary key
// (a record moved out of db since its id was read is left out).
func (tx *Tx) RecordsIn(ctx context.Context, ws, db string, ids []string) ([]*quire.Node, error) {
	nodes, err := tx.Nodes(ctx, ws, ids)
	return slices.DeleteFunc(nodes, func(n *quire.Node) bool {
		return n.ParentType != quire.ParentDatabase || n.ParentID != db
	}), err
}
