package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// pageObject is a page, a folder, a mind map's page, or a database record.
type pageObject struct {
	Object         string         `json:"object" enum:"page"`
	ID             string         `json:"id" format:"uuid"`
	PageType       string         `json:"page_type" enum:"page,folder,mind_map"`
	CreatedTime    string         `json:"created_time" format:"date-time"`
	LastEditedTime string         `json:"last_edited_time" format:"date-time"`
	CreatedBy      userRef        `json:"created_by"`
	LastEditedBy   userRef        `json:"last_edited_by"`
	Parent         parentObject   `json:"parent"`
	InTrash        bool           `json:"in_trash"`
	Icon           fileObjectJSON `json:"icon"`
	Cover          fileObjectJSON `json:"cover"`
	Properties     propertiesJSON `json:"properties"`
	URL            string         `json:"url" format:"uri"`
}

// propertiesJSON is a page's property values by name.
type propertiesJSON json.RawMessage

func (r propertiesJSON) MarshalJSON() ([]byte, error) { return rawOr(r, "{}"), nil }

// Schema describes property values in the document, one variant per property type
// (schema_properties.go).
func (propertiesJSON) Schema(reg huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "object", Description: "Property values by property name. A page outside a database has only `title`.",
		AdditionalProperties: propertyValueReadSchema(reg)}
}

func (s *Server) newPageObject(n *quire.Node) pageObject {
	props := n.Properties
	if n.ParentType != quire.ParentDatabase {
		props = append(append([]byte(`{"title":{"id":"title","type":"title","title":`), n.Title...), "}}"...)
	}
	pt := n.PageType
	return pageObject{
		Object: "page", ID: n.ID, PageType: pt,
		CreatedTime: quire.FormatMillis(n.CreatedMs), LastEditedTime: quire.FormatMillis(n.EditedMs),
		CreatedBy: ref(n.CreatedBy), LastEditedBy: ref(n.EditedBy), Parent: newParent(n.ParentType, n.ParentID),
		InTrash: n.InTrash, Icon: fileObjectJSON(n.Icon), Cover: fileObjectJSON(n.Cover),
		Properties: propertiesJSON(props), URL: s.svc.PageURL(n.ID),
	}
}

type pageOutput struct {
	ETag string `header:"ETag" doc:"Weak validator of the page's version; send it back in If-Match."`
	Body pageObject
}

func (s *Server) pageOutput(n *quire.Node) *pageOutput {
	return &pageOutput{ETag: etag(n.Version), Body: s.newPageObject(n)}
}

// pageListOutput is a list of pages or of a database's records.
type pageListOutput struct{ Body list[pageObject] }

func (s *Server) pageList(nodes []*quire.Node, next string) *pageListOutput {
	return &pageListOutput{Body: listOf(nodes, next, s.newPageObject)}
}

// propertyValuesInput documents the properties of a page or record as written: by name, each
// value in its type's shape.
type propertyValuesInput struct{}

// Schema describes property values as written (schema_properties.go).
func (propertyValuesInput) Schema(r huma.Registry) *huma.Schema { return propertyValuesInputSchema(r) }

// annotationsIn are annotations as written: every field optional.
type annotationsIn struct {
	Bold            bool   `json:"bold,omitempty"`
	Italic          bool   `json:"italic,omitempty"`
	Strikethrough   bool   `json:"strikethrough,omitempty"`
	Underline       bool   `json:"underline,omitempty"`
	Code            bool   `json:"code,omitempty"`
	TextColor       string `json:"text_color,omitempty"`
	BackgroundColor string `json:"background_color,omitempty"`
	Color           string `json:"color,omitempty" doc:"Legacy: red sets text_color, red_background sets background_color."`
}

func ptr[T any](v T) *T { return &v }

// richTextItemInput documents a rich-text item as written.
type richTextItemInput struct {
	Type        string           `json:"type,omitempty" enum:"text,mention,equation"`
	Text        *textInput       `json:"text,omitempty"`
	Mention     *mentionInput    `json:"mention,omitempty"`
	Equation    *equationContent `json:"equation,omitempty"`
	Annotations *annotationsIn   `json:"annotations,omitempty"`
}

