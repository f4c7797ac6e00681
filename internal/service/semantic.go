package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"time"

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
	Query          string
	Object         string
	PageSize       int
	StartCursor    string
	SpaceID        string  // "" when not given; else it must be the token's workspace
	ScoreThreshold float64 // fragments scoring less are left out (0–1)
}

// semanticPageSize is the page size when none is given, the original service's.
const semanticPageSize = 10

// DecodeSemanticSearch reads {query, filter?, page_size?, start_cursor?, space_id?,
// score_threshold?}; start_cursor and space_id may be null.
func DecodeSemanticSearch(body map[string]any) (SemanticRequest, error) {
	var p quire.Problems
	out := SemanticRequest{PageSize: semanticPageSize}
	for _, k := range jsonbody.SortedKeys(body) {
		if !SemanticBody.Takes(&p, k) {
			continue
		}
		v := body[k]
		switch k {
		case "query":
			out.Query = decodeQuery(&p, v, true)
		case "filter":
			out.Object = decodeSearchFilter(&p, v)
		case "page_size":
			out.PageSize = decodePageSize(&p, v, out.PageSize)
		case "start_cursor":
			out.StartCursor = nullableString(&p, k, v)
		case "space_id":
			out.SpaceID = nullableString(&p, k, v)
		case "score_threshold":
			n, ok := v.(float64)
			switch {
			case !ok:
				p.Add(k, quire.ReasonInvalidType, "score_threshold must be a number.")
			case n < 0 || n > 1:
				p.Add(k, quire.ReasonOutOfRange, "score_threshold must be between 0 and 1.")
			default:
				out.ScoreThreshold = n
			}
		}
	}
	if _, ok := body["query"]; !ok {
		p.Add("query", quire.ReasonRequired, "query is required.")
	}
	return out, p.Err()
}

// SemanticHit is one result of a semantic search: a fragment and the page or database it is of.
type SemanticHit struct {
	Node *quire.Node
	search.Fragment
}

// SemanticSearch answers POST /v2/search/semantic: fragments (the chunks that were embedded) of
// the pages and databases the caller reaches, best first. The search.Candidates nodes with the
// best cosine between the query and one of their chunks are picked, from vectors streamed from
// the store or the vector cache; each of their chunks is scored (search.FragmentScore: its
// cosine plus a small bonus for the share of the query's terms its node holds), and the list
// pages through them with a cursor that resumes after the last fragment answered.
func (s *Service) SemanticSearch(ctx context.Context, p *quire.Principal, r SemanticRequest) (Results[SemanticHit], error) {
	var none Results[SemanticHit]
	if s.embedder == nil {
		return none, &quire.Error{Code: quire.CodeInternal, Message: "Semantic search has no embedding model."}
	}
	ws := p.WorkspaceID()
	if r.SpaceID != "" && r.SpaceID != ws {
		return none, quire.NotFound("space " + r.SpaceID)
	}
	// A cursor belongs to one query: the same text, filter and threshold.
	h := sha256.Sum256([]byte(r.Query + "\x00" + r.Object + "\x00" + strconv.FormatFloat(r.ScoreThreshold, 'g', -1, 64)))
	list := "semantic:" + ws + ":" + hex.EncodeToString(h[:12])
	var after *search.FragmentKey
	if r.StartCursor != "" {
		after = &search.FragmentKey{}
		if err := s.cursors.Decode(r.StartCursor, list, after); err != nil {
			return none, InvalidCursor()
		}
	}
	qv, err := s.embedder.Embed(ctx, []string{r.Query})
	if err != nil {
		if ctx.Err() != nil {
			return none, ctx.Err()
		}
		// An outside embeddings service that is down or refusing is a passing outage, not a
		// fault of ours: the client may retry (503), and the log keeps the cause.
		return none, &quire.Error{Code: quire.CodeUnavailable, Cause: err,
			Message: "The embedding model did not answer; try again shortly."}
	}
	vq := search.VectorQuery{Workspace: ws, Model: s.embedder.ID()}
	if !p.Token.WorkspaceScoped {
		vq.ReachOf = p.Token.ID
	}
	vq.Object, vq.PageType = objectFilter(r.Object)
	top, err := s.semanticCandidates(ctx, vq, qv[0])
	if err != nil {
		return none, err
	}
	ids := make([]string, len(top))
	for i, c := range top {
		ids[i] = c.ID
	}
	terms := search.KeywordTerms(r.Query)
	hits, err := s.store.TermHits(ctx, ids, terms)
	if err != nil {
		return none, err
	}
	var frags []search.Fragment
	err = s.store.ScanFragments(ctx, ws, vq.Model, ids, func(f search.Fragment, vec []float32) error {
		f.Score = search.FragmentScore(search.Cosine(qv[0], vec), search.TermShare(hits[f.NodeID], len(terms)))
		frags = append(frags, f)
		return nil
	})
	if err != nil {
		return none, err
	}
	page, more := search.RankFragments(frags, after, r.ScoreThreshold, r.PageSize)
	out, err := s.fragmentNodes(ctx, ws, page)
	if err != nil || !more {
		return Results[SemanticHit]{Items: out}, err
	}
	next, err := s.cursors.Encode(list, page[len(page)-1].Key())
	return Results[SemanticHit]{Items: out, NextCursor: next}, err
}

// fragmentNodes reads the nodes of frags in one read and pairs them; a fragment whose node is
// gone or in trash since its vectors were scanned is left out.
func (s *Service) fragmentNodes(ctx context.Context, ws string, frags []search.Fragment) ([]SemanticHit, error) {
	var ids []string
	for _, f := range frags {
		if !slices.Contains(ids, f.NodeID) {
			ids = append(ids, f.NodeID)
		}
	}
	nodes, err := s.store.Nodes(ctx, ws, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*quire.Node, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	out := make([]SemanticHit, 0, len(frags))
	for _, f := range frags {
		if n := byID[f.NodeID]; n != nil && !n.Hidden() {
			out = append(out, SemanticHit{Node: n, Fragment: f})
		}
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
