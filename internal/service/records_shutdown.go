package service

import (
	"context"
	"sync"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// A property's build (records_indexed.go) runs in its own goroutine so that it outlives the
// request that started it; graceful shutdown must not close the store under it. A build
// killed by the store's close would keep its lease (30 s) and make the first query after a
// restart wait for it; so shutdown stops each build at its next transaction boundary, hands
// its lease back (an expired lease: the next query on any server takes the build over at
// once, from the start, as every batch is idempotent) and waits for it.

// buildGroup tracks the service's running builds.
type buildGroup struct {
	mu       sync.Mutex // orders start's Add after stop: a WaitGroup must not grow once waited on
	wg       sync.WaitGroup
	stopping bool
}

// start runs fn in a goroutine the group tracks, or reports false once shutdown began.
func (g *buildGroup) start(fn func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return false
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		fn()
	}()
	return true
}

// stopped reports whether shutdown began.
func (g *buildGroup) stopped() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopping
}

// StopBuilds begins the shutdown of the property builds: no new build starts, and each running
// one stops after the batch it is writing, hands its lease back and answers its request 503. It
// does not wait; WaitBuilds does.
func (s *Service) StopBuilds() {
	s.builds.mu.Lock()
	s.builds.stopping = true
	s.builds.mu.Unlock()
}

// WaitBuilds waits until every build stopped by StopBuilds has ended, or ctx does; the store
// may be closed once it returns nil.
func (s *Service) WaitBuilds(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.builds.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errShuttingDown answers a query whose build the shutdown stopped: the next server builds it.
func errShuttingDown() error {
	return &quire.Error{Code: quire.CodeUnavailable, Message: "The server is shutting down; retry the request."}
}

// releaseBuild hands the lease on properties claimed of database db back, as expired but still
// building, so that the next query (on any server) claims the build without waiting for it.
func (s *Service) releaseBuild(ctx context.Context, db string, claimed []string) error {
	expired := time.Now().Add(-time.Millisecond).UnixMilli()
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		return tx.SetIndexingLease(ctx, db, claimed, max(expired, 1)) // 0 would mean built
	})
}
