package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quire-dev/quire/internal/busy"
	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Limits of what one node contributes to semantic search.
const (
	embedMaxEntries = 200 // block entries read per node
	embedMaxChunks  = 32  // vectors stored per node
)

// One embedding call of the indexer (a sub-batch) takes at most subChunks chunks and, past its
// first, subBytes bytes of text: about 512 model tokens, the built-in model's one matrix. Between
// sub-batches the indexer steps aside for requests in flight, and within one it rests at each
// step of the model while requests come (busy.Pacer), so a request shares its cores with at most
// a quarter of one (docs/performance.md "Requests first", and its fifth pass).
const (
	subChunks = 32
	subBytes  = 2048
)

// Indexer embeds the queued nodes in the background. Several indexers (one per server) may
// share a database: each claims its jobs with a lease. Within one server, workers (half the
// cores, at least one, by default) claim and embed batches side by side, each waiting on the
// busy gate before every embedding call and every save so that requests come first; once no
// request has been in flight for busy.Quiet each worker embeds spare more sub-batches beside
// its own, so an idle server indexes on every core.
type Indexer struct {
	svc     *Service
	log     *slog.Logger
	batch   int
	workers int
	spare   int
	idle    time.Duration // the least wait after finding the queue empty
	idleMax time.Duration // the most, reached while the queue stays empty and this process writes nothing
	lease   time.Duration
	gate    *busy.Gate
	maxWait time.Duration
	quiet   time.Duration // how long the gate must be empty before spare sub-batches run
	cut     chunkMemo     // the chunks last cut of each node's source (indexer_chunks.go)
}

// indexIdleMax bounds how long a write through another server sharing the database waits, on
// an idle server, before this one's indexer claims it (that server's own indexer claims it
// within ix.idle).
const indexIdleMax = 4 * time.Second

// NewIndexer returns the indexer of s's embedder. It yields to no request until Yield names the
// server's gate.
func NewIndexer(s *Service, log *slog.Logger) *Indexer {
	ix := &Indexer{svc: s, log: log, batch: 16, idle: 250 * time.Millisecond, idleMax: indexIdleMax, lease: 2 * time.Minute, quiet: busy.Quiet}
	return ix.Workers(DefaultIndexWorkers())
}

// DefaultIndexWorkers is half the cores, at least one: the embedding is CPU-bound, and the
// other half stays free for requests (one worker on a 2-core machine).
func DefaultIndexWorkers() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// Yield makes the indexer wait, before each embedding call, until g has no request in flight,
// or maxWait has passed so that the queue still drains under steady traffic (quire serve:
// busy.MaxWait).
func (ix *Indexer) Yield(g *busy.Gate, maxWait time.Duration) *Indexer {
	ix.gate, ix.maxWait = g, maxWait
	return ix
}

// Workers sets how many batches are embedded side by side; 0 keeps DefaultIndexWorkers. While
// no request is (or has lately been) in flight the workers use every core: each runs
// GOMAXPROCS/n - 1 spare sub-batches beside its own.
func (ix *Indexer) Workers(n int) *Indexer {
	if n > 0 {
		ix.workers = n
	}
	ix.spare = max(0, runtime.GOMAXPROCS(0)/max(1, ix.workers)-1)
	return ix
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
		wg.Go(func() { ix.work(ctx) })
	}
	wg.Wait()
}

