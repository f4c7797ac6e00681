package store

import (
	"context"
	"runtime"
	"time"
)

// writersPerCPU is how many PostgreSQL write transactions one server runs at once per CPU it
// may use; the others wait for a turn before they begin (writeSlots).
const writersPerCPU = 4

// writeTurnWait bounds how long a write waits for a turn before it begins without one, so that
// a write begun inside another's function (the outer one holding its turn) is held up, never
// deadlocked.
var writeTurnWait = 5 * time.Second

// writeSlots makes the turns of a PostgreSQL store's write transactions: writersPerCPU per CPU
// (GOMAXPROCS), at least 4.
//
// Why (docs/performance.md, "PostgreSQL append, twelfth pass"): sixteen appends at once on two
// cores each ran in its own backend, and those backends spent 9–34% more CPU an append than
// eight at a time did (five interleaved turns at load 12–16); with eight the server served
// 17–40% more appends in four turns of five. A write waiting for its turn holds no connection
// and no lock. Reads do not take turns.
func writeSlots() chan struct{} {
	return make(chan struct{}, max(4, writersPerCPU*runtime.GOMAXPROCS(0)))
}

// writeTurn waits for a turn among s.writers and returns the function that gives it back; after
// writeTurnWait it goes on without one. An error when ctx ends first.
func (s *Store) writeTurn(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case s.writers <- struct{}{}:
		return func() { <-s.writers }, nil
	default:
	}
	t := time.NewTimer(writeTurnWait)
	defer t.Stop()
	select {
	case s.writers <- struct{}{}:
		return func() { <-s.writers }, nil
	case <-t.C:
		return func() {}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
