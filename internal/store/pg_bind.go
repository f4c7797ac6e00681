package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// execBound runs query with args on the transaction's connection (PostgreSQL), writing the
// statement's Bind, Execute and Sync straight into pgx's send buffer (bindExecute) and reading
// the answers back as exchange does. It reports false, having sent nothing, when an argument is
// not one it encodes (then the caller runs the statement through database/sql as before).
//
// Why (docs/performance.md, "PostgreSQL append, Quire's side, fourteenth pass"): an append's
// INSERT of 100 blocks is a Bind of about 75 KB, and pgx built it twice over, each time from a
// small buffer grown by doubling: its parameter buffer (reset to 256 bytes after every
// statement) and its send buffer (reset to 1 KB after every flush larger than that). Each
// append allocated, cleared and copied about half a megabyte in steps, in allocations too
// large for the allocator's small-object caches, which the runtime then gave back to the system
// page by page (madvise) between appends; and pgx looked up an encoding plan for each of the
// 600 values through its type map. Here the message's size is worked out first, the send
// buffer grown once to it, and each value appended in the format pgx itself would send it:
// strings as text, booleans and integers in binary, text arrays in binary.
func (tx *Tx) execBound(ctx context.Context, query string, args []any) (bool, error) {
	if tx.engine != Postgres || tx.conn == nil || !boundable(args) {
		return false, nil
	}
	ctx = tx.tx.within(ctx)
	if tx.observe != nil {
		tx.observe(query)
	}
	err := tx.conn.Raw(func(dc any) error {
		conn, err := pgxConn(dc)
		if err != nil {
			return err
		}
		sd, err := conn.Prepare(ctx, query, query)
		if err != nil {
			return badConnIf(err)
		}
		msg, err := newBindExecute(sd, args)
		if err != nil {
			return err
		}
		pc := conn.PgConn()
		if pc.IsBusy() || pc.IsClosed() {
			return fmt.Errorf("%w: store: connection busy or closed", driver.ErrBadConn)
		}
		fe := pc.Frontend()
		fe.Send(msg)
		// One write of Bind, Execute and Sync. PostgreSQL reads the whole Bind before it runs
		// the statement or answers anything, so the write can wait on a full socket buffer
		// only while PostgreSQL is still reading: pgx's guard against both sides writing at
		// once (a timer armed around every flush) has nothing to guard here.
		err = watchExchange(ctx, pc, func() error { return receive(pc, fe, &pgRow{}, noRows) })
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			// As exchange does: a statement that failed is prepared afresh on its next use
			// (one whose table changed under it may fail until it is).
			if derr := conn.Deallocate(ctx, query); derr != nil {
				return fmt.Errorf("%w: %w (%w)", driver.ErrBadConn, err, derr)
			}
		}
		return err
	})
	return true, err
}

// watchExchange runs f, an exchange on pc, under ctx as pgx's default does: when ctx ends, a
// deadline in the past set on the socket breaks off the write or read in progress. An exchange
// cut short says driver.ErrBadConn (receive's), and database/sql drops the connection.
func watchExchange(ctx context.Context, pc *pgconn.PgConn, f func() error) error {
	if ctx.Done() == nil {
		return f()
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		pc.Conn().SetDeadline(time.Unix(1, 0)) // breaks off a write or read in progress
		close(fired)
	})
	err := f()
	if stop() {
		return err
	}
	<-fired
	if errors.Is(err, driver.ErrBadConn) {
		return fmt.Errorf("%w: %w", driver.ErrBadConn, ctx.Err())
	}
	// The exchange was complete when the deadline was set: the connection is as good as
	// before, but for the deadline.
	if derr := pc.Conn().SetDeadline(time.Time{}); derr != nil {
		return fmt.Errorf("%w: %w", driver.ErrBadConn, derr)
	}
	return err
}

// boundable tells whether execBound encodes every one of args.
func boundable(args []any) bool {
	for _, a := range args {
		switch a.(type) {
		case nil, string, bool, int64, []string:
		default:
			return false
		}
	}
	return true
}

// bindExecute is a statement's Bind (unnamed portal, every result column in text), Execute
// and Sync, encoded by Encode straight into the frontend's send buffer. formats are the
// parameters' format codes, as pgx would choose them for args and the statement's parameter
// types.
type bindExecute struct {
	stmt    string
	args    []any
	formats []int16
	size    int // bytes of the three messages
}

