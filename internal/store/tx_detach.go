package store

import (
	"context"
	"sync"
	"time"
)

// writeGrace is how long a PostgreSQL write transaction may go on after its request's context
// is cancelled (the client went away) before its statements are cancelled too.
var writeGrace = 10 * time.Second

// detachWrite returns the context a PostgreSQL write transaction runs under: ctx's values, not
// its cancellation, which cancels only writeGrace after ctx's does; and the function that ends
// it when the transaction is over.
//
// Why (docs/performance.md, "PostgreSQL append, twelfth pass"): pgx answers a cancelled
// context by closing the connection, and database/sql then cannot roll back on it either. A
// client that left in the middle of an append (every in-flight request at the end of a load
// run) cost a connection each, and the requests after it paid for new ones: a backend's start,
// its catalog caches, every statement parsed and planned again and the shared memory it had
// not touched yet faulted in: 14 new connections in an 8 s run at c=16 after its warm-up, and
// 27–55% more appends served once they were kept. A write that goes on finishes as if its
// answer had been lost on the way, which a client must already allow for; one still waiting
// writeGrace later (a row lock held elsewhere) is cancelled as before, and takes its connection
// with it.
func detachWrite(ctx context.Context) (context.Context, func()) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var timer *time.Timer
	ended := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !ended {
			timer = time.AfterFunc(writeGrace, cancel)
		}
	})
	return wctx, func() {
		stop()
		mu.Lock()
		ended = true
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}
