package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// exchange runs query on conn with params (each in text format) and calls row for each row
// until it returns false or an error, as pgx.Conn.Query and readRows would, writing the
// statement's Bind, Execute and Sync to the connection itself and reading the answers back
// message by message. It is pgRaw's statement for the reads every request makes, the page
// GET's token-and-node read above all, and it leaves out what pgx.Conn.Query does around one
// statement that such a read has no use for:
//
//   - pgx arms a 15 ms timer around each write (a guard against both sides writing large
//     batches at once; the bgreader it starts would read while pgx writes). Arming it woke an
//     idle thread of the Go scheduler at each statement (runtime.wakeNetPoller: a thread
//     started or the network poller interrupted, a futex or eventfd write), 5% of the CPU of
//     a loop of page reads, on the request's path before the write. A Bind of a few hundred
//     bytes, written only once the previous answer was read to its end, cannot meet a full
//     socket buffer.
//   - pgx copies the statement's field descriptions, boxes and encodes the arguments through
//     its type map and allocates its rows, per statement.
//
// The statement is prepared on conn once, by pgx (Conn.Prepare keyed by its text, under the
// name pgx gives it), so Conn.Query of the same text on this connection uses the same
// statement. ctx ends the exchange as pgx's default does: a deadline in the past set on the
// socket breaks off the read. A connection whose exchange did not reach ReadyForQuery is in an
// unknown state: the error says driver.ErrBadConn, so database/sql closes it instead of pooling
// it (and pgRaw.query tries the read once more, on another connection).
//
// begin, when not nil, is asked just before the statement is written whether BEGIN goes ahead
// of it (a write transaction's first statement, tx_pg.go).
func exchange(ctx context.Context, conn *pgx.Conn, begin func() (bool, error), query string, params [][]byte, row func(r *pgRow) (bool, error)) error {
	return exchangeAll(ctx, conn, begin, []textStmt{{query, params, row}})
}

// textStmt is one statement of an exchange: its text, its parameters in text format, and what
// reads its rows.
type textStmt struct {
	query  string
	params [][]byte
	row    func(r *pgRow) (bool, error)
}

// exchangeAll is exchange for several statements in one round trip: each one's Bind and
// Execute, then one Sync, written at once; the answers read back in order, each statement's
// rows handed to its row. They run in one implicit transaction (or in the write transaction
// that begin starts or continues), each on its own snapshot; an error in one skips the rest
// (PostgreSQL discards the messages up to the Sync), and is returned.
func exchangeAll(ctx context.Context, conn *pgx.Conn, begin func() (bool, error), stmts []textStmt) error {
	names := make([]string, len(stmts))
	formats := make([][]int16, len(stmts))
	rows := make([]*pgRow, len(stmts))
	for i, st := range stmts {
		sd, err := conn.Prepare(ctx, st.query, st.query)
		if err != nil {
			return badConnIf(err)
		}
		if len(sd.ParamOIDs) != len(st.params) {
			return fmt.Errorf("store: %d arguments for %d parameters", len(st.params), len(sd.ParamOIDs))
		}
		shape := resultShape(st.query, sd.Fields)
		names[i], formats[i], rows[i] = sd.Name, shape.formats, &pgRow{fds: shape.fds}
	}
	pc := conn.PgConn()
	fe, ahead, err := frontend(pc, begin)
	if err != nil {
		return err
	}
	for i, st := range stmts {
		fe.SendBind(&pgproto3.Bind{PreparedStatement: names[i], Parameters: st.params, ResultFormatCodes: formats[i]})
		fe.SendExecute(&pgproto3.Execute{})
	}
	fe.SendSync(&pgproto3.Sync{})

	err = watchExchange(ctx, pc, func() error { return receiveAll(pc, fe, ahead, stmts, rows) })
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// As pgx does with its statement cache: a statement that failed is prepared afresh
		// on its next use (one whose columns changed type under it fails until it is).
		for _, st := range stmts {
			if derr := conn.Deallocate(ctx, st.query); derr != nil {
				return fmt.Errorf("%w: %w (%w)", driver.ErrBadConn, err, derr)
			}
		}
	}
	return err
}

// frontend is pc's frontend, ready for a statement's messages: an error when the connection is
// busy or closed (driver.ErrBadConn's), and, when begin (a write transaction's, tx_pg.go) says
// the statement is its transaction's first, BEGIN queued ahead of it (sendBegin; began).
func frontend(pc *pgconn.PgConn, begin func() (bool, error)) (fe *pgproto3.Frontend, began bool, err error) {
	if pc.IsBusy() || pc.IsClosed() {
		return nil, false, fmt.Errorf("%w: store: connection busy or closed", driver.ErrBadConn)
	}
	fe = pc.Frontend()
	if begin != nil {
		if began, err = begin(); err != nil {
			return nil, false, err
		}
		if began {
			sendBegin(fe)
		}
	}
	return fe, began, nil
}

