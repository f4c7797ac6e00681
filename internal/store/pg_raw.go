package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgRaw runs the reads every request makes on PostgreSQL (the token check, the token joined
// with a node's read, a node's read, a page of children) on the *pgx.Conn under one of
// database/sql's pooled connections (sql.Conn.Raw), reading each row's values as pgx received
// them. Through database/sql a children page of 101 rows spent more of its CPU in the
// conversions than in the round trip: pgx's stdlib driver turned each of 909 values into a
// driver.Value (a text through pgx's scan plans into a fresh string, an integer boxed), and
// database/sql converted each again in Scan, locking the connection for every row.
//
// The connections stay database/sql's: the pool's bound, its idle settings, PoolStats and
// /metrics, the ping of a connection idle for over a second before reuse (ResetSession, run
// by DB.Conn), and Close are all as before. Statements go through pgx's statement cache, as
// they did through the driver: prepared once per connection under the same names, so a text
// read both ways is prepared once. Nothing is kept between requests: each read is one statement
// outside a transaction, on its own snapshot.
type pgRaw struct {
	db      *sql.DB
	observe func(string) // Config.Observe, told each statement before it runs
	joins   sync.Map     // *joinedRead → its *joinedQueue (tokens_node_many.go)
	kids    sync.Map     // childrenKey → its *childrenQueue, while in flight (tokens_node_children_many.go)
	// searchTexts are the keyword search texts read through query (store/search.go, pgRowsDB).
	searchTexts textSet
	// queryTexts are the texts of database queries' walks read through query (pgRowsDB).
	queryTexts textSet
	// guesses are the tokens a keyword search is sent behind (tokens_search.go).
	guesses guesses
}

// query runs query with args and calls row for each row until it returns false or an error.
// The row's values are valid only during the call.
func (p *pgRaw) query(ctx context.Context, query string, args []any, row func(r *pgRow) (bool, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.observe != nil {
		p.observe(query)
	}
	given := false // whether row has been given a row: a retry would give it again
	err := p.once(ctx, query, args, func(r *pgRow) (bool, error) {
		given = true
		return row(r)
	})
	// A connection that broke before the statement was sent (PostgreSQL restarted under an
	// idle connection pinged less than a second ago), or before its answer was read to the
	// end (exchange), was dropped by database/sql; the read is tried once more on another, as
	// database/sql's own retry of a driver.ErrBadConn would. A read sent twice changes nothing,
	// but rows given from a broken answer cannot be taken back: then the error stands.
	if errors.Is(err, driver.ErrBadConn) && !given {
		err = p.once(ctx, query, args, row)
	}
	return err
}

func (p *pgRaw) once(ctx context.Context, query string, args []any, row func(r *pgRow) (bool, error)) error {
	params, text := textParams(args)
	return p.raw(ctx, func(conn *pgx.Conn) error {
		if text {
			return exchange(ctx, conn, nil, query, params, row)
		}
		rows, err := conn.Query(ctx, query, args...)
		if err != nil {
			return badConnIf(err)
		}
		return readRows(rows, row)
	})
}

// raw runs f on the pgx connection under one of database/sql's pooled connections.
func (p *pgRaw) raw(ctx context.Context, f func(conn *pgx.Conn) error) error {
	c, err := p.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		conn, err := pgxConn(dc)
		if err != nil {
			return err
		}
		return f(conn)
	})
}

// badConnIf marks a failure pgx says happened before anything was sent as driver.ErrBadConn:
// returned to database/sql, which then closes this connection instead of pooling it, and
// query tries the read once more.
func badConnIf(err error) error {
	if pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w: %w", driver.ErrBadConn, err)
	}
	return err
}

// readRows calls row for each of rows until it returns false or an error, and closes rows.
func readRows(rows pgx.Rows, row func(r *pgRow) (bool, error)) error {
	defer rows.Close()
	r := &pgRow{fds: rows.FieldDescriptions()}
	for rows.Next() {
		r.vals = rows.RawValues()
		more, err := row(r)
		if err != nil || !more {
			return err
		}
	}
	return rows.Err()
}

