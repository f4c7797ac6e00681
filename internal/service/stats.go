package service

import (
	"context"
	"sync/atomic"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// IndexStats counts the semantic indexers' work in this process since the service was made.
type IndexStats struct {
	Nodes    int64 // nodes whose vectors were saved (or dropped, for a node that no longer exists)
	Chunks   int64 // chunks embedded into those vectors
	Reused   int64 // chunks whose text was unchanged, which kept their vector
	Failures int64 // attempts that failed, each put back on the queue to retry after a backoff
}

// indexCounters live on the Service, not the Indexer, so that whoever reports them needs only
// the service, however many indexers run over it.
type indexCounters struct{ nodes, chunks, reused, failures atomic.Int64 }

// IndexStats reads the indexer counters.
func (s *Service) IndexStats() IndexStats {
	return IndexStats{Nodes: s.index.nodes.Load(), Chunks: s.index.chunks.Load(), Reused: s.index.reused.Load(), Failures: s.index.failures.Load()}
}

// PoolStats reads the store's connection pool counters.
func (s *Service) PoolStats() []store.PoolStats { return s.store.PoolStats() }

// EmbedQueueDepth counts the nodes waiting to be embedded: due now, and waiting for a lease or
// a backoff to end; each count stops at limit.
func (s *Service) EmbedQueueDepth(ctx context.Context, limit int) (due, waiting int64, err error) {
	return s.store.EmbedQueueDepth(ctx, quire.NowMillis(), limit)
}
