package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/quire-dev/quire/internal/quire"
)

// InsertBlocksTouching is InsertBlocks(blocks), then TouchPageCounting(ws, id, ms, by, parent,
// pos): what an append at the end of a page or block writes before its commit. On PostgreSQL,
// for up to 100 blocks (one INSERT), the three statements go to the server in one write and
// their answers come back in one read: the INSERT (its Bind encoded as execBound does, its own
// Sync), then the page's lock and the count (one Sync). The INSERT has ended when the lock's
// statement runs, exactly as when it was sent alone first: PostgreSQL runs the messages in
// order, and nothing of the append reads the INSERT's answer before taking the lock. An error
// in the INSERT is the one returned (the lock and the count then fail on the aborted
// transaction, and the write rolls back). A round trip less ("PostgreSQL append, fifteenth
// pass" in docs/performance.md). Elsewhere, or when an argument is not one execBound encodes,
// the two calls run one after the other.
func (tx *Tx) InsertBlocksTouching(ctx context.Context, blocks []*quire.Block, ws, id string, ms int64, by, parent, pos string) (hidden bool, n int, err error) {
	if tx.conn != nil && len(blocks) > 0 && len(blocks) <= 100 {
		var piped bool
		if piped, hidden, n, err = tx.insertTouchingPG(ctx, blocks, ws, id, ms, by, parent, pos); piped || err != nil {
			return hidden, n, err
		}
	}
	if err := tx.InsertBlocks(ctx, blocks); err != nil {
		return false, 0, err
	}
	return tx.TouchPageCounting(ctx, ws, id, ms, by, parent, pos)
}

// insertTouchingPG is InsertBlocksTouching's pipeline; piped is false, nothing sent, when an
// argument is not one the INSERT's Bind encodes.
func (tx *Tx) insertTouchingPG(ctx context.Context, blocks []*quire.Block, ws, id string, ms int64, by, parent, pos string) (piped, hidden bool, n int, err error) {
	tx.insertedChildren(blocks) // before the statement, which writes HasChildren (again in InsertBlocks if not piped: the same)
	query, args := tx.insertBlocksStatement(blocks)
	if !boundable(args) {
		return false, false, 0, nil
	}
	touch, _ := textParams([]any{id, ws, ms, by})
	count, _ := textParams([]any{parent, pos})
	ctx = tx.tx.within(ctx)
	found := false
	err = tx.onConn([]string{query, touchPageSQL, childrenAfterCount}, func(conn *pgx.Conn) error {
		var sds [3]*pgconn.StatementDescription
		for i, q := range [3]string{query, touchPageSQL, childrenAfterCount} {
			if sds[i], err = conn.Prepare(ctx, q, q); err != nil {
				return badConnIf(err)
			}
		}
		msg, err := newBindExecute(sds[0], args)
		if errors.Is(err, errUnbound) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(sds[1].ParamOIDs) != len(touch) || len(sds[2].ParamOIDs) != len(count) {
			return errors.New("store: the page's lock or count has other parameters")
		}
		pc := conn.PgConn()
		fe, begin, err := frontend(pc, tx.tx.beginAhead)
		if err != nil {
			return err
		}
		piped = true
		fe.Send(msg) // the INSERT's Bind, Execute and Sync
		shapes := [2]*shape{resultShape(touchPageSQL, sds[1].Fields), resultShape(childrenAfterCount, sds[2].Fields)}
		fe.SendBind(&pgproto3.Bind{PreparedStatement: sds[1].Name, Parameters: touch, ResultFormatCodes: shapes[0].formats})
		fe.SendExecute(&pgproto3.Execute{})
		fe.SendBind(&pgproto3.Bind{PreparedStatement: sds[2].Name, Parameters: count, ResultFormatCodes: shapes[1].formats})
		fe.SendExecute(&pgproto3.Execute{})
		fe.SendSync(&pgproto3.Sync{})
		var failed string // the text of the statement whose error is returned
		err = watchExchange(ctx, pc, func() error {
			if err := receive(pc, fe, begin, &pgRow{}, noRows); err != nil {
				failed = query
				// The lock and the count fail on the aborted transaction: their answers are
				// read to the connection's next ReadyForQuery, and the INSERT's error stands.
				if errors.Is(err, driver.ErrBadConn) {
					return err
				}
				if derr := drain(pc); derr != nil {
					return derr
				}
				return err
			}
			steps := []func(r *pgRow) error{
				func(r *pgRow) error { found = true; return r.Scan(&hidden) },
				func(r *pgRow) error { var c int64; err := r.Scan(&c); n = int(c); return err },
			}
			step, err := receiveSteps(pc, shapes[:], steps)
			if err != nil && step < 2 {
				failed = [2]string{touchPageSQL, childrenAfterCount}[step]
			}
			return err
		})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && failed != "" {
			// As execBound and exchange do: a statement that failed is prepared afresh on its
			// next use.
			if derr := conn.Deallocate(ctx, failed); derr != nil {
				return fmt.Errorf("%w: %w (%w)", driver.ErrBadConn, err, derr)
			}
		}
		return err
	})
	if piped && err == nil && !found {
		err = sql.ErrNoRows
	}
	return piped, hidden, n, notFoundIf(err, "page or database "+id)
}

// receiveSteps reads the answers of statements sent with one Sync, already flushed, to its
// ReadyForQuery: the rows of statement i go to steps[i], read with shapes[i], and statement i
// ends at its CommandComplete. It returns the first error (the statement's, an ErrorResponse,
// which skips the rest, or a step's) and the index of the statement it came from; a failed
// read is driver.ErrBadConn's.
func receiveSteps(pc *pgconn.PgConn, shapes []*shape, steps []func(r *pgRow) error) (int, error) {
	i := 0
	var firstErr error
	errAt := len(steps)
	for {
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			return i, fmt.Errorf("%w: %w", driver.ErrBadConn, err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if firstErr != nil || i >= len(steps) {
				continue
			}
			r := &pgRow{fds: shapes[i].fds}
			if len(m.Values) != len(r.fds) {
				firstErr, errAt = fmt.Errorf("store: %d values for %d columns", len(m.Values), len(r.fds)), i
				continue
			}
			r.vals = m.Values
			if err := steps[i](r); err != nil {
				firstErr, errAt = err, i
			}
		case *pgproto3.CommandComplete:
			i++
		case *pgproto3.ErrorResponse:
			if firstErr == nil {
				firstErr, errAt = pgconn.ErrorResponseToPgError(m), i
			}
		case *pgproto3.ReadyForQuery:
			return errAt, firstErr
		}
	}
}

// drain reads and passes over every message to the connection's next ReadyForQuery.
func drain(pc *pgconn.PgConn) error {
	for {
		msg, err := pc.ReceiveMessage(context.Background())
		if err != nil {
			return fmt.Errorf("%w: %w", driver.ErrBadConn, err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			return nil
		}
	}
}
