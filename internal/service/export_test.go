package service

import "time"

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
