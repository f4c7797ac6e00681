package service

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
)

// Embedder turns texts into unit vectors (embed.Builtin, embed.OpenAI). ID names the model, and
// is stored with every vector: vectors of different models are never compared.
type Embedder = embed.Embedder

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
	for _, k := range jsonbody.SortedKeys(body) {
		v := body[k]
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
			p.Add(jsonbody.Join("", k), quire.ReasonUnknownField, "A semantic search has no field "+k+".")
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

// SemanticEnabled reports whether the service has an embedding model.
func (s *Service) SemanticEnabled() bool { return s.embedder != nil }
