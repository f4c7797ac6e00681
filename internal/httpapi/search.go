package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// searchRequest documents the body of POST /v2/search; the service's decoder reads it.
type searchRequest struct {
	Query       string        `json:"query,omitempty" maxLength:"1000" doc:"Words or \"quoted phrases\", at most 20; each must occur in the title or in one block. Empty or left out: everything, last edited first."`
	Filter      *searchFilter `json:"filter,omitempty"`
	Sort        *searchSort   `json:"sort,omitempty" doc:"Replaces the ranking by relevance."`
	StartCursor string        `json:"start_cursor,omitempty"`
	PageSize    int           `json:"page_size,omitempty" minimum:"1" maximum:"100" default:"20"`
}

type searchFilter struct {
	Property string `json:"property" enum:"object"`
	Value    string `json:"value" enum:"page,database,folder,mind_map"`
}

type searchSort struct {
	Timestamp string `json:"timestamp,omitempty" enum:"last_edited_time,created_time" default:"last_edited_time"`
	Direction string `json:"direction,omitempty" enum:"ascending,descending" default:"descending"`
}

type searchInput struct {
	Body reqBody[searchRequest]
}

func (s *Server) registerSearch() {
	register(s, huma.Operation{
		OperationID: "search", Method: http.MethodPost, Path: "/v2/search",
		Summary: "Search by keyword", Tags: []string{"Search"},
		Description: "Pages, databases, folders and mind maps whose title or content holds every term, in any " +
			"script (Chinese and Japanese included): title matches first, then those with the most matching " +
			"blocks, then the latest edit. Content in trash or out of the token's reach never appears.",
	}, route{scopes: []quire.Scope{quire.SearchRead}}, s.search)
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

// semanticRequest documents the body of POST /v2/search/semantic.
type semanticRequest struct {
	Query    string        `json:"query" minLength:"1" maxLength:"1000" doc:"What to look for, in your own words."`
	Filter   *searchFilter `json:"filter,omitempty"`
	PageSize int           `json:"page_size,omitempty" minimum:"1" maximum:"100" default:"20"`
}

type semanticInput struct {
	Body reqBody[semanticRequest]
}

func (s *Server) registerSemanticSearch() {
	if !s.svc.SemanticEnabled() {
		return
	}
	register(s, huma.Operation{
		OperationID: "search-semantic", Method: http.MethodPost, Path: "/v2/search/semantic",
		Errors:  []int{http.StatusServiceUnavailable}, // an outside embeddings service is down
		Summary: "Search by meaning", Tags: []string{"Search"},
		Description: "Pages and databases ranked by how close their title or content is in meaning to the query, " +
			"with a small bonus for the query's words they contain. One page of results (no cursor). A write is " +
			"found within seconds, once the background indexer has embedded it.",
	}, route{scopes: []quire.Scope{quire.SearchRead}}, s.semanticSearch)
}

// semanticSearch answers POST /v2/search/semantic.
func (s *Server) semanticSearch(ctx context.Context, in *semanticInput) (*nodeListOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	req, err := service.DecodeSemanticSearch(body)
	if err != nil {
		return nil, err
	}
	hits, err := s.svc.SemanticSearch(ctx, principal(ctx), req)
	if err != nil {
		return nil, err
	}
	items := make([]nodeObject, len(hits))
	for i, h := range hits {
		if items[i], err = s.newNodeObject(h.Node); err != nil {
			return nil, err
		}
	}
	return &nodeListOutput{Body: newList(items, "")}, nil
}