// work claims and embeds batches until ctx ends. When the queue is empty it waits ix.idle (so
// a stream of writes is claimed every quarter second, not once per write: a claim is a write
// transaction), then for the next commit of this process (the events bell: every write that
// queues a node records an event) or a poll for other servers' writes that doubles, while the
// queue stays empty, up to ix.idleMax. An idle server claims every few seconds rather than four
// times a second (docs/performance.md, "Background work on an idle server, sixth pass").
//
// While the queue is full the batches overlap: the next batch is claimed and read while this
// one is embedded, and this one is saved while the next is embedded, so that the cores the
// embedding fills do not wait for the claim, the reads and the save in between (a few per cent
// of the indexer's time on 2 cores; docs/performance.md "Indexer throughput, eleventh pass").
// The saves stay one at a time and in claim order.
func (ix *Indexer) work(ctx context.Context) {
	timer := time.NewTimer(ix.idle)
	defer timer.Stop()
	poll := ix.idle
	var saving chan error // the last batch's save, under way beside the next batch's embedding
	awaitSave := func() {
		if saving != nil {
			if err := <-saving; err != nil && ctx.Err() == nil {
				ix.log.Error("semantic index", "err", err)
			}
			saving = nil
		}
	}
	defer awaitSave()
	b := ix.claim(ctx)
	for ctx.Err() == nil {
		if b.err == nil && len(b.works) > 0 {
			poll = ix.idle
			next := make(chan *claimedBatch, 1)
			go func() { next <- ix.claim(ctx) }()
			ix.embedBatch(ctx, b)
			awaitSave()
			saving = make(chan error, 1)
			go func(b *claimedBatch) { saving <- ix.save(ctx, b) }(b)
			if b = <-next; b.err == nil && len(b.works) == 0 {
				// Claimed when this batch's embedding began: what was queued since is claimed now,
				// as it was when the claim followed the save.
				b = ix.claim(ctx)
			}
			continue
		}
		if b.err != nil && ctx.Err() == nil {
			ix.log.Error("semantic index", "err", b.err)
		}
		// A failed claim (the database away) is retried like an empty queue: after ix.idle, then
		// less often while it keeps failing.
		if !sleep(ctx, timer, ix.idle) {
			return
		}
		if rest := poll - ix.idle; rest > 0 {
			timer.Reset(rest)
			select {
			case <-ctx.Done():
				return
			case <-b.bell:
			case <-timer.C:
			}
		}
		poll = min(2*poll, ix.idleMax)
		select {
		case <-b.bell:
			poll = ix.idle // a write here: writes elsewhere are likely too
		default:
		}
		b = ix.claim(ctx)
	}
}

