package service

import (
	"context"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
)

// Embedder turns texts into unit vectors (embed.Builtin, embed.OpenAI). ID names the model, and
// is stored with every vector: vectors of different models are never compared.
type Embedder = embed.Embedder

// Limits of what one node contributes to semantic search.
const (
	embedMaxEntries = 200 // block entries read per node
	embedMaxChunks  = 32  // vectors stored per node
)

// SemanticRequest is a decoded POST /v2/search/semantic body.
type SemanticRequest struct {
	Query    string
	Object   string
	PageSize int
}

// DecodeSemanticSearch reads {query, filter?, page_size?}.
func DecodeSemanticSearch(body map[string]any) (SemanticRequest, error) {
	var p quire.Problems
	out := SemanticRequest{PageSize: 20}
	for k, v := range body {
		switch k {
		case "query":
			s, ok := v.(string)
			switch {
			case !ok:
				p.Add("query", quire.ReasonInvalidType, "query must be a string.")
			case strings.TrimSpace(s) == "":
				p.Add("query", quire.ReasonRequired, "query must not be empty.")
			case utf8.RuneCountInString(s) > MaxQueryLength:
				p.Add("query", quire.ReasonTooLong, "query is at most 1000 characters.")
			default:
				out.Query = s
			}
		case "filter":
			out.Object = decodeSearchFilter(&p, v)
		case "page_size":
			out.PageSize = decodePageSize(&p, v, out.PageSize)
		default:
			p.Add(fieldName(k), quire.ReasonUnknownField, "A semantic search has no field "+k+".")
		}
	}
	if _, ok := body["query"]; !ok {
		p.Add("query", quire.ReasonRequired, "query is required.")
	}
	return out, p.Err()
}

// SemanticHit is one result of a semantic search.
type SemanticHit struct {
	Node  *quire.Node
	Score float64
}

