package httpapi

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/views"
)

// A request body's schema is built from the description its decoder reads (jsonbody.Body), so
// the document lists exactly the keys the decoder takes, with the limits its constants hold.
// Each body is an empty type named after its component (createPageRequest documents
// CreatePageRequest) whose body method returns that description; reqBody[R] puts it in the
// document.

// bodyShapes are the schemas a body's field may name by Shape. Most are described beside their
// decoders, as the bodies are (fromDecoder); the rest are types (typed): the unions, whose
// schemas the packages' tables build, and a few objects whose keys depend on their kind (a file
// object, a rich-text item, a view's config) or whose type the answers share (a view's layout
// item and sort), which TestNestedShapesMatchTheDecoders holds to their decoders. A name missing
// here stops the server before it serves a document that would not say what the field holds.
var bodyShapes = map[string]shape{
	"ParentInput":          fromDecoder(service.ParentShape),
	"FileObject":           typed[fileObject](),
	"FileUploadRef":        typed[fileUploadRef](),
	"BlockInput":           typed[blockInput](),
	"PropertyValuesInput":  typed[propertyValuesInput](),
	"RichTextItemInput":    typed[richTextItemInput](),
	"SchemaEdit":           typed[schemaEdit](),
	"ViewLayoutItem":       typed[viewLayoutItem](),
	"ViewFilterOrNull":     typed[viewFilterOrNull](),
	"ViewSort":             typed[viewSort](),
	"ViewGroupByOrNull":    typed[viewGroupByOrNil](),
	"ViewConfig":           typed[viewConfig](),
	"MindMapTitleInput":    typed[mindMapTitleInput](),
	"MindMapNodeInput":     fromDecoder(mindmap.NodeShape),
	"MindMapSettingsInput": fromDecoder(mindmap.SettingsShape),
	"MindMapEdit":          typed[mindMapEdit](),
	"MindMapPositionInput": fromDecoder(mindmap.PositionShape),
	"SearchFilter":         fromDecoder(service.SearchFilterShape),
	"SearchSort":           fromDecoder(service.SearchSortShape),
	"QueryFilterInput":     typed[queryFilterInput](),
	"SortInput":            fromDecoder(dbquery.SortShape),
	"MutationInput":        fromDecoder(service.MutationShape),
	"UploadParent":         fromDecoder(service.UploadParentShape),
	"PositionInput":        fromDecoder(service.PositionShape),
}

// shape is a type huma builds a schema from, or the description of an object.
type shape struct {
	t    reflect.Type
	body jsonbody.Body
}

// typed is the shape huma builds from T (its struct tags, or its Schema method).
func typed[T any]() shape { return shape{t: reflect.TypeFor[T]()} }

// fromDecoder is the object b describes, as a component named after the shape.
func fromDecoder(b jsonbody.Body) shape { return shape{body: b} }

// schema is the shape's schema in r, or a reference to it; name is the shape's.
func (s shape) schema(r huma.Registry, name string) *huma.Schema {
	if s.t != nil {
		return r.Schema(s.t, true, "")
	}
	return bodySchema(r, name, s.body)
}

// The request bodies, described by their decoders (body methods below).
type (
	createPageRequest          struct{}
	updatePageRequest          struct{}
	movePageRequest            struct{}
	createDatabaseRequest      struct{}
	updateDatabaseRequest      struct{}
	createViewRequest          struct{}
	updateViewRequest          struct{}
	createMindMapRequest       struct{}
	updateMindMapRequest       struct{}
	searchRequest              struct{}
	semanticRequest            struct{}
	queryDatabaseRequest       struct{}
	mutationsRequest           struct{}
	appendBlockChildrenRequest struct{}
	createUploadRequest        struct{}
	createWebhookRequest       struct{}
	updateWebhookRequest       struct{}
)

