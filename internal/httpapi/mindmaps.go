package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// mindMapObject is a mind map as the mind-map endpoints answer it: the page's common fields,
// the complete node tree under root, and the settings.
type mindMapObject struct {
	Object         string          `json:"object" enum:"mind_map"`
	ID             string          `json:"id" format:"uuid"`
	Title          richTextJSON    `json:"title"`
	Parent         parentObject    `json:"parent"`
	Root           mindMapTree     `json:"root"`
	Nodes          mindMapNodes    `json:"nodes"`
	Settings       mindMapSettings `json:"settings"`
	NodeCount      int             `json:"node_count" doc:"Nodes of the tree, the root included; at most 10,000."`
	CreatedTime    string          `json:"created_time" format:"date-time"`
	LastEditedTime string          `json:"last_edited_time" format:"date-time"`
	CreatedBy      userRef         `json:"created_by"`
	LastEditedBy   userRef         `json:"last_edited_by"`
	InTrash        bool            `json:"in_trash"`
	URL            string          `json:"url" format:"uri" doc:"The address of the same id as a page."`
}

func (s *Server) newMindMapObject(mm *service.MindMap) mindMapObject {
	n := mm.Node
	return mindMapObject{
		Object: "mind_map", ID: n.ID, Title: richTextJSON(n.Title), Parent: newParent(n.ParentType, n.ParentID),
		Root: mindMapTree{mm.Tree}, Settings: mindMapSettings(mm.Settings), NodeCount: mm.Tree.Count,
		CreatedTime: quire.FormatMillis(n.CreatedMs), LastEditedTime: quire.FormatMillis(n.EditedMs),
		CreatedBy: ref(n.CreatedBy), LastEditedBy: ref(n.EditedBy), InTrash: n.InTrash, URL: s.svc.PageURL(n.ID),
	}
}

// mindMapSettings are how a mind map is drawn.
type mindMapSettings struct {
	Layout string `json:"layout" enum:"right,left,both,tree,org"`
	Theme  string `json:"theme" enum:"default,classic,colorful,dark,minimal"`
}

// mindMapOutput writes its body itself: the tree of a large map is most of the answer, and
// huma would check and compact again every byte that mindMapTree writes. The document still
// describes mindMapObject (mindMapResponses).
type mindMapOutput struct {
	ETag string `header:"ETag" doc:"Weak validator of the mind map's version (the same as its page's); send it back in If-Match."`
	Body func(huma.Context)
}

func (s *Server) mindMapOutput(mm *service.MindMap) *mindMapOutput {
	obj := s.newMindMapObject(mm)
	return &mindMapOutput{ETag: etag(mm.Node.Version), Body: func(ctx huma.Context) {
		b, err := obj.appendJSON()
		if err != nil {
			s.log.Error("encode mind map", "id", obj.ID, "error", err)
			ctx.SetStatus(http.StatusInternalServerError)
			return
		}
		ctx.SetHeader("Content-Type", "application/json")
		ctx.SetStatus(http.StatusOK)
		_, _ = ctx.BodyWriter().Write(b)
	}}
}

// appendJSON writes the object: every field but the tree through encoding/json, then the tree.
func (o mindMapObject) appendJSON() ([]byte, error) {
	root := o.Root
	o.Root = mindMapTree{}
	head, err := json.Marshal(mindMapHead(o))
	if err != nil {
		return nil, err
	}
	tree, err := root.MarshalJSON()
	if err != nil {
		return nil, err
	}
	out := append(head[:len(head)-1], `,"root":`...)
	out = append(out, tree...)
	out = root.appendNodes(append(out, `,"nodes":`...))
	return append(out, '}'), nil
}

// mindMapHead is mindMapObject without its tree.
type mindMapHead struct {
	Object         string          `json:"object"`
	ID             string          `json:"id"`
	Title          richTextJSON    `json:"title"`
	Parent         parentObject    `json:"parent"`
	Root           mindMapTree     `json:"-"`
	Nodes          mindMapNodes    `json:"-"`
	Settings       mindMapSettings `json:"settings"`
	NodeCount      int             `json:"node_count"`
	CreatedTime    string          `json:"created_time"`
	LastEditedTime string          `json:"last_edited_time"`
	CreatedBy      userRef         `json:"created_by"`
	LastEditedBy   userRef         `json:"last_edited_by"`
	InTrash        bool            `json:"in_trash"`
	URL            string          `json:"url"`
}