// pgStmt is one statement of a pgRaw pipeline and what reads its rows.
type pgStmt struct {
	query string
	args  []any
	row   func(r *pgRow) (bool, error)
}

// pipeline runs stmts in order in one round trip (pgx's batch: each statement's Bind and
// Execute, one Sync, sent in one write; the answers read back in order), each on its own
// snapshot as if run one after the other, and calls each one's row for its rows. A request
// that makes two reads pays for one write, one wait and one wake-up instead of two, on both
// sides of the socket. The statements run in one implicit transaction: an error in one
// stops the rest. Their texts go through pgx's statement cache, as query's do. start, if not
// nil, is called before each attempt (a pipeline that could not be sent is tried once more,
// as query's read is), so that what the rows are read into starts empty.
func (p *pgRaw) pipeline(ctx context.Context, start func(), stmts ...pgStmt) error {
	return p.send(ctx, stmts, func() bool { return true }, func(conn *pgx.Conn) error {
		if start != nil {
			start()
		}
		b := &pgx.Batch{}
		for _, st := range stmts {
			b.Queue(st.query, st.args...)
		}
		br := conn.SendBatch(ctx, b)
		for _, st := range stmts {
			rows, err := br.Query()
			if err != nil {
				br.Close()
				return badConnIf(err)
			}
			if err := readRows(rows, st.row); err != nil {
				br.Close()
				return err
			}
		}
		return br.Close()
	})
}

// send runs run, which sends stmts and reads their answers, on a raw connection, and once more
// on another when the first turned out broken and again says a second try is safe (as query's
// retry: no row was given from the broken one).
func (p *pgRaw) send(ctx context.Context, stmts []pgStmt, again func() bool, run func(conn *pgx.Conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.observe != nil {
		for _, st := range stmts {
			p.observe(st.query)
		}
	}
	err := p.raw(ctx, run)
	if errors.Is(err, driver.ErrBadConn) && again() {
		err = p.raw(ctx, run)
	}
	return err
}

// exchangeAll is pipeline through exchangeAll when every argument is a string or an integer:
// the statements' Binds written by the store, their rows read from pgx's buffer, without the
// timer and the encoding pgx's batch arms for each (exchange). Otherwise it is pipeline. start
// is called before each attempt, as pipeline's is; as query's, a read is tried again on
// another connection only when no row was given from the broken one.
func (p *pgRaw) exchangeAll(ctx context.Context, start func(), stmts ...pgStmt) error {
	ts := make([]textStmt, len(stmts))
	given := false
	for i, st := range stmts {
		params, text := textParams(st.args)
		if !text {
			return p.pipeline(ctx, start, stmts...)
		}
		row := st.row
		ts[i] = textStmt{st.query, params, func(r *pgRow) (bool, error) {
			given = true
			return row(r)
		}}
	}
	return p.send(ctx, stmts, func() bool { return !given }, func(conn *pgx.Conn) error {
		if start != nil {
			start()
		}
		return exchangeAll(ctx, conn, nil, ts)
	})
}

// pgxConn is the pgx connection under a database/sql driver connection, observed or not.
func pgxConn(dc any) (*pgx.Conn, error) {
	if o, ok := dc.(*observedConn); ok {
		dc = o.Conn
	}
	c, ok := dc.(*stdlib.Conn)
	if !ok {
		return nil, fmt.Errorf("store: %T is not a pgx connection", dc)
	}
	return c.Conn(), nil
}

// one reads the one row of query into scan, or answers sql.ErrNoRows.
func (p *pgRaw) one(ctx context.Context, query string, args []string, scan func(r *pgRow) error) error {
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = a
	}
	found := false
	err := p.query(ctx, query, vals, func(r *pgRow) (bool, error) {
		found = true
		return false, scan(r)
	})
	if err == nil && !found {
		err = sql.ErrNoRows
	}
	return err
}
