package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
)

// SearchService runs keyword and semantic search.
type SearchService struct{ c *Client }

// Result is one item of a list that mixes kinds: exactly one of Page, Database and Node is
// set, after Object (page, database or page_node).
type Result struct {
	Object   string
	ID       string
	Page     *Page
	Database *Database
	Node     *PageNode
}

// UnmarshalJSON decodes the item by its object.
func (r *Result) UnmarshalJSON(data []byte) error {
	var head struct {
		Object string `json:"object"`
		ID     string `json:"id"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	*r = Result{Object: head.Object, ID: head.ID}
	switch head.Object {
	case "page":
		r.Page = new(Page)
		return json.Unmarshal(data, r.Page)
	case "database":
		r.Database = new(Database)
		return json.Unmarshal(data, r.Database)
	case "page_node":
		r.Node = new(PageNode)
		return json.Unmarshal(data, r.Node)
	}
	return nil
}

// Title is the plain-text title of whichever object the result holds.
func (r *Result) Title() string {
	switch {
	case r.Page != nil:
		return r.Page.Title()
	case r.Database != nil:
		return PlainText(r.Database.Title)
	case r.Node != nil:
		return r.Node.Title
	}
	return ""
}

// SearchRequest is the body of a keyword search. An empty Query lists everything
// reachable, last edited first.
type SearchRequest struct {
	Query       string        `json:"query,omitempty"`
	Filter      *SearchFilter `json:"filter,omitempty"`
	Sort        *SearchSort   `json:"sort,omitempty"`
	PageSize    int           `json:"page_size,omitempty"`
	StartCursor string        `json:"start_cursor,omitempty"`
}

// SearchFilter keeps one kind: Value page, database, folder or mind_map (Property "object").
type SearchFilter struct {
	Property string `json:"property"`
	Value    string `json:"value"`
}

// ObjectFilter keeps results of one kind (page, database, folder, mind_map).
func ObjectFilter(kind string) *SearchFilter { return &SearchFilter{Property: "object", Value: kind} }

// SearchSort replaces relevance: Timestamp created_time or last_edited_time.
type SearchSort struct {
	Timestamp string `json:"timestamp"`
	Direction string `json:"direction"`
}

// SemanticRequest is the body of a semantic search: one page of the best fragments.
type SemanticRequest struct {
	Query          string        `json:"query"`
	Filter         *SearchFilter `json:"filter,omitempty"`
	PageSize       int           `json:"page_size,omitempty"`
	StartCursor    string        `json:"start_cursor,omitempty"`
	ScoreThreshold float64       `json:"score_threshold,omitempty"`
}

// SemanticResult is one fragment a semantic search answers: a piece of a page's (or
// database's) text, the block it starts at (nil for the title) and its score, 0 to 1.
type SemanticResult struct {
	Object   string  `json:"object"`
	PageID   string  `json:"page_id"`
	BlockID  *string `json:"block_id"`
	Score    float64 `json:"score"`
	Text     string  `json:"text"`
	Title    string  `json:"title"`
	URL      string  `json:"url"`
	PageType string  `json:"page_type"`
}

// Keyword yields the pages and databases matching every word of q.Query, best first.
func (s *SearchService) Keyword(ctx context.Context, q SearchRequest) iter.Seq2[*Result, error] {
	return paginate(ctx, q.StartCursor, func(ctx context.Context, cursor string) (*List[*Result], error) {
		body := q
		body.StartCursor = cursor
		var out List[*Result]
		_, err := s.c.do(ctx, request{method: http.MethodPost, path: "/v2/search", body: body}, &out)
		return ret(&out, err)
	})
}

// Semantic answers one page of the fragments closest in meaning to q.Query, best first.
func (s *SearchService) Semantic(ctx context.Context, q SemanticRequest) ([]*SemanticResult, error) {
	var out List[*SemanticResult]
	if _, err := s.c.do(ctx, request{method: http.MethodPost, path: "/v2/search/semantic", body: q}, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}
