package store

import (
	"context"
	"database/sql"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// NumberProperty is the record_values pseudo-property holding each record's number (the
// unique_id a database gives its records in creation order). It is kept for every record,
// so that a unique_id property added later copies the numbers in one statement.
const NumberProperty = "#n"

// RecordValue is one record_values row (see internal/dbquery for what each type stores).
type RecordValue struct {
	PropertyID string
	Ord        int
	Text       *string
	Num        *float64
}

// InsertRecordValues stores rows of record recordID of database db (InsertRows for one record).
func (tx *Tx) InsertRecordValues(ctx context.Context, db, recordID string, rows []RecordValue) error {
	return tx.InsertRows(ctx, db, []RecordRows{{RecordID: recordID, Rows: rows}})
}

func nullText(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func nullNum(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// ReplacePropertyValues replaces the rows of one property of record recordID with rows, when
// database db keeps that property's rows.
func (tx *Tx) ReplacePropertyValues(ctx context.Context, db, recordID, propertyID string, rows []RecordValue) error {
	if kept, err := tx.IsIndexed(ctx, db, propertyID); err != nil || !kept {
		return err
	}
	if _, err := tx.tx.ExecContext(ctx, `DELETE FROM record_values WHERE record_id = $1 AND property_id = $2`,
		recordID, propertyID); err != nil {
		return err
	}
	return tx.InsertRecordValues(ctx, db, recordID, rows)
}

// Statements on a database's rows of one property. Each index of record_values holds only the
// rows that have its column (migration 00011), so each says so to be read on that index;
// every row has a text or a number.
const (
	dropTextRows = `DELETE FROM record_values WHERE database_id = $1 AND property_id = $2 AND v_text IS NOT NULL`
	dropNumRows  = `DELETE FROM record_values WHERE database_id = $1 AND property_id = $2 AND v_num IS NOT NULL`
	copyNumbers  = `INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num)
		SELECT database_id, record_id, $2, 0, NULL, v_num FROM record_values WHERE database_id = $1 AND property_id = $3 AND v_num IS NOT NULL`
	// The highest number (NULL when there is none) as the first row of a backward read of
	// record_values_num, not MAX(): PostgreSQL plans MAX() as an aggregate over every row of the
	// property when it guesses one row, as it does before a growing table is first analysed (a
	// database seeded from empty), and then read all of them on record_values_text, under the
	// database's lock, once per batch (docs/performance.md, "Seeding on PostgreSQL, sixth pass").
	// With the ORDER BY, record_values_num is the only index that spares a sort, whatever the
	// statistics.
	maxNumber = `SELECT (SELECT v_num FROM record_values WHERE database_id = $1 AND property_id = $2 AND v_num IS NOT NULL
		ORDER BY v_num DESC LIMIT 1)`
)

// DropPropertyValues deletes every row of property propertyID in database db, on the
// property's range of each index.
func (tx *Tx) DropPropertyValues(ctx context.Context, db, propertyID string) error {
	if err := tx.dropPairsOf(ctx, db, propertyID); err != nil {
		return err
	}
	for _, q := range []string{dropTextRows, dropNumRows} {
		if _, err := tx.tx.ExecContext(ctx, q, db, propertyID); err != nil {
			return err
		}
	}
	return nil
}

// CopyRecordNumbers gives unique_id property propertyID of database db the number of every
// record, in one statement, when the database keeps that property's rows.
func (tx *Tx) CopyRecordNumbers(ctx context.Context, db, propertyID string) error {
	if kept, err := tx.IsIndexed(ctx, db, propertyID); err != nil || !kept {
		return err
	}
	_, err := tx.tx.ExecContext(ctx, copyNumbers, db, propertyID, NumberProperty)
	return err
}

// NextRecordNumber is the number the next record of database db gets: one more than the
// highest given so far, read from the end of the number index. Callers hold the database's
// row lock (LockNode), so two records never get the same number.
func (tx *Tx) NextRecordNumber(ctx context.Context, db string) (int64, error) {
	var n sql.NullFloat64
	err := tx.tx.QueryRowContext(ctx, maxNumber, db, NumberProperty).Scan(&n)
	return int64(n.Float64) + 1, err
}

// RecordNumbers returns the numbers of records ids (missing ones are left out).
func (s *Store) RecordNumbers(ctx context.Context, ids []string) (map[string]int64, error) {
	return recordNumbers(ctx, s.read, ids)
}

// RecordNumbers is Store.RecordNumbers inside the transaction.
func (tx *Tx) RecordNumbers(ctx context.Context, ids []string) (map[string]int64, error) {
	return recordNumbers(ctx, tx.tx, ids)
}

func recordNumbers(ctx context.Context, q querier, ids []string) (map[string]int64, error) {
	out := make(map[string]int64, len(ids))
	err := queryIn(ctx, q, ids, false, func(a *sqlq.Args, batch []string) string {
		return `SELECT record_id, v_num FROM record_values
			WHERE property_id = ` + a.Arg(NumberProperty) + ` AND ord = 0 AND record_id IN (` + sqlq.In(a, batch) + `)`
	}, func(rows *sql.Rows) error {
		var id string
		var n float64
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		out[id] = int64(n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Nodes returns the nodes ids of workspace ws in the order of ids (missing ones are left out).
func (s *Store) Nodes(ctx context.Context, ws string, ids []string) ([]*quire.Node, error) {
	return nodesByID(ctx, s.read, ws, ids, "", fullNode)
}

// Nodes is Store.Nodes inside the transaction.
func (tx *Tx) Nodes(ctx context.Context, ws string, ids []string) ([]*quire.Node, error) {
	return nodesByID(ctx, tx.tx, ws, ids, "", fullNode)
}

// nodesByID reads nodes ids as rd reads them; lock, when not empty, ends each statement (lockRows).
func nodesByID(ctx context.Context, q querier, ws string, ids []string, lock string, rd nodeRead) ([]*quire.Node, error) {
	byID := make(map[string]*quire.Node, len(ids))
	err := queryIn(ctx, q, ids, false, func(a *sqlq.Args, batch []string) string {
		// The workspace is checked here rather than in SQL: with "workspace_id = $1" beside
		// the id list, SQLite may walk a workspace index (every node) instead of the primary key.
		return `SELECT ` + rd.columns + ` FROM nodes WHERE id IN (` + sqlq.In(a, batch) + `)` + lock
	}, func(rows *sql.Rows) error {
		n, err := rd.scan(rows)
		if err == nil && n.WorkspaceID == ws {
			byID[n.ID] = n
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]*quire.Node, 0, len(ids))
	for _, id := range ids {
		if n, ok := byID[id]; ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// RecordPage is one page of a database query: the records in order, their numbers, and the
// position to continue from (nil on the last page).
type RecordPage struct {
	Records []*quire.Node
	Numbers map[string]int64
	Next    *dbquery.Position
}

// fetchColumns are recordColumns of the nodes row n but the id (the walk's row begins with it),
// for dbquery.Fetch: a second copy of it was two allocations per record. Four of them hold the
// same value in every record a walk passes: the object, the page type and the parent type of a
// database's record, and its parent, which the walk requires to be its $1 (dbquery's nodeScope).
// Each is read as NULL when it has that value, which recordScan.node restores: a text the driver
// returns is a copy and a box per row and column (800 of a page's 4,200 allocations), a NULL is
// neither. A value that differs still comes through as it is. The order is recordColumns'.
var fetchColumns = `n.workspace_id, NULLIF(n.object, '` + quire.ObjectPage + `'), NULLIF(n.page_type, '` +
	quire.PageTypePage + `'), NULLIF(n.parent_type, '` + quire.ParentDatabase + `'), NULLIF(n.parent_id, $1),
	n.properties, n.icon, n.cover, n.in_trash, n.created_ms, n.created_by, n.edited_ms, n.edited_by`

// recordsFetched is recordsByID (as a query answers records: queryRecord) for a page whose walk
// read some of its records already.
func recordsFetched(ctx context.Context, q querier, ws string, ids []string, fetched map[string]*quire.Node, numbers bool) ([]*quire.Node, map[string]int64, error) {
	var missing []string
	for _, id := range ids {
		if fetched[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) == len(ids) {
		return recordsByID(ctx, q, ws, ids, numbers, "", queryRecord)
	}
	if len(missing) > 0 {
		rest, err := nodesByID(ctx, q, ws, missing, "", queryRecord)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range rest {
			fetched[n.ID] = n
		}
	}
	out := make([]*quire.Node, 0, len(ids))
	for _, id := range ids {
		if n := fetched[id]; n != nil {
			out = append(out, n)
		}
	}
	if !numbers {
		return out, map[string]int64{}, nil
	}
	nums, err := recordNumbers(ctx, q, ids)
	return out, nums, err
}

// RecordsByID returns the nodes ids of workspace ws in the order of ids (missing ones are
// left out) and, when numbers is set, the numbers of those that are records.
func (tx *Tx) RecordsByID(ctx context.Context, ws string, ids []string, numbers bool) ([]*quire.Node, map[string]int64, error) {
	return recordsByID(ctx, tx.tx, ws, ids, numbers, "", fullNode)
}

// LockRecordsByID is RecordsByID that also holds the nodes' rows until the transaction ends,
// as LockNode does, in the same statement: on PostgreSQL, a lock per record was a round trip
// per record of a mutation batch.
func (tx *Tx) LockRecordsByID(ctx context.Context, ws string, ids []string, numbers bool) ([]*quire.Node, map[string]int64, error) {
	return recordsByID(ctx, tx.tx, ws, ids, numbers, tx.lockRows(), fullNode)
}

// lockRows ends a SELECT on nodes that holds the rows it reads (PostgreSQL; SQLite has one
// writer already). OF nodes: the numbers' outer join cannot be locked, nor needs to be.
func (tx *Tx) lockRows() string {
	if tx.engine != Postgres {
		return ""
	}
	return " FOR UPDATE OF nodes"
}

// recordsByID is nodesByID and recordNumbers in one statement: a page of records is read
// with its numbers by primary key, a hundred per statement.
func recordsByID(ctx context.Context, q querier, ws string, ids []string, numbers bool, lock string, rd nodeRead) ([]*quire.Node, map[string]int64, error) {
	if !numbers {
		nodes, err := nodesByID(ctx, q, ws, ids, lock, rd)
		return nodes, map[string]int64{}, err
	}
	byID := make(map[string]*quire.Node, len(ids))
	nums := make(map[string]int64, len(ids))
	err := queryIn(ctx, q, ids, false, func(a *sqlq.Args, batch []string) string {
		// As in nodesByID, the workspace is checked here rather than in SQL.
		return `SELECT ` + rd.columns + `, num.v_num FROM nodes
			LEFT JOIN record_values num ON num.record_id = nodes.id AND num.property_id = ` + a.Arg(NumberProperty) + ` AND num.ord = 0
			WHERE nodes.id IN (` + sqlq.In(a, batch) + `)` + lock
	}, func(rows *sql.Rows) error {
		var num sql.NullFloat64
		n, err := rd.scan(rowWith{rows, &num})
		if err != nil || n.WorkspaceID != ws {
			return err
		}
		byID[n.ID] = n
		if num.Valid {
			nums[n.ID] = int64(num.Float64)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	out := make([]*quire.Node, 0, len(ids))
	for _, id := range ids {
		if n, ok := byID[id]; ok {
			out = append(out, n)
		}
	}
	return out, nums, nil
}

// rowWith scans a row's leading columns as a nodeRead's scan asks and its last one into extra.
type rowWith struct {
	rows  *sql.Rows
	extra any
}

func (r rowWith) Scan(dest ...any) error { return r.rows.Scan(append(dest, r.extra)...) }

// UsersExist reports which of ids are people of workspace ws.
func (tx *Tx) UsersExist(ctx context.Context, ws string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		var ok bool
		if err := tx.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE id = $1 AND workspace_id = $2)`,
			id, ws).Scan(&ok); err != nil {
			return nil, err
		}
		out[id] = ok
	}
	return out, nil
}
