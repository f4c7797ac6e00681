package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// The routes of a database's records: the query, the mutations batch, and one property of a
// page or record. (A record is a page: created, read and changed through the page routes too.)

type queryDatabaseInput struct {
	DatabaseID string                         `path:"database_id" format:"uuid"`
	Body       *reqBody[queryDatabaseRequest] `required:"false"`
}

type mutationsInput struct {
	DatabaseID string `path:"database_id" format:"uuid"`
	Body       reqBody[mutationsRequest]
}

type propertyItemInput struct {
	PageID     string `path:"page_id" format:"uuid"`
	PropertyID string `path:"property_id"`
}

type propertyItemOutput struct{ Body propertyItemJSON }

// propertyItemJSON is a property_item, or a list of them, spliced from the service's JSON.
type propertyItemJSON json.RawMessage

func (r propertyItemJSON) MarshalJSON() ([]byte, error) { return rawOr(r, "{}"), nil }

// Schema describes the answer in the document.
func (propertyItemJSON) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "object", Description: "A property_item {object, id, type, <type>: value}; for title, rich_text, " +
		"people and relation a list of property_items with property_item describing the property.",
		Required:             []string{"object"},
		Properties:           map[string]*huma.Schema{"object": {Type: "string", Enum: []any{"property_item", "list"}}},
		AdditionalProperties: true}
}

func (s *Server) registerRecords() {
	read := route{scopes: []quire.Scope{quire.DatabasesRead}}
	register(s, op("query-database", http.MethodPost, "/v2/databases/{database_id}/query", "Databases",
		"Query a database",
		"The database's records (not in trash) matching a filter, in the order of sorts (newest created first "+
			"without), a page at a time."), route{scopes: read.scopes, node: "database_id"}, s.queryDatabase) // the database read with the token
	register(s, op("mutate-database", http.MethodPost, "/v2/databases/{database_id}/mutations", "Databases",
		"Mutate records",
		"Applies up to 100 create, update, trash and restore operations to the database's records, atomically: "+
			"one failing operation answers 400 with its indexed path and nothing is applied. Answers the records in order."), route{scopes: []quire.Scope{quire.DatabasesWrite, quire.PagesWrite}}, s.mutateDatabase)
	register(s, op("retrieve-page-property", http.MethodGet, "/v2/pages/{page_id}/properties/{property_id}", "Pages",
		"Retrieve a page property item",
		"One property of a page or record by id (or name): a property_item, or for title, rich_text, "+
			"people and relation a list of them."), route{scopes: []quire.Scope{quire.PagesRead}}, s.getPageProperty)
}

// queryDatabase answers POST /v2/databases/{database_id}/query.
func (s *Server) queryDatabase(ctx context.Context, in *queryDatabaseInput) (*pageListOutput, error) {
	var raw []byte
	if in.Body != nil {
		raw = in.Body.bytes()
	}
	q, err := service.DecodeRecordQuery(raw)
	if err != nil {
		return nil, err
	}
	pg, err := s.svc.QueryDatabase(ctx, principal(ctx), in.DatabaseID, q)
	if err != nil {
		return nil, err
	}
	return s.pageList(pg.Items, pg.NextCursor), nil
}

// mutateDatabase answers POST /v2/databases/{database_id}/mutations.
func (s *Server) mutateDatabase(ctx context.Context, in *mutationsInput) (*pageListOutput, error) {
	ops, err := service.DecodeMutations(in.Body.bytes())
	if err != nil {
		return nil, err
	}
	recs, err := s.svc.MutateRecords(ctx, principal(ctx), in.DatabaseID, ops)
	if err != nil {
		return nil, err
	}
	return s.pageList(recs, ""), nil
}

// getPageProperty answers GET /v2/pages/{page_id}/properties/{property_id}.
func (s *Server) getPageProperty(ctx context.Context, in *propertyItemInput) (*propertyItemOutput, error) {
	b, err := s.svc.PageProperty(ctx, principal(ctx), in.PageID, in.PropertyID)
	if err != nil {
		return nil, err
	}
	return &propertyItemOutput{Body: propertyItemJSON(b)}, nil
}
