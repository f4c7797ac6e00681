package service

import (
	"context"
	"errors"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// SetIndexBuildForTest sets the online build's batch size, a builder's lease (0 keeps it) and
// the hook run after each batch's commit, and returns what puts them back.
func SetIndexBuildForTest(batch int, lease time.Duration, hook func(db string) error) (restore func()) {
	b, l, h := indexBatch, indexLease, afterIndexBatch
	indexBatch, afterIndexBatch = batch, hook
	if lease != 0 {
		indexLease = lease
	}
	return func() { indexBatch, indexLease, afterIndexBatch = b, l, h }
}

// SetRecordBatchForTest sets how many records a walk over a database's records reads at a time,
// and returns what puts it back.
func SetRecordBatchForTest(n int) (restore func()) {
	was := recordBatch
	recordBatch = n
	return func() { recordBatch = was }
}

// SetAfterDecodeCreatesForTest sets the hook run between a mutation batch's decoding and its
// transaction, and returns what puts it back.
func SetAfterDecodeCreatesForTest(hook func()) (restore func()) {
	was := afterDecodeCreates
	afterDecodeCreates = hook
	return func() { afterDecodeCreates = was }
}

// ShareDatabaseForTest runs shareDatabase in a transaction of its own (rolled back): held, and
// needsExclusive when it ended the transaction for the database's dual relation.
func (s *Service) ShareDatabaseForTest(ctx context.Context, p *quire.Principal, id string) (held, needsExclusive bool, err error) {
	checked := errors.New("checked")
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if _, held, err = s.shareDatabase(ctx, tx, p, id, "database_id"); err != nil {
			return err
		}
		return checked
	})
	if errors.Is(err, errNeedsExclusive) {
		return false, true, nil
	}
	if errors.Is(err, checked) {
		err = nil
	}
	return held, false, err
}