// sleep waits d on timer (drained or fired); false when ctx ended first.
func sleep(ctx context.Context, timer *time.Timer, d time.Duration) bool {
	timer.Reset(d)
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// indexWork is one claimed node of an indexer batch on its way to the store.
type indexWork struct {
	job    store.EmbedJob
	src    store.EmbedSource
	gone   bool
	err    error
	chunks []store.EmbedChunk // each with its vector: kept from before, or nil until embedded
	todo   []string           // the chunks to embed, in order of the nil vectors
	same   bool               // the stored vectors are chunks already: only the job ends
}

// save is what the store keeps of w: its vectors, or for a node that is gone none.
func (w *indexWork) save() store.EmbedSave {
	if w.gone {
		return store.EmbedSave{Job: w.job}
	}
	return store.EmbedSave{Job: w.job, Workspace: w.src.WorkspaceID, Chunks: w.chunks, Unchanged: w.same}
}

// claimedBatch is one claim of queued nodes: read and cut (claim), embedded (embedBatch), saved
// (save).
type claimedBatch struct {
	works []indexWork
	all   []string        // the chunks to embed, node after node
	bell  <-chan struct{} // the events bell before the claim: a commit after it rings
	err   error           // the claim failed
}

// RunOnce embeds one batch of queued nodes and reports how many it took. The chunks of every
// node of the batch go to the embedder together, in sub-batches of about one built-in matrix
// each (embed), with a wait for requests in flight before each.
func (ix *Indexer) RunOnce(ctx context.Context) (int, error) {
	b := ix.claim(ctx)
	if b.err != nil || len(b.works) == 0 {
		return 0, b.err
	}
	ix.embedBatch(ctx, b)
	return len(b.works), ix.save(ctx, b)
}

// claim claims a batch of queued nodes and reads and cuts each, keeping the stored vectors of
// chunks whose text is unchanged. A node that cannot be read carries its error to save.
func (ix *Indexer) claim(ctx context.Context) *claimedBatch {
	st, e := ix.svc.store, ix.svc.embedder
	b := &claimedBatch{bell: ix.svc.EventsCommitted()}
	jobs, err := st.ClaimEmbedJobs(ctx, quire.NowMillis(), ix.lease.Milliseconds(), ix.batch)
	if err != nil {
		b.err = err
		return b
	}
	b.works = make([]indexWork, len(jobs))
	var found []string // the nodes that still exist, whose stored vectors may be reused
	for i, job := range jobs {
		w := &b.works[i]
		w.job = job
		var ok bool
		w.src, ok, w.err = st.EmbedSource(ctx, job.NodeID, embedMaxEntries)
		w.gone = w.err == nil && !ok
		if w.err == nil && ok {
			found = append(found, job.NodeID)
		}
	}
	if len(found) == 0 {
		return b
	}
	// One read of the batch's stored vectors: on PostgreSQL a statement per node was a round
	// trip per node, most of the work of indexing records (one short chunk each).
	kept, err := st.StoredChunksOf(ctx, e.ID(), found)
	for i := range b.works {
		w := &b.works[i]
		if w.err == nil && !w.gone {
			w.chunks = ix.cut.chunks(w.job.NodeID, w.src)
			if err != nil {
				w.err = err
				continue
			}
			stored := kept[w.job.NodeID]
			w.todo = reuse(stored.Vectors, w.chunks)
			w.same = len(w.todo) == 0 && stored.Same(w.src.WorkspaceID, e.ID(), w.chunks)
			b.all = append(b.all, w.todo...)
		}
	}
	return b
}

// embedBatch embeds the chunks of b's nodes together and gives each node its vectors; when that
// fails, each node's alone, so that one node's text that fails does not hold back the others.
func (ix *Indexer) embedBatch(ctx context.Context, b *claimedBatch) {
	if len(b.all) == 0 {
		return
	}
	vecs, err := ix.embed(ctx, b.all)
	for i := range b.works {
		w := &b.works[i]
		if w.err != nil || len(w.todo) == 0 {
			continue
		}
		var fresh [][]float32
		if err == nil {
			fresh, vecs = vecs[:len(w.todo)], vecs[len(w.todo):]
		} else {
			fresh, w.err = ix.embed(ctx, w.todo)
		}
		for j := range w.chunks {
			if w.chunks[j].Vector == nil && len(fresh) > 0 {
				w.chunks[j].Vector, fresh = fresh[0], fresh[1:]
			}
		}
	}
}

// save stores what b's nodes got, together in one transaction, after a wait for requests in
// flight like the embedding's; a node whose save then fails is saved alone, so one bad node
// does not hold back the others, and a node that failed is queued again after a back-off.
func (ix *Indexer) save(ctx context.Context, b *claimedBatch) error {
	st, e := ix.svc.store, ix.svc.embedder
	var saves []store.EmbedSave
	for _, w := range b.works {
		if w.err == nil {
			saves = append(saves, w.save())
		}
	}
	batchErr := ix.gate.Wait(ctx, ix.maxWait)
	if batchErr == nil {
		batchErr = st.SaveEmbeddingBatch(ctx, e.ID(), saves)
	}
	for _, w := range b.works {
		err := w.err
		if err == nil && batchErr != nil {
			err = st.SaveEmbeddingBatch(ctx, e.ID(), []store.EmbedSave{w.save()})
		}
		if err == nil {
			ix.svc.index.nodes.Add(1)
			ix.svc.index.chunks.Add(int64(len(w.todo)))
			ix.svc.index.reused.Add(int64(len(w.chunks) - len(w.todo)))
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ix.svc.index.failures.Add(1)
		// Back off: 1 s, 2 s, 4 s … up to an hour; a later write retries at once.
		backoff := time.Second << min(w.job.Attempts, 12)
		ix.log.Warn("semantic index: embedding failed; will retry", "node", w.job.NodeID, "err", err, "retry_in", backoff)
		if err := st.RetryEmbedJob(ctx, w.job, quire.NowMillis(), min(backoff, time.Hour).Milliseconds()); err != nil {
			return err
		}
	}
	return nil
}

// embed embeds texts in sub-batches (subBatch), waiting on the busy gate before each. When no
// request has been in flight for ix.quiet, spare goroutines (ix.spare) take sub-batches beside
// this one's: the extra cores are taken only while requests do not need them, and for at most
// one sub-batch's time after one arrives (a spare goroutine waits before its next sub-batch
// until the gate has been quiet for ix.quiet again). Each goroutine takes the next sub-batch
// as soon as it is done with its own, so no core waits for a longer sub-batch on the other (as
// in rounds of one sub-batch per core, which left a core idle at the end of each round).
func (ix *Indexer) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	var parts [][2]int // [from, to) of each sub-batch
	for start := 0; start < len(texts); start = parts[len(parts)-1][1] {
		parts = append(parts, [2]int{start, start + subBatch(texts[start:])})
	}
	var next atomic.Int64 // the next part to take; len(parts) once one fails
	done := make(chan struct{})
	finish := sync.OnceFunc(func() { close(done) }) // no part left to take, or one failed
	take := func(spare bool) error {
		defer finish()
		for {
			if err := ix.gate.Wait(ctx, ix.maxWait); err != nil {
				return err
			}
			// Spare cores only after a quiet spell, not in the gap between two requests of a
			// client sending them one after another: a spare sub-batch holds every core for its
			// whole length, and a request that arrives meanwhile waits for a core after each
			// of its database round trips (on PostgreSQL, several per request;
			// docs/performance.md "Requests first on PostgreSQL").
			for idle := ix.gate.IdleFor(); spare && idle < ix.quiet; idle = ix.gate.IdleFor() {
				select {
				case <-done:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(ix.quiet - idle):
				}
			}
			i := int(next.Add(1) - 1)
			if i >= len(parts) {
				return nil
			}
			p := parts[i]
			// Paced within the call as well: a sub-batch is hundreds of milliseconds of one
			// core, and while requests come it takes at most a quarter of that core
			// (busy.Rest; docs/performance.md "Requests first and indexer throughput, fifth
			// pass"), a spare sub-batch that a request interrupts included.
			pacer := ix.gate.Pacer(ix.quiet)
			vecs, err := ix.svc.embedder.Embed(embed.WithPause(ctx, pacer.Pause), texts[p[0]:p[1]])
			if err == nil && len(vecs) != p[1]-p[0] {
				err = fmt.Errorf("embedder answered %d vectors for %d texts", len(vecs), p[1]-p[0])
			}
			if err != nil {
				next.Store(int64(len(parts))) // the others stop at their next sub-batch
				return err
			}
			copy(out[p[0]:p[1]], vecs)
		}
	}
	errs := make([]error, 1+min(ix.spare, len(parts)-1))
	var wg sync.WaitGroup
	for s := 1; s < len(errs); s++ {
		wg.Go(func() { errs[s] = take(true) })
	}
	errs[0] = take(false)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// subBatch is how many of texts (at least one) the next embedding call takes: at most
// subChunks, and past the first at most subBytes bytes in all.
func subBatch(texts []string) int {
	n, size := 0, 0
	for n < len(texts) && n < subChunks && (n == 0 || size+len(texts[n]) <= subBytes) {
		size += len(texts[n])
		n++
	}
	return n
}

// reuse gives each chunk whose text (under this model) is unchanged its stored vector from kept
// (by the hash of its text), so that only the others are embedded; it returns their texts. An
// append to a long page changes its last chunk or none.
func reuse(kept map[string][]float32, chunks []store.EmbedChunk) (todo []string) {
	for i := range chunks {
		c := &chunks[i]
		c.Hash = store.ChunkHash(c.Text)
		if v, ok := kept[c.Hash]; ok {
			c.Vector = v
		} else {
			todo = append(todo, c.Text)
		}
	}
	return todo
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
