package store

import (
	"context"
	"slices"
	"sync"
)

// lane gathers, on PostgreSQL, the reads of one kind that requests ask for while a round trip
// of that kind is in flight, and sends them together in the next (joinedQueue's and
// childrenQueue's shared machinery; why each pays is written at those types).
//
// Nothing is kept: each read is sent after its request asked for it (it waits for a round trip
// that starts later, never joins one already sent), so a revoked token or a withdrawn grant is
// seen by the very next request, as when each request sent its own. A read asked for while the
// lane is free is sent at once, alone: at c=1 nothing waits.
//
// There are no goroutines of its own: the request that finds the lane free sends; when its
// round trip is back, the lane goes to the first waiting read, whose request sends every read
// waiting by then, its own included (one goroutine wake-up, which that read needed anyway).
// One round trip is in flight at a time: a second would need the hand-off to tell two waiting
// senders apart, and at c=16 on 2 cores two lanes were not measurably better
// (docs/performance.md, "PostgreSQL page GET, tenth pass").
type lane[C waiter] struct {
	mu   sync.Mutex
	busy bool // a round trip is in flight, or the lane was handed to a waiting read
	wait []C  // reads asked for while the lane was busy, in order; empty when it is free
	// freed, when set, is called (mu held) each time the lane falls free: a lane kept only
	// while in flight forgets itself there.
	freed func()
}

// waiter is a read's place in a lane: a pointer to a call that embeds laneWait.
type waiter interface {
	comparable
	waiting() *laneWait
}

// laneWait is what a lane keeps of a read as it waits and is answered.
type laneWait struct {
	again bool      // the round trip failed with its sender's context, not this read's: ask again
	lead  bool      // under mu: the lane was handed to this read, which is to send the waiting reads
	ready chan bool // true: lead; false: answered
}

func (w *laneWait) waiting() *laneWait { return w }

// newLaneWait is a read's laneWait before it is sent.
func newLaneWait() laneWait { return laneWait{ready: make(chan bool, 1)} }

// do sends c: at once when the lane is free, else with the reads waiting when the lane is next
// handed on. send runs calls (c first when c sends) in one round trip, sets each call's
// outcome, and answers the round trip's failure (nil when it went through, even if single
// reads found no row). do answers ctx's error when c stopped waiting; otherwise c is answered,
// and the caller asks again, with a new call, when c.waiting().again.
func (l *lane[C]) do(ctx context.Context, c C, send func(context.Context, []C) error) error {
	l.mu.Lock()
	if !l.busy {
		l.busy = true
		l.mu.Unlock()
		l.send(ctx, []C{c}, send)
		return nil
	}
	l.wait = append(l.wait, c)
	l.mu.Unlock()
	w := c.waiting()
	select {
	case lead := <-w.ready:
		if !lead {
			return nil
		}
		l.mu.Lock()
		calls := l.wait // c is the first of them
		l.wait = nil
		l.mu.Unlock()
		l.send(ctx, calls, send)
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		if i := slices.Index(l.wait, c); i >= 0 {
			l.wait = slices.Delete(l.wait, i, i+1)
			if w.lead { // handed the lane, not to send now: the next waiting read sends
				l.handOn()
			}
		}
		l.mu.Unlock()
		// Not waiting any more, c has been sent: its answer, if it comes, is read by no one.
		return ctx.Err()
	}
}

// handOn gives the lane of a round trip that is done to the first waiting read, or frees it.
// l.mu is held.
func (l *lane[C]) handOn() {
	if len(l.wait) == 0 {
		l.busy = false
		if l.freed != nil {
			l.freed()
		}
		return
	}
	next := l.wait[0].waiting()
	next.lead = true
	next.ready <- true
}

// send runs calls in one round trip with ctx (the sending request's), answers every call but
// its sender's own (calls[0]), and hands the lane on.
func (l *lane[C]) send(ctx context.Context, calls []C, send func(context.Context, []C) error) {
	err := send(ctx, calls)
	l.mu.Lock()
	l.handOn()
	l.mu.Unlock()
	for _, c := range calls[1:] {
		w := c.waiting()
		// A round trip that failed because its sender's request ended (a client gone) is
		// not the others' failure: they ask again.
		if err != nil && ctx.Err() != nil {
			w.again = true
		}
		w.ready <- false
	}
}