// blockInput documents a block as written: {"type":T, T:{…, "children"?:[…]}} or, as the
// original service writes it, {"type":T, T:{…}, "children"?:[…]}.
type blockInput struct{}

// Schema describes a block as written, one variant per block type (schema_blocks.go).
func (blockInput) Schema(r huma.Registry) *huma.Schema { return blockInputSchema(r) }

// fileObjectOrNull documents an icon or cover as written: null clears it.
type fileObjectOrNull struct{}

// Schema describes a file object or null.
func (fileObjectOrNull) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, r.Schema(reflect.TypeFor[fileObject](), true, "")}}
}

type pageIDInput struct {
	PageID string `path:"page_id" format:"uuid"`
}

type createPageInput struct {
	Body reqBody[createPageRequest]
}

type patchPageInput struct {
	PageID  string `path:"page_id" format:"uuid"`
	IfMatch string `header:"If-Match" doc:"The page's ETag; 409 conflict when the page changed since."`
	Body    reqBody[updatePageRequest]
}

// MoveFields are what the original service's move answer holds beyond the node's id and parent.
type MoveFields struct {
	ObjectType string  `json:"object_type" enum:"page,folder,mind_map,database" doc:"What moved: the page's page_type, or database."`
	After      *string `json:"after" format:"uuid" nullable:"true" doc:"The sibling right before the node now (a block under a page, a top-level node); null when none, and in a database."`
	Before     *string `json:"before" format:"uuid" nullable:"true" doc:"The sibling right after the node now; null when none, and in a database."`
}

// movedPage is the move answer for a page: the page object and MoveFields.
type movedPage struct {
	MovedPageFields
	MoveFields
}

// movedDatabase is the move answer for a database: the database object and MoveFields.
type movedDatabase struct {
	MovedDatabaseFields
	MoveFields
}

// Exported names for the embedded objects, as huma documents the fields of exported embedded
// fields only (encoding/json flattens both).
type (
	MovedPageFields     = pageObject     // MovedPageFields is a moved page's object.
	MovedDatabaseFields = databaseObject // MovedDatabaseFields is a moved database's object.
)

// pageOrDatabase is one of a page object P and a database object D: the one set is written.
type pageOrDatabase[P, D any] struct {
	page *P
	db   *D
}

// MarshalJSON writes the page or the database.
func (o pageOrDatabase[P, D]) MarshalJSON() ([]byte, error) {
	if o.db != nil {
		return json.Marshal(o.db)
	}
	return json.Marshal(o.page)
}

// Schema describes a page or a database in the document.
func (pageOrDatabase[P, D]) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{r.Schema(reflect.TypeFor[P](), true, ""),
		r.Schema(reflect.TypeFor[D](), true, "")}}
}

// movedObject is a moved page or database.
type movedObject struct {
	pageOrDatabase[movedPage, movedDatabase]
}

type moveOutput struct {
	ETag string `header:"ETag" doc:"Weak validator of the moved node's version; send it back in If-Match."`
	Body movedObject
}

// moveOutput is the answer to a move: the node's object with object_type, after and before.
func (s *Server) moveOutput(m *service.Moved) (*moveOutput, error) {
	orNull := func(id string) *string {
		if id == "" {
			return nil
		}
		return &id
	}
	f := MoveFields{ObjectType: m.PageType, After: orNull(m.After), Before: orNull(m.Before)}
	out := &moveOutput{ETag: etag(m.Version)}
	if m.Object == quire.ObjectDatabase {
		db, err := s.newDatabaseObject(m.Node)
		if err != nil {
			return nil, err
		}
		f.ObjectType = "database"
		out.Body.db = &movedDatabase{db, f}
		return out, nil
	}
	out.Body.page = &movedPage{s.newPageObject(m.Node), f}
	return out, nil
}

type movePageInput struct {
	PageID  string `path:"page_id" format:"uuid"`
	IfMatch string `header:"If-Match"`
	Body    reqBody[movePageRequest]
}

