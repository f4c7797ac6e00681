package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// QueryRecords runs a compiled database query (internal/dbquery). It answers a
// *NotIndexedError when the query reads properties whose rows the database does not keep yet.
// Numbers are read when numbers is set (the caller shows a unique_id property).
//
// On SQLite its statements run in one read transaction, so that they and the read of the
// records see one snapshot. On PostgreSQL they run on the pool without one: at READ COMMITTED
// each statement of a transaction takes its own snapshot anyway, so BEGIN and COMMIT bought
// nothing but two of the query's seven round trips. What the statements rely on holds across
// snapshots: a property once built stays built (until the schema drops it), and a pair's rows
// are committed with its key.
func (s *Store) QueryRecords(ctx context.Context, ws string, q dbquery.Query, pageSize int, numbers bool) (*RecordPage, error) {
	if s.engine == Postgres {
		return s.queryRecords(ctx, s.rowsDB(&s.pg.queryTexts, &maxRawQueryTexts), s.read, ws, q, pageSize, numbers)
	}
	if s.found != nil && s.found.pending() {
		s.found.prepare(ctx) // before the transaction takes its connection, as Search does
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// The query's own statements run prepared on SQLite (foundTx): compiling them on every call
	// was a tenth of the query's CPU. The read of records by id is left out: its text varies
	// with the number of ids, and the walk reads most pages' records itself.
	var db queryRower = tx
	if s.found != nil {
		db = foundTx{tx, s.found}
	}
	page, err := s.queryRecords(ctx, db, tx, ws, q, pageSize, numbers)
	if err != nil {
		return nil, err
	}
	return page, tx.Commit()
}

// queryRower runs a query's own statements: the transaction (prepared through foundTx on
// SQLite) or PostgreSQL's pool.
type queryRower interface {
	dbquery.Queryer
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// maxRawQueryTexts bounds the texts of database queries' walks read through pgRaw
// (pgRowsDB): they vary with the filter, the sorts and the cursor.
var maxRawQueryTexts int64 = 256

// queryRecords is QueryRecords on db (its statements) and byID (the read of records by id).
func (s *Store) queryRecords(ctx context.Context, db queryRower, byID querier, ws string, q dbquery.Query, pageSize int, numbers bool) (*RecordPage, error) {
	missing, pair, err := beforeWalk(ctx, db, q)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, &NotIndexedError{DatabaseID: q.DatabaseID, Properties: missing}
	}
	if q.Pair = pair; q.Pair == nil {
		s.wantPair(q)
	}
	if q.Records == 0 && dbquery.Probed(q) {
		// The highest record number bounds how many records the database holds, read from the
		// end of the number index: Page weighs its probes' counts against it.
		var n sql.NullFloat64
		if err := db.QueryRowContext(ctx, maxNumber, q.DatabaseID, NumberProperty).Scan(&n); err != nil {
			return nil, err
		}
		q.Records = max(1, int(n.Float64))
	}
	// The walk reads each record's nodes row as it passes it; the records it did not (a sorted
	// plan's) are read by id after.
	fetched := make(map[string]*quire.Node, pageSize+1)
	sc := newRecordScan()
	sc.parent = q.DatabaseID
	q.Fetch = &dbquery.Fetch{Columns: fetchColumns, Row: func(scan func(dest ...any) (string, error)) error {
		n, err := sc.fetched(scan)
		if err == nil && n.WorkspaceID == ws {
			fetched[n.ID] = n
		}
		return err
	}}
	ids, next, err := dbquery.Page(ctx, db, dbquery.Dialect(s.engine), q, pageSize)
	if err != nil {
		return nil, err
	}
	nodes, nums, err := recordsFetched(ctx, byID, ws, ids, fetched, numbers)
	if err != nil {
		return nil, err
	}
	return &RecordPage{Records: nodes, Numbers: nums, Next: next}, nil
}

// beforeWalk reads in one statement what query q needs before its walk: which of the
// properties it reads are not built yet (record_indexed), and the registered pair that answers
// it (record_pair_keys), each part on its table's key (TestBeforeWalkPlans). Two statements
// were two round trips of the query's seven on PostgreSQL.
func beforeWalk(ctx context.Context, db dbquery.Queryer, q dbquery.Query) (missing []string, pair *dbquery.Pair, err error) {
	props := dbquery.ValueProperties(q)
	want, pairable := dbquery.PairWanted(q)
	query, args := beforeWalkQuery(q.DatabaseID, props, want, pairable)
	if query == "" {
		return nil, nil, nil
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	pairs := map[string]int64{}
	for rows.Next() {
		var kind int
		var prop string
		var id int64
		if err := rows.Scan(&kind, &prop, &id); err != nil {
			return nil, nil, err
		}
		if kind == 0 {
			props = slices.DeleteFunc(props, func(x string) bool { return x == prop })
		} else {
			pairs[prop] = id
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(props) > 0 || !pairable {
		return props, nil, nil
	}
	return nil, want.Choose(pairs), nil
}

// beforeWalkQuery is beforeWalk's statement for database db: rows (0, a built property of
// props) and (1, filter property, pair id) of the pairs want could use; "" when neither part
// applies.
func beforeWalkQuery(db string, props []string, want dbquery.PairWant, pairable bool) (string, []any) {
	var parts []string
	a := sqlq.NewArgs(db)
	if pairable {
		// PairKeysQuery's $2 and $3 are the second and third arguments here too.
		a.Arg(want.SortProperty)
		a.Arg(want.ByText)
		parts = append(parts, strings.Replace(dbquery.PairKeysQuery, "SELECT ", "SELECT 1, ", 1))
	}
	// One part per property, each a seek of record_indexed's key, rather than one part with
	// "property_id IN (…)": SQLite reads an IN list of two or more values from an ephemeral
	// index it builds per execution (a B-tree of its own, opened, filled and freed on every
	// query), which a query reading two properties paid on every call.
	for _, p := range props {
		parts = append(parts, `SELECT 0, property_id, 0 FROM record_indexed WHERE database_id = $1 AND property_id = `+
			a.Arg(p)+` AND lease_ms = 0`)
	}
	return strings.Join(parts, "\nUNION ALL\n"), a.List
}