// newBindExecute checks args against the parameter types of sd and sizes the messages. A
// value whose type does not fit its parameter is an error, as pgx's encoding would give.
func newBindExecute(sd *pgconn.StatementDescription, args []any) (*bindExecute, error) {
	if len(args) != len(sd.ParamOIDs) {
		return nil, fmt.Errorf("store: %d arguments for %d parameters", len(args), len(sd.ParamOIDs))
	}
	if len(args) > math.MaxUint16 {
		return nil, errors.New("store: too many parameters")
	}
	m := &bindExecute{stmt: sd.Name, args: args, formats: make([]int16, len(args))}
	// Bind: type, length, portal "", statement name, format codes, values, result formats.
	size := 1 + 4 + 1 + len(sd.Name) + 1 + 2 + 2*len(args) + 2 + 2
	for i, a := range args {
		oid := sd.ParamOIDs[i]
		size += 4
		switch a := a.(type) {
		case nil:
		case string:
			size += len(a)
		case bool:
			if oid != pgtype.BoolOID {
				return nil, fmt.Errorf("store: a bool for parameter $%d of type %d", i+1, oid)
			}
			m.formats[i], size = pgtype.BinaryFormatCode, size+1
		case int64:
			if oid != pgtype.Int8OID {
				return nil, fmt.Errorf("store: an int64 for parameter $%d of type %d", i+1, oid)
			}
			m.formats[i], size = pgtype.BinaryFormatCode, size+8
		case []string:
			if oid != pgtype.TextArrayOID {
				return nil, fmt.Errorf("store: a []string for parameter $%d of type %d", i+1, oid)
			}
			m.formats[i], size = pgtype.BinaryFormatCode, size+textArraySize(a)
		}
	}
	m.size = size + 1 + 4 + 1 + 4 + 1 + 4 // Execute (portal "", no row limit) and Sync
	if m.size > math.MaxInt32 {
		return nil, errors.New("store: statement too large")
	}
	return m, nil
}

// textArraySize is the size of a's binary form (array_recv's): its header, then each element's
// length and bytes. nil is NULL, no bytes; an empty array is one dimension of length 0, as pgx
// sends it.
func textArraySize(a []string) int {
	if a == nil {
		return 0
	}
	n := 20
	for _, s := range a {
		n += 4 + len(s)
	}
	return n
}

// Frontend marks bindExecute as a message to the server.
func (m *bindExecute) Frontend() {}

// Decode is never called: the server sends no such message.
func (m *bindExecute) Decode([]byte) error { return errors.New("store: bindExecute is not decoded") }

// Encode appends the messages to dst, grown once to hold them.
func (m *bindExecute) Encode(dst []byte) ([]byte, error) {
	dst = slices.Grow(dst, m.size)
	start := len(dst)
	dst = append(dst, 'B')
	dst = appendInt32(dst, int32(m.size-(1+4+1+4+1+4)-1))
	dst = append(dst, 0) // the unnamed portal
	dst = append(dst, m.stmt...)
	dst = append(dst, 0)
	dst = appendInt16(dst, int16(len(m.formats)))
	for _, f := range m.formats {
		dst = appendInt16(dst, f)
	}
	dst = appendInt16(dst, int16(len(m.args)))
	for _, a := range m.args {
		dst = appendBound(dst, a)
	}
	dst = appendInt16(dst, 0)                      // every result column in text
	dst = append(dst, 'E', 0, 0, 0, 9, 0)          // Execute: the unnamed portal,
	dst = append(dst, 0, 0, 0, 0, 'S', 0, 0, 0, 4) // every row; Sync
	if len(dst)-start != m.size {
		return nil, fmt.Errorf("store: Bind of %d bytes, %d expected", len(dst)-start, m.size)
	}
	return dst, nil
}

// appendBound appends a, a parameter's length and value, in the format newBindExecute chose.
func appendBound(dst []byte, a any) []byte {
	switch a := a.(type) {
	case nil:
		return appendInt32(dst, -1)
	case string:
		return append(appendInt32(dst, int32(len(a))), a...)
	case bool:
		if a {
			return append(dst, 0, 0, 0, 1, 1)
		}
		return append(dst, 0, 0, 0, 1, 0)
	case int64:
		return appendInt64(appendInt32(dst, 8), a)
	case []string:
		if a == nil {
			return appendInt32(dst, -1)
		}
		dst = appendInt32(dst, int32(textArraySize(a)))
		// One dimension, no nulls, text elements, len(a) of them from index 1.
		dst = appendInt32(appendInt32(appendInt32(dst, 1), 0), int32(pgtype.TextOID))
		dst = appendInt32(appendInt32(dst, int32(len(a))), 1)
		for _, s := range a {
			dst = append(appendInt32(dst, int32(len(s))), s...)
		}
		return dst
	}
	panic(fmt.Sprintf("store: appendBound of %T", a)) // boundable let it through
}

func appendInt16(dst []byte, v int16) []byte { return append(dst, byte(v>>8), byte(v)) }

func appendInt32(dst []byte, v int32) []byte {
	return append(dst, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendInt64(dst []byte, v int64) []byte {
	return appendInt32(appendInt32(dst, int32(v>>32)), int32(v))
}

// noRows is the row function of a statement that returns none.
func noRows(*pgRow) (bool, error) {
	return false, errors.New("store: a row from a statement that returns none")
}

var _ pgproto3.FrontendMessage = (*bindExecute)(nil)
