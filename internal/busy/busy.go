// Package busy tells background work when requests are being answered, so that it can step
// aside: the HTTP middleware counts the requests in flight, and the semantic indexer waits on
// the count before each piece of CPU-heavy work.
package busy

import (
	"context"
	"math"
	"sync"
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
type Gate struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed while n == 0; a new one is made when n leaves 0
	last time.Time     // when n last fell to 0; zero if no request ever ran
}

// New returns a gate with no request in flight.
func New() *Gate {
	idle := make(chan struct{})
	close(idle)
	return &Gate{idle: idle}
}

// Begin counts one request in flight; the function it returns ends it (call it once).
func (g *Gate) Begin() (end func()) {
	if g == nil {
		return func() {}
	}
	g.mu.Lock()
	if g.n == 0 {
		g.idle = make(chan struct{})
	}
	g.n++
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.n--
			if g.n == 0 {
				close(g.idle)
				g.last = time.Now()
			}
			g.mu.Unlock()
		})
	}
}

// InFlight is the number of requests in flight.
func (g *Gate) InFlight() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

// IdleFor is how long no request has been in flight: 0 while one is, and a very long time for a
// gate that never saw one (or a nil gate).
func (g *Gate) IdleFor() time.Duration {
	if g == nil {
		return math.MaxInt64
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.n > 0:
		return 0
	case g.last.IsZero():
		return math.MaxInt64
	}
	return time.Since(g.last)
}

// Wait returns when no request is in flight, or once maxWait has passed (so that background
// work is slowed, never starved), or with ctx's error when ctx ends first.
func (g *Gate) Wait(ctx context.Context, maxWait time.Duration) error {
	if g == nil {
		return ctx.Err()
	}
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return ctx.Err()
	default:
	}
	t := time.NewTimer(maxWait)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
	return ctx.Err()
}
