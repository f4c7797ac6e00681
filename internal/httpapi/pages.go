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

type createPageRequest struct {
	Parent     *parentInput         `json:"parent,omitempty" doc:"{\"type\":\"page_id\",\"page_id\":…} or {\"type\":\"workspace\",\"workspace\":true} (workspace-scoped tokens only); type may be left out. Left out: the workspace."`
	PageType   string               `json:"page_type,omitempty" enum:"page,folder,mind_map" default:"page"`
	Properties *propertyValuesInput `json:"properties,omitempty"`
	Icon       *fileObject          `json:"icon,omitempty"`
	Cover      *fileObject          `json:"cover,omitempty"`
	Children   []blockInput         `json:"children,omitempty" maxItems:"100" doc:"Content blocks, nested two levels deep; or send markdown instead."`
	Markdown   string               `json:"markdown,omitempty" doc:"GitHub-flavoured Markdown, parsed into blocks instead of children."`
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
	Color       string           `json:"color,omitempty" doc:"Legacy single colour channel: red sets text_color, red_background sets background_color."`
}

// blockInput documents a block as written: {"type":T, T:{…, "children"?:[…]}}.
type blockInput struct{}

// Schema describes a block as written, one variant per block type (schema_blocks.go).
func (blockInput) Schema(r huma.Registry) *huma.Schema { return blockInputSchema(r) }

// parentInput documents a parent as written; type may be left out.
type parentInput struct {
	Type       string `json:"type,omitempty" enum:"workspace,page_id,database_id"`
	Workspace  bool   `json:"workspace,omitempty"`
	PageID     string `json:"page_id,omitempty" format:"uuid"`
	DatabaseID string `json:"database_id,omitempty" format:"uuid"`
}

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

type updatePageRequest struct {
	Properties *propertyValuesInput `json:"properties,omitempty"`
	Icon       *fileObjectOrNull    `json:"icon,omitempty" doc:"null clears it."`
	Cover      *fileObjectOrNull    `json:"cover,omitempty" doc:"null clears it."`
	InTrash    *bool                `json:"in_trash,omitempty" doc:"true trashes the page, false restores it."`
}

type patchPageInput struct {
	PageID  string `path:"page_id" format:"uuid"`
	IfMatch string `header:"If-Match" doc:"The page's ETag; 409 conflict when the page changed since."`
	Body    reqBody[updatePageRequest]
}

type movePageRequest struct {
	Parent parentInput `json:"parent" doc:"A page or the workspace."`
	After  string      `json:"after,omitempty" format:"uuid" nullable:"true" doc:"Place the page right after this sibling; at the end when left out or null."`
}

type movePageInput struct {
	PageID  string `path:"page_id" format:"uuid"`
	IfMatch string `header:"If-Match"`
	Body    reqBody[movePageRequest]
}

func (s *Server) registerPages() {
	write := route{scopes: []quire.Scope{quire.PagesWrite}}
	read := route{scopes: []quire.Scope{quire.PagesRead}}
	register(s, huma.Operation{
		OperationID: "create-page", Method: http.MethodPost, Path: "/v2/pages",
		Summary: "Create a page", Tags: []string{"Pages"},
		Description: "Creates a page, folder or mind-map page under a page or the workspace, with its content " +
			"as blocks (children) or Markdown.",
	}, write, s.createPage)
	register(s, huma.Operation{
		OperationID: "retrieve-page", Method: http.MethodGet, Path: "/v2/pages/{page_id}",
		Summary: "Retrieve a page", Tags: []string{"Pages"},
		Description: "A page in trash is still readable, with in_trash true.",
	}, read, s.getPage)
	register(s, huma.Operation{
		OperationID: "update-page", Method: http.MethodPatch, Path: "/v2/pages/{page_id}",
		Summary: "Update a page", Tags: []string{"Pages"},
		Description: "Changes the title, icon or cover, or trashes (in_trash true) or restores (false) the page.",
	}, write, s.patchPage)
	register(s, huma.Operation{
		OperationID: "move-page", Method: http.MethodPatch, Path: "/v2/pages/{page_id}/move",
		Summary: "Move a page", Tags: []string{"Pages"},
		Description: "Moves a page under another page or the workspace. A move under the page's own descendant answers 400 with reason cycle.",
	}, write, s.movePage)
	register(s, huma.Operation{
		OperationID: "list-pages", Method: http.MethodGet, Path: "/v2/pages",
		Summary: "List pages", Tags: []string{"Pages"},
		Description: "Sidebar nodes in sidebar order: what is directly under parent_id (a database's records), or the top of " +
			"what the token reaches (the workspace's top level, or the nodes granted to the token). Trash is left out.",
	}, read, s.listPages)
	registerHidden(s, huma.Operation{
		OperationID: "delete-page", Method: http.MethodDelete, Path: "/v2/pages/{page_id}",
		Summary: "Trash a page", Tags: []string{"Pages"},
	}, write, s.trashPage)
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
func (s *Server) movePage(ctx context.Context, in *movePageInput) (*pageOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	to, after, err := service.DecodeMove(body)
	if err != nil {
		return nil, err
	}
	n, err := s.svc.MovePage(ctx, principal(ctx), in.PageID, to, after, in.IfMatch)
	if err != nil {
		return nil, err
	}
	return s.pageOutput(n), nil
}

// trashPage answers DELETE /v2/pages/{page_id}.
func (s *Server) trashPage(ctx context.Context, in *pageIDInput) (*pageOutput, error) {
	n, err := s.svc.TrashPage(ctx, principal(ctx), in.PageID)
	if err != nil {
		return nil, err
	}
	return s.pageOutput(n), nil
}