// body methods: each request is read by the decoder that reads this description.
func (createPageRequest) body() jsonbody.Body          { return service.NewPageBody }
func (updatePageRequest) body() jsonbody.Body          { return service.PagePatchBody }
func (movePageRequest) body() jsonbody.Body            { return service.MoveBody }
func (createDatabaseRequest) body() jsonbody.Body      { return service.NewDatabaseBody }
func (updateDatabaseRequest) body() jsonbody.Body      { return service.DatabasePatchBody }
func (createViewRequest) body() jsonbody.Body          { return views.CreateBody }
func (updateViewRequest) body() jsonbody.Body          { return service.ViewPatchBody }
func (createMindMapRequest) body() jsonbody.Body       { return mindmap.NewBody }
func (updateMindMapRequest) body() jsonbody.Body       { return mindmap.PatchBody }
func (searchRequest) body() jsonbody.Body              { return service.SearchBody }
func (semanticRequest) body() jsonbody.Body            { return service.SemanticBody }
func (queryDatabaseRequest) body() jsonbody.Body       { return service.RecordQueryBody }
func (mutationsRequest) body() jsonbody.Body           { return service.MutationsBody }
func (appendBlockChildrenRequest) body() jsonbody.Body { return service.AppendBody }
func (createUploadRequest) body() jsonbody.Body        { return service.NewUploadBody }
func (createWebhookRequest) body() jsonbody.Body       { return service.NewWebhookBody }
func (updateWebhookRequest) body() jsonbody.Body       { return service.WebhookChangeBody }

// bodySchema registers the object b describes under name and returns a reference to it.
func bodySchema(r huma.Registry, name string, b jsonbody.Body) *huma.Schema {
	return component(r, name, func() *huma.Schema { return objectSchema(r, name, b) })
}

// objectSchema is the object b describes; name names it in a panic.
func objectSchema(r huma.Registry, name string, b jsonbody.Body) *huma.Schema {
	s := &huma.Schema{Type: huma.TypeObject, AdditionalProperties: false, Properties: map[string]*huma.Schema{}}
	for _, f := range b.Fields {
		if f.Hidden {
			continue
		}
		s.Properties[f.Name] = fieldSchema(r, name, f)
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

// fieldSchema is the schema of one member: its shape or JSON type, then its limits.
func fieldSchema(r huma.Registry, body string, f jsonbody.Field) *huma.Schema {
	var shape *huma.Schema
	if f.Shape != "" {
		sh, ok := bodyShapes[f.Shape]
		if !ok {
			panic("httpapi: " + body + "." + f.Name + " names the shape " + f.Shape + ", which bodyShapes lacks")
		}
		shape = sh.schema(r, f.Shape)
	}
	var s *huma.Schema
	switch {
	case f.Type == "":
		// A schema provider builds a fresh schema each call; a reference is one too.
		s = shape
	case f.Type == huma.TypeArray && shape != nil:
		s = &huma.Schema{Type: f.Type, Items: shape}
	case f.Type == huma.TypeArray:
		s = &huma.Schema{Type: f.Type, Items: &huma.Schema{Type: f.Items}}
	case f.Type == huma.TypeObject && shape != nil:
		s = &huma.Schema{Type: f.Type, AdditionalProperties: shape}
	default:
		s = &huma.Schema{Type: f.Type, Format: scalarFormat[f.Type]}
	}
	switch {
	case f.Nullable && s.Type == "":
		// A shape is a reference or a union: null is one more variant.
		s = &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, s}}
	case f.Nullable:
		s.Nullable = true
	}
	if f.Format != "" {
		s.Format = f.Format
	}
	// Only what the field sets: a shape's own description stays when the field has none.
	if f.Doc != "" {
		s.Description = f.Doc
	}
	if f.Default != nil {
		s.Default = f.Default
	}
	if len(f.Enum) > 0 {
		s.Enum = anys(f.Enum)
		if f.Nullable {
			s.Enum = append(s.Enum, nil) // a value outside enum is refused, null too
		}
	}
	if f.Minimum != nil {
		s.Minimum = f.Minimum
	}
	if f.Maximum != nil {
		s.Maximum = f.Maximum
	}
	setLimit(&s.MinLength, f.MinLength)
	setLimit(&s.MaxLength, f.MaxLength)
	setLimit(&s.MinItems, f.MinItems)
	setLimit(&s.MaxItems, f.MaxItems)
	return s
}

// scalarFormat is the format the document gives a number of each JSON type, as huma gives
// Go's int64 and float64.
var scalarFormat = map[string]string{huma.TypeInteger: "int64", huma.TypeNumber: "double"}

// setLimit sets *at to n, unless n is 0 (no limit).
func setLimit(at **int, n int) {
	if n != 0 {
		*at = &n
	}
}