// receive flushes one statement (after a BEGIN when began) and reads its answers until
// ReadyForQuery, calling row for each row until it returns false or an error (receiveAll).
func receive(pc *pgconn.PgConn, fe *pgproto3.Frontend, began bool, r *pgRow, row func(r *pgRow) (bool, error)) error {
	return receiveAll(pc, fe, began, []textStmt{{row: row}}, []*pgRow{r})
}

// receiveAll flushes the statements and reads their answers until ReadyForQuery, calling each
// statement's row for each of its rows (read into its pgRow) until it returns false or an
// error. The first error (an ErrorResponse, or a row's) is returned once the connection is
// ready again; a failed write or read is driver.ErrBadConn's. When began, a BEGIN (sendBegin)
// was sent ahead of the statements: its answers come first and are passed over.
func receiveAll(pc *pgconn.PgConn, fe *pgproto3.Frontend, began bool, stmts []textStmt, rows []*pgRow) error {
	if err := fe.Flush(); err != nil {
		return fmt.Errorf("%w: %w", driver.ErrBadConn, err)
	}
	k, more := 0, true // the statement whose answers come, and whether its row wants more
	if began {
		k = -1 // the BEGIN's CommandComplete moves k to the first statement
	}
	var rowErr error
	for {
		// context.Background: pgconn watches no context per message; exchange watches the
		// request's for the whole exchange.
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			return fmt.Errorf("%w: %w", driver.ErrBadConn, err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if more && rowErr == nil && k >= 0 && k < len(stmts) {
				r := rows[k]
				if len(m.Values) != len(r.fds) {
					rowErr = fmt.Errorf("store: %d values for %d columns", len(m.Values), len(r.fds))
					continue
				}
				r.vals = m.Values
				more, rowErr = stmts[k].row(r)
			}
		case *pgproto3.CommandComplete, *pgproto3.EmptyQueryResponse:
			k, more = k+1, true
		case *pgproto3.ErrorResponse:
			if rowErr == nil {
				rowErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			return rowErr
		}
	}
}

// textParams is args in PostgreSQL's text format, or false when one of them is not a string
// or an integer (the store's hot reads pass only those; anything else goes through pgx).
func textParams(args []any) ([][]byte, bool) {
	params := make([][]byte, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case string:
			params[i] = []byte(a)
		case int:
			params[i] = strconv.AppendInt(nil, int64(a), 10)
		case int64:
			params[i] = strconv.AppendInt(nil, a, 10)
		default:
			return nil, false
		}
	}
	return params, true
}

// shape is how a statement's columns are asked for and read: binary for the integers, the
// booleans and double precision (exact, where a text would be parsed), text for the rest.
type shape struct {
	fds     []pgconn.FieldDescription // the statement's, each with the format asked for
	formats []int16
}

// shapes caches each exchanged text's shape, up to maxShapes texts: the store's hot reads are a
// few texts, a keyword search's first page on PostgreSQL one per number of terms, filter and
// page size. A text past the bound has its shape worked out at each exchange (a copy of its
// field descriptions).
var (
	shapes     sync.Map // query text → *shape
	shapesKept atomic.Int64
)

const maxShapes = 1024

// resultShape is the shape of query's columns fields (as the statement's description gives
// them, every format text), kept while its columns' types stay the same.
func resultShape(query string, fields []pgconn.FieldDescription) *shape {
	if v, ok := shapes.Load(query); ok {
		s := v.(*shape)
		if sameTypes(s.fds, fields) {
			return s
		}
	}
	s := &shape{fds: slices.Clone(fields), formats: make([]int16, len(fields))}
	for i := range s.fds {
		switch s.fds[i].DataTypeOID {
		case pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID, pgtype.BoolOID, pgtype.Float8OID:
			s.formats[i] = pgtype.BinaryFormatCode
		default:
			s.formats[i] = pgtype.TextFormatCode
		}
		s.fds[i].Format = s.formats[i]
	}
	if _, had := shapes.Load(query); had || shapesKept.Load() < maxShapes {
		if _, had := shapes.Swap(query, s); !had {
			shapesKept.Add(1)
		}
	}
	return s
}

// sameTypes tells whether two column lists have the same types in the same order.
func sameTypes(a, b []pgconn.FieldDescription) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].DataTypeOID != b[i].DataTypeOID {
			return false
		}
	}
	return true
}