func (s *Server) registerPages() {
	write := route{scopes: []quire.Scope{quire.PagesWrite}}
	read := route{scopes: []quire.Scope{quire.PagesRead}}
	register(s, op("create-page", http.MethodPost, "/v2/pages", "Pages",
		"Create a page",
		"Creates a page, folder or mind-map page under a page or the workspace, with its content "+
			"as blocks (children) or Markdown."), write, s.createPage)
	register(s, op("retrieve-page", http.MethodGet, "/v2/pages/{page_id}", "Pages",
		"Retrieve a page",
		"A page in trash is still readable, with in_trash true."), route{scopes: read.scopes, node: "page_id", fields: service.PageFields}, s.getPage)
	register(s, op("update-page", http.MethodPatch, "/v2/pages/{page_id}", "Pages",
		"Update a page",
		"Changes the title, icon or cover, or trashes (in_trash true) or restores (false) the page."), write, s.patchPage)
	register(s, op("move-page", http.MethodPatch, "/v2/pages/{page_id}/move", "Pages",
		"Move a page or database",
		"Moves a page, folder, mind map, record or database under the workspace, a page or folder, or (a page) a "+
			"database, where it becomes a record; a record moved out of its database becomes a page. The answer is the "+
			"node's object with object_type and the siblings it now sits between (after, before). A move under the node's "+
			"own descendant answers 400 with reason cycle."), write, s.movePage)
	register(s, op("list-pages", http.MethodGet, "/v2/pages", "Pages",
		"List pages",
		"Sidebar nodes in sidebar order: what is directly under parent_id (a database's records), or the top of "+
			"what the token reaches (the workspace's top level, or the nodes granted to the token). Trash is left out."), read, s.listPages)
	registerHidden(s, op("delete-page", http.MethodDelete, "/v2/pages/{page_id}", "Pages",
		"Trash a page",
		""), write, s.trashPage)
}

// createPage answers POST /v2/pages.
func (s *Server) createPage(ctx context.Context, in *createPageInput) (*pageOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	np, md, err := service.DecodeNewPage(body)
	if err != nil {
		return nil, err
	}
	if md != "" {
		if np.Children, err = service.ParseMarkdown(md); err != nil {
			return nil, err
		}
	}
	n, err := s.svc.CreatePage(ctx, principal(ctx), np)
	if err != nil {
		return nil, err
	}
	return s.pageOutput(n), nil
}

// getPage answers GET /v2/pages/{page_id}.
func (s *Server) getPage(ctx context.Context, in *pageIDInput) (*pageOutput, error) {
	n, err := s.svc.Page(ctx, principal(ctx), in.PageID)
	if err != nil {
		return nil, err
	}
	return s.pageOutput(n), nil
}

// patchPage answers PATCH /v2/pages/{page_id}.
func (s *Server) patchPage(ctx context.Context, in *patchPageInput) (*pageOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	patch, err := service.DecodePagePatch(body)
	if err != nil {
		return nil, err
	}
	patch.IfMatch = in.IfMatch
	n, err := s.svc.PatchPage(ctx, principal(ctx), in.PageID, patch)
	if err != nil {
		return nil, err
	}
	return s.pageOutput(n), nil
}

// movePage answers PATCH /v2/pages/{page_id}/move.
func (s *Server) movePage(ctx context.Context, in *movePageInput) (*moveOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	m, err := service.DecodeMove(body)
	if err != nil {
		return nil, err
	}
	moved, err := s.svc.MoveNode(ctx, principal(ctx), in.PageID, m, in.IfMatch)
	if err != nil {
		return nil, err
	}
	return s.moveOutput(moved)
}

// trashPage answers DELETE /v2/pages/{page_id}.
func (s *Server) trashPage(ctx context.Context, in *pageIDInput) (*pageOutput, error) {
	n, err := s.svc.TrashPage(ctx, principal(ctx), in.PageID)
	if err != nil {
		return nil, err
	}
	return s.pageOutput(n), nil
}
