package client

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// DatabasesService reads and writes databases, their records, queries and mutations.
type DatabasesService struct{ c *Client }

// Database is a database object; Properties is its schema keyed by property name.
type Database struct {
	Object         string                    `json:"object"`
	ID             string                    `json:"id"`
	CreatedTime    time.Time                 `json:"created_time"`
	LastEditedTime time.Time                 `json:"last_edited_time"`
	CreatedBy      UserRef                   `json:"created_by"`
	LastEditedBy   UserRef                   `json:"last_edited_by"`
	Title          []RichText                `json:"title"`
	Description    []RichText                `json:"description"`
	Icon           *Icon                     `json:"icon"`
	Cover          *Icon                     `json:"cover"`
	Parent         Parent                    `json:"parent"`
	Properties     map[string]PropertySchema `json:"properties"`
	InTrash        bool                      `json:"in_trash"`
	URL            string                    `json:"url"`
	ETag           string                    `json:"-"`
}

// DatabaseCreate is the body of Databases.Create.
type DatabaseCreate struct {
	Parent      *Parent                   `json:"parent"`
	Title       []RichText                `json:"title,omitempty"`
	Description []RichText                `json:"description,omitempty"`
	Icon        *Icon                     `json:"icon,omitempty"`
	Cover       *Icon                     `json:"cover,omitempty"`
	Properties  map[string]PropertySchema `json:"properties"`
}

// DatabasePatch is the body of Databases.Update. In Properties a key names a property
// (by name or id); a nil value removes it.
type DatabasePatch struct {
	Title       []RichText                `json:"title,omitempty"`
	Description []RichText                `json:"description,omitempty"`
	Icon        *Icon                     `json:"icon,omitempty"`
	Cover       *Icon                     `json:"cover,omitempty"`
	Properties  map[string]PropertySchema `json:"properties,omitempty"`
	InTrash     *bool                     `json:"in_trash,omitempty"`
}

// Query is the body of Databases.Query. Filter and Sorts take the API's JSON: a Filter
// built with PropertyFilter, And and Or, or a map, or a json.RawMessage.
type Query struct {
	Filter           any      `json:"filter,omitempty"`
	Sorts            []Sort   `json:"sorts,omitempty"`
	FilterProperties []string `json:"filter_properties,omitempty"`
	PageSize         int      `json:"page_size,omitempty"`
	StartCursor      string   `json:"start_cursor,omitempty"`
}

// Sort orders a query by a property (name or id) or a timestamp (created_time,
// last_edited_time); Direction is ascending or descending.
type Sort struct {
	Property  string `json:"property,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
	Direction string `json:"direction,omitempty"`
}

// Filter is one node of a query filter.
type Filter map[string]any

// PropertyFilter is {"property": property, typ: {operator: value}}, e.g.
// PropertyFilter("Status", "select", "equals", "Done").
func PropertyFilter(property, typ, operator string, value any) Filter {
	return Filter{"property": property, typ: map[string]any{operator: value}}
}

// And matches records every filter matches.
func And(filters ...Filter) Filter { return Filter{"and": filters} }

// Or matches records any filter matches.
func Or(filters ...Filter) Filter { return Filter{"or": filters} }

// Mutation is one operation of Databases.Mutate: Op is create, update, trash or restore.
type Mutation struct {
	Op         string                   `json:"op"`
	PageID     string                   `json:"page_id,omitempty"`
	Properties map[string]PropertyValue `json:"properties,omitempty"`
	Children   []Block                  `json:"children,omitempty"`
}

// Create makes a database.
func (s *DatabasesService) Create(ctx context.Context, d DatabaseCreate, opts ...CallOption) (*Database, error) {
	return versioned[Database](ctx, s.c, request{method: http.MethodPost, path: "/v2/databases", body: d, opts: opts})
}

// Get answers the database id with its ETag.
func (s *DatabasesService) Get(ctx context.Context, id string) (*Database, error) {
	return versioned[Database](ctx, s.c, request{method: http.MethodGet, path: "/v2/databases/" + pathID(id)})
}

// Update changes the database's title, schema, icon, cover or trash state.
func (s *DatabasesService) Update(ctx context.Context, id string, p DatabasePatch, opts ...CallOption) (*Database, error) {
	return versioned[Database](ctx, s.c, request{method: http.MethodPatch, path: "/v2/databases/" + pathID(id), body: p, opts: opts})
}

// Trash puts the database in trash.
func (s *DatabasesService) Trash(ctx context.Context, id string) (*Database, error) {
	return versioned[Database](ctx, s.c, request{method: http.MethodDelete, path: "/v2/databases/" + pathID(id)})
}

// Query yields the records that match q, in its order, following the cursor.
func (s *DatabasesService) Query(ctx context.Context, id string, q Query) iter.Seq2[*Page, error] {
	return paginate(ctx, q.StartCursor, func(ctx context.Context, cursor string) (*List[*Page], error) {
		body := q
		body.StartCursor = cursor
		var out List[*Page]
		_, err := s.c.do(ctx, request{method: http.MethodPost, path: "/v2/databases/" + pathID(id) + "/query", body: body}, &out)
		return ret(&out, err)
	})
}

// CreateRecord adds a record (a page under the database) with properties.
func (s *DatabasesService) CreateRecord(ctx context.Context, id string, properties map[string]PropertyValue, opts ...CallOption) (*Page, error) {
	return s.c.Pages.Create(ctx, PageCreate{Parent: DatabaseParent(id), Properties: properties}, opts...)
}

// Mutate applies the operations in order in one transaction (all or nothing) and answers
// the resulting records in the same order.
func (s *DatabasesService) Mutate(ctx context.Context, id string, ops []Mutation, opts ...CallOption) ([]*Page, error) {
	var out List[*Page]
	body := map[string]any{"mutations": ops}
	if _, err := s.c.do(ctx, request{method: http.MethodPost, path: "/v2/databases/" + pathID(id) + "/mutations", body: body, opts: opts}, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

func (x *Database) setETag(etag string) { x.ETag = etag }
