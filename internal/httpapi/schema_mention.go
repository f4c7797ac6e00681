package httpapi

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/properties"
)

// mentionRead documents the mention of a rich-text item as read, mentionInput as written.
type (
	mentionRead  struct{}
	mentionInput struct{}
)

// Schema describes a mention as read.
func (mentionRead) Schema(r huma.Registry) *huma.Schema { return mentionSchema(r, false) }

// Schema describes a mention as written.
func (mentionInput) Schema(r huma.Registry) *huma.Schema { return mentionSchema(r, true) }

// mentionSchema is {type, T: …}: a user ({object: user, id}), a page or database ({id}), or a
// date (as a date property's value). On write type may be left out.
func mentionSchema(r huma.Registry, in bool) *huma.Schema {
	return component(r, pickName(in, "MentionInput", "Mention"), func() *huma.Schema {
		user := r.Schema(reflect.TypeFor[userRef](), true, "")
		if in {
			user = valueSchema(r, properties.TypeDescription{Value: "user"}, true)
		}
		id := &huma.Schema{Type: "object", Required: []string{"id"}, Properties: map[string]*huma.Schema{"id": {Type: "string", Format: "uuid"}}}
		date := valueSchema(r, properties.TypeDescription{Value: "date"}, in).OneOf[1] // not null: a date mention has a date
		s := &huma.Schema{Type: "object", Properties: map[string]*huma.Schema{
			"type": {Type: "string", Enum: []any{"user", "page", "database", "date"}},
			"user": user, "page": id, "database": id, "date": date}}
		if in {
			s.AdditionalProperties = false
			id.AdditionalProperties = false
		} else {
			s.Required = []string{"type"}
		}
		return s
	})
}