// SemanticSearch answers POST /v2/search/semantic: the pages and databases the caller reaches,
// ranked by the best cosine similarity between the query and one of their chunks, plus a small
// bonus for the share of the query's terms they contain (search.Rank). Vectors are streamed
// from the store, or picked from the vector cache, and only the best candidates are kept.
func (s *Service) SemanticSearch(ctx context.Context, p *quire.Principal, r SemanticRequest) ([]SemanticHit, error) {
	if s.embedder == nil {
		return nil, &quire.Error{Code: quire.CodeInternal, Message: "Semantic search has no embedding model."}
	}
	qv, err := s.embedder.Embed(ctx, []string{r.Query})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// An outside embeddings service that is down or refusing is a passing outage, not a
		// fault of ours: the client may retry (503), and the log keeps the cause.
		return nil, &quire.Error{Code: quire.CodeUnavailable, Cause: err,
			Message: "The embedding model did not answer; try again shortly."}
	}
	vq := search.VectorQuery{Workspace: p.WorkspaceID(), Model: s.embedder.ID()}
	if !p.Token.WorkspaceScoped {
		vq.ReachOf = p.Token.ID
	}
	vq.Object, vq.PageType = objectFilter(r.Object)
	top, err := s.semanticCandidates(ctx, vq, qv[0])
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(top))
	for i, c := range top {
		ids[i] = c.ID
	}
	terms := search.KeywordTerms(r.Query)
	hits, err := s.store.TermHits(ctx, ids, terms)
	if err != nil {
		return nil, err
	}
	ranked := search.Rank(top, terms, hits, r.PageSize)
	// The results' nodes in one read; a node gone since its vectors were scanned is left out.
	ids = ids[:0]
	for _, h := range ranked {
		ids = append(ids, h.ID)
	}
	nodes, err := s.store.Nodes(ctx, p.WorkspaceID(), ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*quire.Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	out := make([]SemanticHit, 0, len(ranked))
	for _, h := range ranked {
		if n := byID[h.ID]; n != nil {
			out = append(out, SemanticHit{Node: n, Score: h.Score})
		}
	}
	if err := s.RenderRecords(ctx, nodes, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// Rescoring of the vector cache's candidates: batches of rescoreBatch nodes in the order of
// their quantized scores, at most rescoreBatches of them before a query falls back to streaming.
const (
	rescoreBatch   = 2 * search.Candidates
	rescoreBatches = 4
)

// semanticCandidates returns the search.Candidates visible nodes of vq with the best chunk
// cosine to qv. From the workspace's cached quantized vectors when it fits the cache: the best
// nodes by quantized score are checked in the database in batches (trash, reach and filters)
// and scored again with their exact float32 vectors, until search.Candidates are visible; a
// token that sees too few of the best ones falls back to streaming. Streaming reads every
// visible vector.
func (s *Service) semanticCandidates(ctx context.Context, vq search.VectorQuery, qv []float32) ([]search.Scored, error) {
	if s.vectors != nil {
		set, err := s.vectors.get(ctx, s.store, vq.Workspace, vq.Model, time.Now().UnixNano())
		if err != nil {
			return nil, err
		}
		if set != nil {
			order, total := set.Ranked(qv, rescoreBatch*rescoreBatches)
			set.mu.RUnlock()
			var top search.Top
			for batch := range slices.Chunk(order, rescoreBatch) {
				q := vq
				q.Nodes = batch
				if err := s.store.ScanVectors(ctx, q, top.Scorer(qv)); err != nil {
					return nil, err
				}
				if top.Len() >= search.Candidates {
					return top.Nodes(), nil
				}
			}
			if len(order) == total { // every node with vectors was checked
				return top.Nodes(), nil
			}
		}
	}
	var top search.Top
	err := s.store.ScanVectors(ctx, vq, top.Scorer(qv))
	return top.Nodes(), err
}

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
		chunks []string
		hashes []string
		vecs   [][]float32 // one per chunk: kept from before, or nil until embedded
		todo   []string    // the chunks to embed, in order of the nil entries of vecs
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
			w.err = ix.reuse(ctx, w.job.NodeID, w.chunks, &w.hashes, &w.vecs, &w.todo)
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
		for j := range w.vecs {
			if w.vecs[j] == nil && len(fresh) > 0 {
				w.vecs[j], fresh = fresh[0], fresh[1:]
			}
		}
	}
	for _, w := range works {
		err := w.err
		if err == nil && w.gone {
			err = st.SaveEmbeddings(ctx, w.job, "", e.ID(), nil)
		} else if err == nil {
			err = st.SaveEmbeddings(ctx, w.job, w.src.WorkspaceID, e.ID(), w.vecs, w.hashes...)
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
// this model) is unchanged keeps its vector, and only the others are embedded. An append to a
// long page changes its last chunk or none.
func (ix *Indexer) reuse(ctx context.Context, id string, chunks []string, hashes *[]string, vecs *[][]float32, todo *[]string) error {
	kept, err := ix.svc.store.ChunkVectors(ctx, id, ix.svc.embedder.ID())
	if err != nil {
		return err
	}
	*hashes, *vecs = make([]string, len(chunks)), make([][]float32, len(chunks))
	for i, c := range chunks {
		(*hashes)[i] = store.ChunkHash(c)
		if v, ok := kept[(*hashes)[i]]; ok {
			(*vecs)[i] = v
		} else {
			*todo = append(*todo, c)
		}
	}
	return nil
}

// embedChunks cuts a node's text into the pieces that get a vector each: the title, then its
// blocks' text in pieces of at most 128 model tokens (embed.Chunks keeps sentences whole where
// it can), at most embedMaxChunks in all.
func embedChunks(src store.EmbedSource) []string {
	var out []string
	if t := strings.TrimSpace(src.Title); t != "" {
		out = append(out, t)
	}
	for _, c := range embed.Chunks(strings.Join(src.Body, "\n")) {
		if len(out) == embedMaxChunks {
			break
		}
		out = append(out, c)
	}
	return out
}

// SemanticEnabled reports whether the service has an embedding model.
func (s *Service) SemanticEnabled() bool { return s.embedder != nil }
