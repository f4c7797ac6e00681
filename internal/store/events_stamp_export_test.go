package store

import "context"

// FlushEventsForTest writes the transaction's outbox now, as its commit would (on PostgreSQL,
// under provisional positions), and empties it, so that a test can hold the transaction open
// with its events written.
func (tx *Tx) FlushEventsForTest(ctx context.Context) error {
	_, err := tx.flushEvents(ctx, false)
	tx.events, tx.eventsOf = nil, nil
	return err
}

// The feed's numbering statements, for the plan tests.
const (
	StampProbeQueryForTest = stampProbe
	StampQueryForTest      = stampSQL
)