// mindMapResponses documents the 200 answer of the mind-map operations.
func (s *Server) mindMapResponses() map[string]*huma.Response {
	schema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[mindMapObject](), true, "")
	return map[string]*huma.Response{"200": {Description: "The mind map, with its complete tree.",
		Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}}}
}

// mindMapTitleInput documents a title as written: rich text, or a plain string.
type mindMapTitleInput struct{}

// Schema describes both forms of a title.
func (mindMapTitleInput) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{
		{Type: "string", MaxLength: ptr(2000)},
		{Type: "array", MaxItems: ptr(100), Items: r.Schema(reflect.TypeFor[richTextItemInput](), true, "")},
	}}
}

// mindMapNodeInput is a node as written, with its subtree, as an edit's node.
type mindMapNodeInput struct{}

// Schema describes a node as mindmap.NodeShape, which its decoder reads, says.
func (mindMapNodeInput) Schema(r huma.Registry) *huma.Schema {
	return bodySchema(r, "MindMapNodeInput", mindmap.NodeShape)
}

// mindMapEdit documents one edit: a variant per op (schema_mindmap.go), with the fields of
// mindMapEditFields the op takes.
type mindMapEdit struct{}

// Schema describes an edit (schema_mindmap.go).
func (mindMapEdit) Schema(r huma.Registry) *huma.Schema { return mindMapEditSchema(r) }

type mindMapIDInput struct {
	MindMapID string `path:"mind_map_id" format:"uuid"`
}

type createMindMapInput struct {
	Body reqBody[createMindMapRequest]
}

type patchMindMapInput struct {
	MindMapID string `path:"mind_map_id" format:"uuid"`
	IfMatch   string `header:"If-Match" doc:"The mind map's ETag; 409 conflict when it changed since."`
	Body      reqBody[updateMindMapRequest]
}

func (s *Server) registerMindMaps() {
	write := route{scopes: []quire.Scope{quire.PagesWrite}}
	read := route{scopes: []quire.Scope{quire.PagesRead}}
	register(s, huma.Operation{
		OperationID: "create-mind-map", Method: http.MethodPost, Path: "/v2/mind-maps",
		Summary: "Create a mind map", Tags: []string{"Mind maps"}, Responses: s.mindMapResponses(),
		Description: "Creates a mind map under a page or the workspace, with its tree and settings. The same id " +
			"reads as a page with page_type mind_map. At most 10,000 nodes, 100 levels deep.",
	}, write, s.createMindMap)
	register(s, huma.Operation{
		OperationID: "retrieve-mind-map", Method: http.MethodGet, Path: "/v2/mind-maps/{mind_map_id}",
		Summary: "Retrieve a mind map", Tags: []string{"Mind maps"}, Responses: s.mindMapResponses(),
		Description: "The complete node tree and settings. A mind map in trash is still readable, with in_trash true.",
	}, read, s.getMindMap)
	register(s, huma.Operation{
		OperationID: "update-mind-map", Method: http.MethodPatch, Path: "/v2/mind-maps/{mind_map_id}",
		Summary: "Update a mind map", Tags: []string{"Mind maps"}, Responses: s.mindMapResponses(),
		Description: "Changes the title and settings and applies the edits in order, atomically: an edit that " +
			"cannot apply answers 400 at its path (edits[3].node_id) and nothing changes. Node ids are stable.",
	}, write, s.patchMindMap)
}

// createMindMap answers POST /v2/mind-maps.
func (s *Server) createMindMap(ctx context.Context, in *createMindMapInput) (*mindMapOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	nm, err := service.DecodeNewMindMap(body)
	if err != nil {
		return nil, err
	}
	mm, err := s.svc.CreateMindMap(ctx, principal(ctx), nm)
	if err != nil {
		return nil, err
	}
	return s.mindMapOutput(mm), nil
}

// getMindMap answers GET /v2/mind-maps/{mind_map_id}.
func (s *Server) getMindMap(ctx context.Context, in *mindMapIDInput) (*mindMapOutput, error) {
	mm, err := s.svc.GetMindMap(ctx, principal(ctx), in.MindMapID)
	if err != nil {
		return nil, err
	}
	return s.mindMapOutput(mm), nil
}

// patchMindMap answers PATCH /v2/mind-maps/{mind_map_id}.
func (s *Server) patchMindMap(ctx context.Context, in *patchMindMapInput) (*mindMapOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	patch, err := mindmap.DecodePatch(body)
	if err != nil {
		return nil, err
	}
	mm, err := s.svc.PatchMindMap(ctx, principal(ctx), in.MindMapID, patch, in.IfMatch)
	if err != nil {
		return nil, err
	}
	return s.mindMapOutput(mm), nil
}
