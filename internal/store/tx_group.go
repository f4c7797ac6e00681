package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"
)

// SQLite has one writer, and every COMMIT writes the transaction's changed pages to the WAL and
// syncs it. When writers queue for it (a seeding's four mutation batches at a time), the queued
// ones join the transaction the writer before them left open, each in a savepoint of its own,
// and the last of them commits for all: one COMMIT and one fsync for up to maxGroup writes, and
// a page two of them changed (an index's last leaf, the event head) written to the WAL once.
//
// Nothing is answered before the COMMIT that holds it returned: a member whose work is released
// into the transaction waits for that COMMIT and answers its result, so durability is as
// before. A member that fails has its work rolled back to its savepoint and answers its error
// at once; the others' work stays. A member runs its statements without its request's
// cancellation (SQLite rolls the whole transaction back when a statement in it is interrupted,
// which would take the others' work with it) and checks its context after its work instead.
// PostgreSQL's writers commit side by side, so there InTx is as it always was.

const (
	maxGroup     = 8                     // members of one COMMIT at most
	maxGroupWait = 50 * time.Millisecond // a group is committed once this old, writers waiting or not
)

// writer is SQLite's write turn and the transaction the last holder left open.
type writer struct {
	turn    chan struct{} // capacity 1: sent to by the writer whose turn it is
	waiting atomic.Int32  // writers waiting for the turn
	open    *group        // read and written only while holding the turn
	commits atomic.Int64  // group COMMITs run, for tests
}

// group is one open write transaction and its members.
type group struct {
	tx      *sql.Tx
	conn    *txConn
	began   time.Time
	members int   // writers whose work was released into tx
	events  bool  // a member recorded events
	broken  error // a member could not roll back to its savepoint: the whole transaction goes
	done    chan struct{}
	err     error // the COMMIT's (or broken), set before done closes
}

func newWriter() *writer { return &writer{turn: make(chan struct{}, 1)} }

// inGroup is InTx on SQLite.
func (s *Store) inGroup(ctx context.Context, fn func(tx *Tx) error) error {
	w := s.writer
	w.waiting.Add(1)
	select {
	case w.turn <- struct{}{}:
		w.waiting.Add(-1)
	case <-ctx.Done():
		w.waiting.Add(-1)
		// The holder before may have left its group open for this writer: commit it.
		go s.closeGroup()
		return ctx.Err()
	}
	g := w.open
	if g == nil {
		sqlTx, err := s.write.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			<-w.turn
			return fmt.Errorf("begin: %w", err)
		}
		conn := newTxConn(sqlTx, s.kept)
		conn.detach = true
		g = &group{tx: sqlTx, conn: conn, began: time.Now(), done: make(chan struct{})}
		w.open = g
	}
	events, err, p := s.member(ctx, g, fn)
	if err == nil && p == nil {
		g.members++
		g.events = g.events || events
	}
	if g.broken == nil && g.members > 0 && g.members < maxGroup && w.waiting.Load() > 0 && time.Since(g.began) < maxGroupWait {
		<-w.turn // the next writer joins; it or a later one commits
		if p != nil {
			panic(p)
		}
		if err != nil {
			return err
		}
		<-g.done
		return g.err
	}
	s.finish(g)
	if p != nil {
		panic(p)
	}
	if err != nil {
		return err
	}
	return g.err
}

// member runs fn and the rest of one writer's work in a savepoint of g's transaction; on an
// error or a panic (returned as p) it rolls the savepoint back, leaving the other members' work.
func (s *Store) member(ctx context.Context, g *group, fn func(tx *Tx) error) (events bool, err error, p any) {
	bg := context.WithoutCancel(ctx)
	if _, err := g.tx.ExecContext(bg, `SAVEPOINT member`); err != nil {
		g.broken = fmt.Errorf("savepoint: %w", err)
		return false, g.broken, nil
	}
	tx := &Tx{tx: g.conn, engine: s.engine}
	func() {
		defer func() {
			if p = recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		err = tx.work(bg, g.tx, fn)
	}()
	if err == nil {
		err = ctx.Err() // a request cancelled meanwhile keeps nothing, as when it had its own transaction
	}
	if err == nil {
		if _, err = g.tx.ExecContext(bg, `RELEASE member`); err == nil {
			return len(tx.events) > 0, nil, nil
		}
	}
	if _, rerr := g.tx.ExecContext(bg, `ROLLBACK TO member`); rerr != nil {
		g.broken = fmt.Errorf("rollback to savepoint: %w", rerr)
	} else if _, rerr := g.tx.ExecContext(bg, `RELEASE member`); rerr != nil {
		g.broken = fmt.Errorf("release savepoint: %w", rerr)
	}
	return false, err, p
}

// finish ends g while holding the turn: commits the members' work (or rolls back a transaction
// with none, or a broken one), answers every waiting member, and gives the turn up.
func (s *Store) finish(g *group) {
	w := s.writer
	switch {
	case g.broken != nil:
		_ = g.tx.Rollback()
		g.err = g.broken
	case g.members == 0:
		_ = g.tx.Rollback()
	default:
		w.commits.Add(1)
		if err := g.tx.Commit(); err != nil {
			g.err = fmt.Errorf("commit: %w", err)
			// A COMMIT that failed (a deferred constraint, a full disk) can leave SQLite's
			// transaction open on the connection database/sql takes back: end it there.
			_, _ = s.write.ExecContext(context.Background(), `ROLLBACK`)
		}
	}
	w.open = nil
	if g.err == nil && g.members > 0 {
		if g.events {
			s.events.ring()
		}
		if s.upkeep != nil {
			s.upkeep.wrote()
		}
	}
	close(g.done)
	<-w.turn
}

// closeGroup commits a group its last member left open for a writer that then gave up waiting.
func (s *Store) closeGroup() {
	w := s.writer
	w.turn <- struct{}{}
	if w.open != nil && w.waiting.Load() == 0 {
		s.finish(w.open)
		return
	}
	<-w.turn
}
