package service

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Limits of what one node contributes to semantic search.
const (
	embedMaxEntries = 200 // block entries read per node
	embedMaxChunks  = 32  // vectors stored per node
)

// Indexer embeds the queued nodes in the background. Several indexers (one per server) may
// share a database: each claims its jobs with a lease. Within one server, workers (one per core
// by default) claim and embed batches side by side.
type Indexer struct {
	svc     *Service
	log     *slog.Logger
	batch   int
	workers int
	idle    time.Duration
	lease   time.Duration
}

// NewIndexer returns the indexer of s's embedder.
func NewIndexer(s *Service, log *slog.Logger) *Indexer {
	return &Indexer{svc: s, log: log, batch: 16, workers: runtime.GOMAXPROCS(0), idle: 250 * time.Millisecond, lease: 2 * time.Minute}
}

// Run embeds queued nodes until ctx ends. At start it queues the nodes whose vectors another
// model made.
func (ix *Indexer) Run(ctx context.Context) {
	e := ix.svc.embedder
	if e == nil {
		return
	}
	if n, err := ix.svc.store.RequeueOtherModels(ctx, e.ID(), quire.NowMillis()); err != nil {
		ix.log.Error("semantic index: requeue", "err", err)
	} else if n > 0 {
		ix.log.Info("semantic index: embedding model changed, embedding again", "nodes", n, "model", e.ID())
	}
	var wg sync.WaitGroup
	for range max(1, ix.workers) {
		wg.Go(func() {
			for ctx.Err() == nil {
				n, err := ix.RunOnce(ctx)
				if err != nil && ctx.Err() == nil {
					ix.log.Error("semantic index", "err", err)
				}
				if n == 0 || err != nil {
					select {
					case <-ctx.Done():
					case <-time.After(ix.idle):
					}
				}
			}
		})
	}
	wg.Wait()
}

// RunOnce embeds one batch of queued nodes and reports how many it took. The chunks of every
// node of the batch go to the embedder in one call, which the built-in model runs as one matrix.
func (ix *Indexer) RunOnce(ctx context.Context) (int, error) {
	st, e := ix.svc.store, ix.svc.embedder
	jobs, err := st.ClaimEmbedJobs(ctx, quire.NowMillis(), ix.lease.Milliseconds(), ix.batch)
	if err != nil {
		return 0, err
	}
	type work struct {
		job    store.EmbedJob
		src    store.EmbedSource
		gone   bool
		err    error
		chunks []store.EmbedChunk // each with its vector: kept from before, or nil until embedded
		todo   []string           // the chunks to embed, in order of the nil vectors
	}
	works := make([]work, len(jobs))
	var all []string
	for i, job := range jobs {
		w := &works[i]
		w.job = job
		var ok bool
		w.src, ok, w.err = st.EmbedSource(ctx, job.NodeID, embedMaxEntries)
		w.gone = w.err == nil && !ok
		if w.err == nil && ok {
			w.chunks = embedChunks(w.src)
			w.todo, w.err = ix.reuse(ctx, w.job.NodeID, w.chunks)
			all = append(all, w.todo...)
		}
	}
	var vecs [][]float32
	if len(all) > 0 {
		vecs, err = e.Embed(ctx, all)
	}
	for i := range works {
		w := &works[i]
		if w.err != nil || len(w.todo) == 0 {
			continue
		}
		var fresh [][]float32
		if err == nil {
			fresh, vecs = vecs[:len(w.todo)], vecs[len(w.todo):]
		} else {
			// One node's text may be what failed: each node alone, so the others still land.
			fresh, w.err = e.Embed(ctx, w.todo)
		}
		for j := range w.chunks {
			if w.chunks[j].Vector == nil && len(fresh) > 0 {
				w.chunks[j].Vector, fresh = fresh[0], fresh[1:]
			}
		}
	}
	for _, w := range works {
		err := w.err
		if err == nil && w.gone {
			err = st.SaveEmbeddings(ctx, w.job, "", e.ID(), nil)
		} else if err == nil {
			err = st.SaveEmbeddings(ctx, w.job, w.src.WorkspaceID, e.ID(), w.chunks)
		}
		if err == nil {
			ix.svc.index.nodes.Add(1)
			ix.svc.index.chunks.Add(int64(len(w.todo)))
			ix.svc.index.reused.Add(int64(len(w.chunks) - len(w.todo)))
			continue
		}
		if ctx.Err() != nil {
			return len(jobs), ctx.Err()
		}
		ix.svc.index.failures.Add(1)
		// Back off: 1 s, 2 s, 4 s … up to an hour; a later write retries at once.
		backoff := time.Second << min(w.job.Attempts, 12)
		ix.log.Warn("semantic index: embedding failed; will retry", "node", w.job.NodeID, "err", err, "retry_in", backoff)
		if err := st.RetryEmbedJob(ctx, w.job, quire.NowMillis(), min(backoff, time.Hour).Milliseconds()); err != nil {
			return len(jobs), err
		}
	}
	return len(jobs), nil
}

// reuse looks up the node's stored vectors by the hash of their text: a chunk whose text (under
// this model) is unchanged keeps its vector, and only the others are embedded; it returns their
// texts. An append to a long page changes its last chunk or none.
func (ix *Indexer) reuse(ctx context.Context, id string, chunks []store.EmbedChunk) (todo []string, err error) {
	kept, err := ix.svc.store.ChunkVectors(ctx, id, ix.svc.embedder.ID())
	if err != nil {
		return nil, err
	}
	for i := range chunks {
		c := &chunks[i]
		c.Hash = store.ChunkHash(c.Text)
		if v, ok := kept[c.Hash]; ok {
			c.Vector = v
		} else {
			todo = append(todo, c.Text)
		}
	}
	return todo, nil
}

// embedChunks cuts a node's text into the pieces that get a vector each: the title, then its
// blocks' text in pieces of at most 128 model tokens (embed.ChunkEntries keeps sentences whole
// where it can), at most embedMaxChunks in all. Each body piece names the block it starts at.
func embedChunks(src store.EmbedSource) []store.EmbedChunk {
	var out []store.EmbedChunk
	if t := strings.TrimSpace(src.Title); t != "" {
		out = append(out, store.EmbedChunk{Text: t})
	}
	for _, c := range embed.ChunkEntries(src.Body) {
		if len(out) == embedMaxChunks {
			break
		}
		out = append(out, store.EmbedChunk{Text: c.Text, BlockID: src.BodyBlocks[c.Entry]})
	}
	return out
}
