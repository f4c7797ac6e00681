package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// databaseObject is a database with its schema (contract §6).
type databaseObject struct {
	Object         string         `json:"object" enum:"database"`
	ID             string         `json:"id" format:"uuid"`
	CreatedTime    string         `json:"created_time" format:"date-time"`
	LastEditedTime string         `json:"last_edited_time" format:"date-time"`
	CreatedBy      userRef        `json:"created_by"`
	LastEditedBy   userRef        `json:"last_edited_by"`
	Title          richTextJSON   `json:"title"`
	Description    richTextJSON   `json:"description"`
	Icon           fileObjectJSON `json:"icon"`
	Cover          fileObjectJSON `json:"cover"`
	Parent         parentObject   `json:"parent"`
	Properties     schemaJSON     `json:"properties"`
	InTrash        bool           `json:"in_trash"`
	IsInline       bool           `json:"is_inline"`
	URL            string         `json:"url" format:"uri"`
}

// schemaJSON is a database's schema in its read shape, by property name.
type schemaJSON json.RawMessage

func (r schemaJSON) MarshalJSON() ([]byte, error) { return rawOr(r, "{}"), nil }

// Schema describes the schema in the document.
func (schemaJSON) Schema(reg huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "object", Description: "The schema: property name → {id, name, type, <type>: configuration}. " +
		"Exactly one property has type title and id title.",
		AdditionalProperties: propertySchemaRead(reg)}
}

func (s *Server) newDatabaseObject(n *quire.Node) (databaseObject, error) {
	schema, err := service.DatabaseSchema(n)
	if err != nil {
		return databaseObject{}, err
	}
	return databaseObject{
		Object: "database", ID: n.ID,
		CreatedTime: quire.FormatMillis(n.CreatedMs), LastEditedTime: quire.FormatMillis(n.EditedMs),
		CreatedBy: ref(n.CreatedBy), LastEditedBy: ref(n.EditedBy),
		Title: richTextJSON(n.Title), Description: richTextJSON(n.Description),
		Icon: fileObjectJSON(n.Icon), Cover: fileObjectJSON(n.Cover), Parent: newParent(n.ParentType, n.ParentID),
		Properties: schemaJSON(properties.AppendSchema(nil, schema)), InTrash: n.InTrash, IsInline: n.IsInline,
		URL: s.svc.DatabaseURL(n.ID),
	}, nil
}

type databaseOutput struct {
	ETag string `header:"ETag" doc:"Weak validator of the database's version; send it back in If-Match."`
	Body databaseObject
}

func (s *Server) databaseOutput(n *quire.Node) (*databaseOutput, error) {
	obj, err := s.newDatabaseObject(n)
	if err != nil {
		return nil, err
	}
	return &databaseOutput{ETag: etag(n.Version), Body: obj}, nil
}

// schemaEdit documents a property as written: {"type"?, "name"?, <type>: configuration}; in a
// PATCH, null removes the property.
type schemaEdit struct{}

// Schema describes a property as written, one variant per property type (schema_database.go).
func (schemaEdit) Schema(r huma.Registry) *huma.Schema { return propertySchemaInput(r) }

type createDatabaseInput struct {
	Body reqBody[createDatabaseRequest]
}

type databaseIDInput struct {
	DatabaseID string `path:"database_id" format:"uuid"`
}

type patchDatabaseInput struct {
	DatabaseID string `path:"database_id" format:"uuid"`
	IfMatch    string `header:"If-Match" doc:"The database's ETag; 409 conflict when it changed since."`
	Body       reqBody[updateDatabaseRequest]
}

func (s *Server) registerDatabases() {
	read := route{scopes: []quire.Scope{quire.DatabasesRead}}
	write := route{scopes: []quire.Scope{quire.DatabasesWrite}}
	register(s, op("create-database", http.MethodPost, "/v2/databases", "Databases",
		"Create a database",
		"Creates a database with its schema under a page (where it appears as a child_database block) or the workspace."), write, s.createDatabase)
	register(s, op("retrieve-database", http.MethodGet, "/v2/databases/{database_id}", "Databases",
		"Retrieve a database",
		"A database and its schema. A database in trash is still readable, with in_trash true."), route{scopes: read.scopes, node: "database_id"}, s.getDatabase)
	register(s, op("update-database", http.MethodPatch, "/v2/databases/{database_id}", "Databases",
		"Update a database",
		"Changes the title, description, inline flag, icon, cover or schema (add, rename, reconfigure, "+
			"remove properties), or trashes (in_trash true) or restores (false) the database."), write, s.patchDatabase)
	registerHidden(s, op("delete-database", http.MethodDelete, "/v2/databases/{database_id}", "Databases",
		"Trash a database",
		""), write, s.trashDatabase)
}

// createDatabase answers POST /v2/databases.
func (s *Server) createDatabase(ctx context.Context, in *createDatabaseInput) (*databaseOutput, error) {
	nd, err := service.DecodeNewDatabase(in.Body.bytes())
	if err != nil {
		return nil, err
	}
	n, err := s.svc.CreateDatabase(ctx, principal(ctx), nd)
	if err != nil {
		return nil, err
	}
	return s.databaseOutput(n)
}

// getDatabase answers GET /v2/databases/{database_id}.
func (s *Server) getDatabase(ctx context.Context, in *databaseIDInput) (*databaseOutput, error) {
	n, err := s.svc.Database(ctx, principal(ctx), in.DatabaseID)
	if err != nil {
		return nil, err
	}
	return s.databaseOutput(n)
}

// patchDatabase answers PATCH /v2/databases/{database_id}.
func (s *Server) patchDatabase(ctx context.Context, in *patchDatabaseInput) (*databaseOutput, error) {
	patch, err := service.DecodeDatabasePatch(in.Body.bytes())
	if err != nil {
		return nil, err
	}
	patch.IfMatch = in.IfMatch
	n, err := s.svc.PatchDatabase(ctx, principal(ctx), in.DatabaseID, patch)
	if err != nil {
		return nil, err
	}
	return s.databaseOutput(n)
}

// trashDatabase answers DELETE /v2/databases/{database_id}.
func (s *Server) trashDatabase(ctx context.Context, in *databaseIDInput) (*databaseOutput, error) {
	n, err := s.svc.TrashDatabase(ctx, principal(ctx), in.DatabaseID)
	if err != nil {
		return nil, err
	}
	return s.databaseOutput(n)
}
