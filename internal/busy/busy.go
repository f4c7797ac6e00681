// Package busy tells background work when requests are being answered, so that it can step
// aside: the HTTP middleware counts the requests in flight, and the semantic indexer waits on
// the count before each piece of CPU-heavy work.
package busy

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWait is how long background work waits for the requests in flight to end before it does
// one more piece anyway. Under a steady stream of requests there is always one in flight, so
// without a bound the queue would never drain; with it, background work takes at most one piece
// (an embedding sub-batch, tens of milliseconds) in every MaxWait.
const MaxWait = 250 * time.Millisecond

// Quiet is how long no request must have been in flight before background work takes more
// than its own share of the cores (the indexer's spare sub-batches). A client sending requests
// one after another leaves gaps of well under a millisecond between them: the gate is empty in
// each, yet the next request is about to arrive.
const Quiet = 100 * time.Millisecond

// Gate counts the requests in flight. A nil *Gate counts nothing and never makes anyone wait,
// so code that runs without a server (tests, admin commands) needs no gate.
//
// Every request enters and leaves it, so those two allocate nothing and take the lock only
// when the count falls to zero; the channel a waiter sleeps on is made by the waiter (Wait),
// not by every request that finds the gate empty, which at one connection is every request.
type Gate struct {
	n    atomic.Int64
	last atomic.Int64 // when n last fell to 0, as clock(); 0 if no request ever ran

	mu   sync.Mutex
	idle chan struct{} // closed when n falls to 0; nil while nobody waits
}

// New returns a gate with no request in flight.
func New() *Gate { return &Gate{} }

// Enter counts one request in flight; Leave ends it.
func (g *Gate) Enter() {
	if g != nil {
		g.n.Add(1)
	}
}

// Leave ends a request Enter counted (once for each Enter).
func (g *Gate) Leave() {
	if g == nil || g.n.Add(-1) != 0 {
		return
	}
	g.last.Store(clock())
	g.mu.Lock()
	// Checked again under the lock: a request may have entered since, and its own Leave will
	// release the waiters; a waiter only makes its channel while the count is above zero.
	if g.idle != nil && g.n.Load() == 0 {
		close(g.idle)
		g.idle = nil
	}
	g.mu.Unlock()
}

// Begin counts one request in flight; the function it returns ends it (call it once). Enter and
// Leave do the same without allocating the function.
func (g *Gate) Begin() (end func()) {
	g.Enter()
	var once sync.Once
	return func() { once.Do(g.Leave) }
}

// InFlight is the number of requests in flight.
func (g *Gate) InFlight() int {
	if g == nil {
		return 0
	}
	return int(g.n.Load())
}

// IdleFor is how long no request has been in flight: 0 while one is, and a very long time for a
// gate that never saw one (or a nil gate).
func (g *Gate) IdleFor() time.Duration {
	if g == nil {
		return math.MaxInt64
	}
	if g.n.Load() > 0 {
		return 0
	}
	last := g.last.Load()
	if last == 0 {
		return math.MaxInt64
	}
	return time.Duration(clock() - last)
}

// epoch is the process's start, for clock.
var epoch = time.Now()

// clock is the monotonic time since epoch in nanoseconds, plus one so that it is never 0: an
// atomic integer where a time.Time would need the lock, and immune to wall-clock steps.
func clock() int64 { return int64(time.Since(epoch)) + 1 }

// Wait returns when no request is in flight, or once maxWait has passed (so that background
// work is slowed, never starved), or with ctx's error when ctx ends first.
func (g *Gate) Wait(ctx context.Context, maxWait time.Duration) error {
	if g == nil {
		return ctx.Err()
	}
	g.mu.Lock()
	if g.n.Load() == 0 {
		g.mu.Unlock()
		return ctx.Err()
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	t := time.NewTimer(maxWait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
	return ctx.Err()
}
