package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

type searchInput struct {
	Body reqBody[searchRequest]
}

func (s *Server) registerSearch() {
	register(s, op("search", http.MethodPost, "/v2/search", "Search",
		"Search by keyword",
		"Pages, databases, folders and mind maps whose title or content holds every term, in any "+
			"script (Chinese and Japanese included): title matches first, then those with the most matching "+
			"blocks, then the latest edit. Content in trash or out of the token's reach never appears."), route{scopes: []quire.Scope{quire.SearchRead}, search: true}, s.search)
}

// search answers POST /v2/search.
func (s *Server) search(ctx context.Context, in *searchInput) (*nodeListOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	req, err := service.DecodeSearch(body)
	if err != nil {
		return nil, err
	}
	pg, err := s.svc.Search(ctx, principal(ctx), req)
	if err != nil {
		return nil, err
	}
	items := make([]nodeObject, len(pg.Items))
	for i, r := range pg.Items {
		if items[i], err = s.newNodeObject(r.Node); err != nil {
			return nil, err
		}
	}
	return &nodeListOutput{Body: newList(items, pg.NextCursor)}, nil
}

// semanticResult is one fragment of a semantic search's answer: the original service's
// {object, page_id, block_id, score, text}, and what a client shows beside it.
type semanticResult struct {
	Object   string       `json:"object" enum:"semantic_search_result"`
	PageID   string       `json:"page_id" format:"uuid" doc:"The page (or database) the fragment is of."`
	BlockID  *string      `json:"block_id" format:"uuid" nullable:"true" doc:"The block the fragment starts at; null for the title, a mind map's nodes or a record's property values."`
	Score    float64      `json:"score" minimum:"0" maximum:"1" doc:"How close the fragment is to the query, 0 to 1: best first."`
	Text     string       `json:"text" doc:"The fragment as plain text: the title, or up to 128 model tokens of the content, whitespace collapsed."`
	Title    string       `json:"title" doc:"The page's title, as plain text."`
	URL      string       `json:"url"`
	PageType string       `json:"page_type" enum:"page,folder,mind_map,database"`
	Parent   parentObject `json:"parent" doc:"The page's parent."`
}

type semanticInput struct {
	Body reqBody[semanticRequest]
}

type semanticOutput struct{ Body list[semanticResult] }

func (s *Server) registerSemanticSearch() {
	if !s.svc.SemanticEnabled() {
		return
	}
	register(s, huma.Operation{
		OperationID: "search-semantic", Method: http.MethodPost, Path: "/v2/search/semantic",
		Errors:  []int{http.StatusServiceUnavailable}, // an outside embeddings service is down
		Summary: "Search by meaning", Tags: []string{"Search"},
		Description: "Fragments of pages and databases (their title, or a piece of their content) ranked by how " +
			"close they are in meaning to the query, with a small bonus for the query's words their page holds; " +
			"best first, paginated. Content in trash or out of the token's reach never appears. A write is found " +
			"within seconds, once the background indexer has embedded it.",
	}, route{scopes: []quire.Scope{quire.SearchRead}}, s.semanticSearch)
}

// semanticSearch answers POST /v2/search/semantic.
func (s *Server) semanticSearch(ctx context.Context, in *semanticInput) (*semanticOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	req, err := service.DecodeSemanticSearch(body)
	if err != nil {
		return nil, err
	}
	res, err := s.svc.SemanticSearch(ctx, principal(ctx), req)
	if err != nil {
		return nil, err
	}
	return &semanticOutput{Body: listOf(res.Items, res.NextCursor, s.newSemanticResult)}, nil
}

func (s *Server) newSemanticResult(h service.SemanticHit) semanticResult {
	r := semanticResult{Object: "semantic_search_result", PageID: h.NodeID, Score: h.Score, Text: h.Text,
		Title: h.Node.TitlePlain, URL: s.svc.PageURL(h.NodeID), PageType: h.Node.PageType,
		Parent: newParent(h.Node.ParentType, h.Node.ParentID)}
	if h.Node.Object == quire.ObjectDatabase {
		r.PageType = "database"
	}
	if h.BlockID != "" {
		r.BlockID = &h.BlockID
	}
	return r
}
