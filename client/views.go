package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"time"
)

// ViewsService reads and writes the views of a database.
type ViewsService struct{ c *Client }

// View is a database view. Filter, Sorts, GroupBy and PropertyLayout are the web client's
// formats (docs/api.md, "Views"), kept as JSON.
type View struct {
	Object         string          `json:"object"`
	ID             string          `json:"id"`
	DatabaseID     string          `json:"database_id"`
	Name           string          `json:"name"`
	Type           string          `json:"type"` // table, board, gallery, list, calendar, timeline or form
	PropertyLayout json.RawMessage `json:"property_layout"`
	Filter         json.RawMessage `json:"filter"`
	Sorts          json.RawMessage `json:"sorts"`
	GroupBy        json.RawMessage `json:"group_by"`
	Config         map[string]any  `json:"config"`
	PageSort       []string        `json:"page_sort,omitempty"` // the detail (Get) only
	CreatedTime    time.Time       `json:"created_time"`
	LastEditedTime time.Time       `json:"last_edited_time"`
	InTrash        bool            `json:"in_trash"`
	ETag           string          `json:"-"`
}

// ViewWrite is the body of Views.Create (Name and Type required) and Views.Update (only the
// fields set change). A json.RawMessage field left nil is not sent; RawNull clears it.
type ViewWrite struct {
	Name           string          `json:"name,omitempty"`
	Type           string          `json:"type,omitempty"`
	PropertyLayout json.RawMessage `json:"property_layout,omitempty"`
	Filter         json.RawMessage `json:"filter,omitempty"`
	Sorts          json.RawMessage `json:"sorts,omitempty"`
	GroupBy        json.RawMessage `json:"group_by,omitempty"`
	Config         json.RawMessage `json:"config,omitempty"`
	PageSort       []string        `json:"page_sort,omitempty"` // Update only
	InTrash        *bool           `json:"in_trash,omitempty"`  // Update only
}

func viewPath(databaseID, viewID string) string {
	p := "/v2/databases/" + pathID(databaseID) + "/views"
	if viewID != "" {
		p += "/" + pathID(viewID)
	}
	return p
}

// Create adds a view after the database's others.
func (s *ViewsService) Create(ctx context.Context, databaseID string, v ViewWrite, opts ...CallOption) (*View, error) {
	return versioned[View](ctx, s.c, request{method: http.MethodPost, path: viewPath(databaseID, ""), body: v, opts: opts})
}

// Get answers the view with its page_sort and ETag.
func (s *ViewsService) Get(ctx context.Context, databaseID, viewID string) (*View, error) {
	return versioned[View](ctx, s.c, request{method: http.MethodGet, path: viewPath(databaseID, viewID)})
}

// Update changes the view; IfMatch(view.ETag) guards it.
func (s *ViewsService) Update(ctx context.Context, databaseID, viewID string, v ViewWrite, opts ...CallOption) (*View, error) {
	return versioned[View](ctx, s.c, request{method: http.MethodPatch, path: viewPath(databaseID, viewID), body: v, opts: opts})
}

// Delete puts the view in trash.
func (s *ViewsService) Delete(ctx context.Context, databaseID, viewID string) (*View, error) {
	return versioned[View](ctx, s.c, request{method: http.MethodDelete, path: viewPath(databaseID, viewID)})
}

// List yields the database's views in their order.
func (s *ViewsService) List(ctx context.Context, databaseID string, opts ListOptions) iter.Seq2[*View, error] {
	return paginate(ctx, opts.StartCursor, func(ctx context.Context, cursor string) (*List[*View], error) {
		var out List[*View]
		_, err := s.c.do(ctx, request{method: http.MethodGet, path: viewPath(databaseID, ""), query: listQuery(opts.PageSize, cursor)}, &out)
		return ret(&out, err)
	})
}

func (x *View) setETag(etag string) { x.ETag = etag }

// RawNull is JSON null, for the fields of a ViewWrite that null clears.
var RawNull = json.RawMessage("null")
