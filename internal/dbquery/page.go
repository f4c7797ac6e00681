package dbquery

import (
	"context"
	"database/sql"
	"errors"

	"github.com/quire-dev/quire/internal/sqlq"
)

// Queryer is what Page needs of a *sql.DB, *sql.Conn or *sql.Tx.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Scanner is a statement's current row: database/sql's *sql.Rows, or the store's own.
type Scanner = sqlq.Scanner

// Page runs q on db and returns the ids of at most pageSize records after q.After, in the
// query's order, with the position to continue from when more follow (nil at the end).
//
// It first runs the query's probes (see Probes) until one finds a selective condition: then one
// statement reads and sorts the records that match it (Query.Narrow). Otherwise one statement
// walks an index in the query's order, or two on the page where a sort property's values run
// out. Pass a read transaction as db for one snapshot across these statements.
func Page(ctx context.Context, db Queryer, d Dialect, q Query, pageSize int) ([]string, *Position, error) {
	if pageSize < 1 {
		return nil, nil, errors.New("dbquery: pageSize must be at least 1")
	}
	if q.Within == nil && q.Narrow == nil && q.Filter != nil {
		c, n, ok, err := narrow(ctx, db, d, q, pageSize)
		if err != nil {
			return nil, nil, err
		}
		if ok && n == 0 {
			return []string{}, nil, nil
		}
		if ok {
			q.Narrow = c
		}
	}
	want := pageSize + 1
	var got []Position
	for {
		q.Limit = want - len(got)
		st, err := Compile(d, q)
		if err != nil {
			return nil, nil, err
		}
		n, err := st.run(ctx, db, &got)
		if err != nil {
			return nil, nil, err
		}
		if n == q.Limit || st.Then == nil {
			break
		}
		q.After = st.Then
	}
	ids := make([]string, 0, min(len(got), pageSize))
	for i := 0; i < len(got) && i < pageSize; i++ {
		ids = append(ids, got[i].ID)
	}
	if len(got) <= pageSize {
		return ids, nil, nil
	}
	next := got[pageSize-1]
	return ids, &next, nil
}

// Fetch has the statements that walk an index in the query's order (a sort property's, a
// pair's) select Columns of each record's nodes row n after the id and the sort keys, and hands
// each row to Row: the page's records are read by the walk that already looked each one up,
// instead of by a second statement of a hundred ids (a third of the query's CPU on SQLite, a
// round trip on PostgreSQL). The statements that sort their rows (several sorts, a selective
// condition read first) and those after a walk ran out leave the columns out, since SQLite would
// carry every column of every matching record through its sorter: Row may see all of a page's
// records, some or none (and the one past the page), and the caller reads the rest by id.
type Fetch struct {
	Columns string // "n.title, …": the record's id is the row's first column already
	// Row reads the current row: it calls scan once with the destinations of Columns, which
	// returns the record's id (read once, for the position and the record).
	Row func(scan func(dest ...any) (id string, err error)) error
}

// fetching is the select list's tail for q.Fetch in a statement that walks an index in order.
func (c *compiler) fetching(q Query) string {
	if q.Fetch == nil || q.Fetch.Columns == "" {
		return ""
	}
	c.fetch = q.Fetch
	return ", " + q.Fetch.Columns
}

// rowReader reads a statement's rows: one per run, so that handing a row's columns to Fetch.Row
// costs no allocation (a closure per row, and the position it captured, were two).
type rowReader struct {
	st      *Stmt
	rows    Scanner
	slab    rowSlab
	scanFn  func(dest ...any) (string, error) // r.scan, bound once
	p       Position
	scanned bool
}

// scan is the scan Fetch.Row calls: the row's id and keys into r.p, its other columns into dest.
func (r *rowReader) scan(dest ...any) (string, error) {
	r.scanned = true
	var err error
	r.p, err = r.st.scanWith(r.rows, dest, &r.slab)
	return r.p.ID, err
}

// next reads the current row as a position and, when st fetches, hands its columns to Row.
func (r *rowReader) next() (Position, error) {
	if r.st.fetch == nil {
		return r.st.scanWith(r.rows, nil, &r.slab)
	}
	r.scanned = false
	err := r.st.fetch.Row(r.scanFn)
	if err == nil && !r.scanned {
		err = errors.New("dbquery: Fetch.Row did not scan the row")
	}
	return r.p, err
}

// run appends the positions of st's rows to out and returns how many it read.
func (st *Stmt) run(ctx context.Context, db Queryer, out *[]Position) (int, error) {
	r := &rowReader{st: st}
	r.scanFn = r.scan
	n := 0
	each := func(sc Scanner) error {
		r.rows = sc
		p, err := r.next()
		if err != nil {
			return err
		}
		*out = append(*out, p)
		n++
		return nil
	}
	// Through db's QueryRows when db is a sqlq.RowQueryer (the store on PostgreSQL), else
	// through database/sql.
	err := sqlq.EachRow(ctx, db, st.SQL, st.Args, each)
	return n, err
}
