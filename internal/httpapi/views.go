package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/views"
)

// viewObject is a database view in its read shape, written by package views.
type viewObject json.RawMessage

func (v viewObject) MarshalJSON() ([]byte, error) { return rawOr(v, "{}"), nil }

// Schema describes a view in the document.
func (viewObject) Schema(r huma.Registry) *huma.Schema {
	return r.Schema(reflect.TypeFor[viewDoc](), true, "")
}

// viewDoc documents a view as read; package views writes it.
type viewDoc struct {
	Object         string           `json:"object" enum:"database_view"`
	ID             string           `json:"id" format:"uuid"`
	DatabaseID     string           `json:"database_id" format:"uuid"`
	Name           string           `json:"name"`
	Type           string           `json:"type" enum:"table,board,gallery,list,calendar,timeline,form" doc:"Fixed at creation."`
	PropertyLayout []viewLayoutItem `json:"property_layout" nullable:"false" doc:"Columns by exact property id; empty for timeline and form views."`
	Filter         viewFilterOrNull `json:"filter"`
	Sorts          []viewSort       `json:"sorts" nullable:"false"`
	GroupBy        viewGroupByOrNil `json:"group_by" doc:"Table and board views only; null otherwise."`
	Config         viewConfig       `json:"config"`
	PageSort       []string         `json:"page_sort,omitempty" doc:"Manual record order (record ids); only on the view detail endpoint."`
	CreatedTime    string           `json:"created_time" format:"date-time"`
	LastEditedTime string           `json:"last_edited_time" format:"date-time"`
	InTrash        bool             `json:"in_trash"`
}

type viewLayoutItem struct {
	Property string `json:"property" doc:"A property id; on write the literal title names the title property."`
	Visible  bool   `json:"visible"`
	Width    int    `json:"width,omitempty" minimum:"32" maximum:"2000"`
}

type viewSort struct {
	Property  string `json:"property"`
	Direction string `json:"direction" enum:"ascending,descending"`
}

type viewGroupBy struct {
	Property string `json:"property"`
}

// viewGroupByOrNil documents {"property":ID} or null.
type viewGroupByOrNil struct{}

// Schema describes a group_by or null.
func (viewGroupByOrNil) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, r.Schema(reflect.TypeFor[viewGroupBy](), true, "")}}
}

// viewFilterOrNull documents a view filter (the web client's format) or null.
type viewFilterOrNull struct{}

// Schema describes a filter group or null.
func (viewFilterOrNull) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, viewFilterGroupSchema(r)}}
}

// viewFilterGroupSchema registers the recursive filter group once and refers to it.
func viewFilterGroupSchema(r huma.Registry) *huma.Schema {
	const name = "ViewFilterGroup"
	ref := &huma.Schema{Ref: "#/components/schemas/" + name}
	if _, ok := r.Map()[name]; ok {
		return ref
	}
	str := &huma.Schema{Type: "string", MaxLength: ptr(2000)}
	condition := &huma.Schema{Type: "object", AdditionalProperties: false, Required: []string{"property", "operator"},
		Description: "A condition; value is absent for empty and not_empty, a list for in and nin.",
		Properties: map[string]*huma.Schema{
			"property": {Type: "string", Description: "A property id."},
			"operator": {Type: "string", Enum: anys(views.Operators())},
			"value":    {OneOf: []*huma.Schema{str, {Type: "array", MaxItems: ptr(100), Items: str}}},
		}}
	r.Map()[name] = &huma.Schema{Type: "object", AdditionalProperties: false, Required: []string{"operator", "filters"},
		Description: "A group of conditions and groups, nested three levels deep at most.",
		Properties: map[string]*huma.Schema{
			"operator": {Type: "string", Enum: anys(views.GroupOperators())},
			"filters":  {Type: "array", MaxItems: ptr(100), Items: &huma.Schema{OneOf: []*huma.Schema{condition, ref}}},
		}}
	return ref
}

// viewRef documents a property reference of config: a property id or null.
type viewRef struct{}

// Schema describes a property id or null.
func (viewRef) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, {Type: "string"}}}
}

// viewConfig documents config: only the keys of the view's type are present.
type viewConfig struct {
	Wrap                     *bool             `json:"wrap,omitempty" doc:"table"`
	FreezeColumns            *int              `json:"freeze_columns,omitempty" minimum:"0" maximum:"100" doc:"table"`
	Aggregations             map[string]string `json:"aggregations,omitempty" doc:"table: property id → count, count_values, unique, empty, not_empty, sum, average, min or max."`
	CardSize                 string            `json:"card_size,omitempty" enum:"small,medium,large" doc:"board, gallery"`
	CardPreview              string            `json:"card_preview,omitempty" enum:"none,cover,content,property" doc:"board, gallery"`
	CoverProperty            *viewRef          `json:"cover_property,omitempty" doc:"board, gallery: a files property, shown when card_preview is property."`
	FitImage                 *bool             `json:"fit_image,omitempty" doc:"board, gallery"`
	DateProperty             *viewRef          `json:"date_property,omitempty" doc:"calendar"`
	StartProperty            *viewRef          `json:"start_property,omitempty" doc:"timeline"`
	EndProperty              *viewRef          `json:"end_property,omitempty" doc:"timeline"`
	ShowTable                *bool             `json:"show_table,omitempty" doc:"timeline"`
	ShowIcons                *bool             `json:"show_icons,omitempty" doc:"list"`
	TitleVisible             *bool             `json:"title_visible,omitempty" doc:"form"`
	SubmitText               string            `json:"submit_text,omitempty" maxLength:"100" doc:"form"`
	AllowMultipleSubmissions *bool             `json:"allow_multiple_submissions,omitempty" doc:"form"`
}

