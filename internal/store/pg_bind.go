package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// execBound runs query with args on the transaction's connection (PostgreSQL), writing the
// statement's Bind, Execute and Sync straight into pgx's send buffer (bindExecute) and reading
// the answers back as exchange does. It reports false, having sent no Bind, when an argument is
// not one it encodes or does not fit its parameter's type (then the caller runs the statement
// through database/sql as before).
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
	bound := true
	err := tx.onConn([]string{query}, func(conn *pgx.Conn) error {
		sd, err := conn.Prepare(ctx, query, query)
		if err != nil {
			return badConnIf(err)
		}
		msg, err := newBindExecute(sd, args)
		if errors.Is(err, errUnbound) {
			bound = false
			return nil
		}
		if err != nil {
			return err
		}
		pc := conn.PgConn()
		fe, begin, err := frontend(pc, tx.tx.beginAhead)
		if err != nil {
			return err
		}
		fe.Send(msg)
		// One write of Bind, Execute and Sync. PostgreSQL reads the whole Bind before it runs
		// the statement or answers anything, so the write can wait on a full socket buffer
		// only while PostgreSQL is still reading: pgx's guard against both sides writing at
		// once (a timer armed around every flush) has nothing to guard here.
		err = watchExchange(ctx, pc, func() error { return receive(pc, fe, begin, &pgRow{}, noRows) })
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
	return bound, err
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

// noRows is the row function of a statement that returns none.
func noRows(*pgRow) (bool, error) {
	return false, errors.New("store: a row from a statement that returns none")
}