type viewOutput struct {
	ETag string `header:"ETag" doc:"Weak validator of the view's version; send it back in If-Match."`
	Body viewObject
}

// newViewOutput answers with v; page_sort only for the view detail endpoint (detail), as the
// spec says, so a write's answer leaves it out and GET shows it.
func newViewOutput(v *service.DatabaseView, detail bool) *viewOutput {
	return &viewOutput{ETag: etag(v.Row.Version), Body: viewObject(v.Encode(detail))}
}

type viewListOutput struct{ Body list[viewObject] }

type listViewsInput struct {
	DatabaseID string `path:"database_id" format:"uuid"`
	PageParams
}

type viewIDInput struct {
	DatabaseID string `path:"database_id" format:"uuid"`
	ViewID     string `path:"view_id" format:"uuid"`
}

type createViewInput struct {
	DatabaseID string `path:"database_id" format:"uuid"`
	Body       reqBody[createViewRequest]
}

type patchViewInput struct {
	DatabaseID string `path:"database_id" format:"uuid"`
	ViewID     string `path:"view_id" format:"uuid"`
	IfMatch    string `header:"If-Match" doc:"The view's ETag; 409 conflict when the view changed since."`
	Body       reqBody[updateViewRequest]
}

func (s *Server) registerViews() {
	read := route{scopes: []quire.Scope{quire.DatabasesRead}}
	write := route{scopes: []quire.Scope{quire.DatabasesWrite}}
	register(s, op("list-database-views", http.MethodGet, "/v2/databases/{database_id}/views", "Views",
		"List a database's views",
		"The views of a database in order; views in trash are left out, and page_sort is not included."), read, s.listViews)
	register(s, op("retrieve-database-view", http.MethodGet, "/v2/databases/{database_id}/views/{view_id}", "Views",
		"Retrieve a database view",
		"A view with its manual record order (page_sort). A view in trash is still readable, with in_trash true."), read, s.getView)
	register(s, op("create-database-view", http.MethodPost, "/v2/databases/{database_id}/views", "Views",
		"Create a database view",
		"Adds a view after the database's other views."), write, s.createView)
	register(s, op("update-database-view", http.MethodPatch, "/v2/databases/{database_id}/views/{view_id}", "Views",
		"Update a database view",
		"Changes a view's settings (its type is fixed), or trashes (in_trash true) or restores (false) it."), write, s.patchView)
	registerHidden(s, op("delete-database-view", http.MethodDelete, "/v2/databases/{database_id}/views/{view_id}", "Views",
		"Trash a database view",
		""), write, s.trashView)
}

// listViews answers GET /v2/databases/{database_id}/views.
func (s *Server) listViews(ctx context.Context, in *listViewsInput) (*viewListOutput, error) {
	pg, err := s.svc.ListViews(ctx, principal(ctx), in.DatabaseID, in.StartCursor, in.PageSize)
	if err != nil {
		return nil, err
	}
	return &viewListOutput{Body: listOf(pg.Items, pg.NextCursor, func(v *service.DatabaseView) viewObject {
		return viewObject(v.Encode(false))
	})}, nil
}

// getView answers GET /v2/databases/{database_id}/views/{view_id}.
func (s *Server) getView(ctx context.Context, in *viewIDInput) (*viewOutput, error) {
	v, err := s.svc.View(ctx, principal(ctx), in.DatabaseID, in.ViewID)
	if err != nil {
		return nil, err
	}
	return newViewOutput(v, true), nil
}

// createView answers POST /v2/databases/{database_id}/views.
func (s *Server) createView(ctx context.Context, in *createViewInput) (*viewOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	v, err := s.svc.CreateView(ctx, principal(ctx), in.DatabaseID, body)
	if err != nil {
		return nil, err
	}
	return newViewOutput(v, false), nil
}

// patchView answers PATCH /v2/databases/{database_id}/views/{view_id}.
func (s *Server) patchView(ctx context.Context, in *patchViewInput) (*viewOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	v, err := s.svc.PatchView(ctx, principal(ctx), in.DatabaseID, in.ViewID, body, in.IfMatch)
	if err != nil {
		return nil, err
	}
	return newViewOutput(v, false), nil
}

// trashView answers DELETE /v2/databases/{database_id}/views/{view_id}.
func (s *Server) trashView(ctx context.Context, in *viewIDInput) (*viewOutput, error) {
	v, err := s.svc.TrashView(ctx, principal(ctx), in.DatabaseID, in.ViewID)
	if err != nil {
		return nil, err
	}
	return newViewOutput(v, false), nil
}
