package httpapi

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/properties"
)

// Property values and database schemas, one variant per property type, built from
// properties.Describe: a type is described by its value and configuration shapes, so a new type
// with a known shape shows up by itself and a new shape stops the server at start until it has
// a schema here.

// propertyValueReadSchema is a record's property value as read: {id, type, T: value}, told apart
// by type.
func propertyValueReadSchema(r huma.Registry) *huma.Schema {
	return component(r, "PropertyValue", func() *huma.Schema {
		s := discriminated("type", "{id, type, T: value}, T the property's type; a relation value also has has_more.")
		for _, d := range properties.Describe() {
			ref := component(r, typeName(d.Type)+"PropertyValue", func() *huma.Schema {
				v := &huma.Schema{Type: "object", Required: []string{"id", "type", d.Type}, Properties: map[string]*huma.Schema{
					"id": {Type: "string"}, "type": {Type: "string", Enum: []any{d.Type}}, d.Type: valueSchema(r, d, false)}}
				if d.Value == "relation" {
					v.Properties["has_more"] = &huma.Schema{Type: "boolean"}
				}
				return v
			})
			addVariant(s, d.Type, ref)
		}
		return s
	})
}

// propertyValueInputSchema is a property value as written: {T: value} (id and type may be sent
// back as read), a bare rich-text array for title and rich_text, or null to clear it.
func propertyValueInputSchema(r huma.Registry) *huma.Schema {
	return component(r, "PropertyValueInput", func() *huma.Schema {
		s := &huma.Schema{Description: "{T: value} with T the property's type (id and type may be sent back as read); " +
			"a bare rich-text array for title and rich_text; null clears the value.",
			OneOf: []*huma.Schema{{Type: "null"}, richTextInputSchema(r)}}
		for _, d := range properties.Describe() {
			if d.Computed {
				continue
			}
			s.OneOf = append(s.OneOf, component(r, typeName(d.Type)+"PropertyValueInput", func() *huma.Schema {
				v := &huma.Schema{Type: "object", AdditionalProperties: false, Required: []string{d.Type},
					Properties: map[string]*huma.Schema{"id": {Type: "string"}, "type": {Type: "string", Enum: []any{d.Type}},
						d.Type: valueSchema(r, d, true)}}
				if d.Value == "relation" {
					v.Properties["has_more"] = &huma.Schema{Type: "boolean", Description: "Sent back as read; ignored."}
				}
				return v
			}))
		}
		return s
	})
}

// propertyValuesInputSchema is the properties of a page or record as written, by name (or id).
func propertyValuesInputSchema(r huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "object", AdditionalProperties: propertyValueInputSchema(r),
		Description: "Property values by property name or id. A page outside a database has only title."}
}

// valueSchema is the schema of a value of shape d.Value; in is true for the written form.
func valueSchema(r huma.Registry, d properties.TypeDescription, in bool) *huma.Schema {
	orNull := func(s *huma.Schema) *huma.Schema { return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, s}} }
	str := &huma.Schema{Type: "string"}
	switch d.Value {
	case "rich_text":
		if in {
			return richTextInputSchema(r)
		}
		return r.Schema(reflect.TypeFor[richTextJSON](), true, "")
	case "number":
		return orNull(&huma.Schema{Type: "number", Format: "double"}) // double: generators otherwise pick float32
	case "checkbox":
		return &huma.Schema{Type: "boolean"}
	case "text":
		return orNull(str)
	case "option":
		return orNull(optionSchema(r, in))
	case "options":
		return &huma.Schema{Type: "array", MaxItems: ptr(100), Items: optionSchema(r, in)}
	case "date":
		return orNull(component(r, pickName(in, "DateValueInput", "DateValue"), func() *huma.Schema {
			s := &huma.Schema{Type: "object", Required: []string{"start"}, Properties: map[string]*huma.Schema{
				"start": {Type: "string", Description: "An ISO 8601 date or date-time."},
				"end":   orNull(str), "time_zone": orNull(str)}}
			if in {
				s.AdditionalProperties = false
			} else {
				s.Required = []string{"start", "end", "time_zone"}
			}
			return s
		}))
	case "people", "user":
		ref := r.Schema(reflect.TypeFor[userRef](), true, "")
		if in {
			ref = component(r, "UserRefInput", func() *huma.Schema {
				return &huma.Schema{Type: "object", AdditionalProperties: false, Required: []string{"id"}, Properties: map[string]*huma.Schema{
					"object": {Type: "string", Enum: []any{"user"}}, "id": {Type: "string", Format: "uuid"}}}
			})
		}
		if d.Value == "user" {
			return ref
		}
		return &huma.Schema{Type: "array", MaxItems: ptr(100), Items: ref}
	case "relation":
		item := &huma.Schema{Type: "object", Required: []string{"id"}, Properties: map[string]*huma.Schema{"id": {Type: "string", Format: "uuid"}}}
		if in {
			item.AdditionalProperties = false
		}
		return &huma.Schema{Type: "array", MaxItems: ptr(100), Items: item}
	case "files":
		return &huma.Schema{Type: "array", MaxItems: ptr(100), Items: filesItemSchema(r, in)}
	case "timestamp":
		return &huma.Schema{Type: "string", Format: "date-time"}
	case "unique_id":
		return component(r, "UniqueIDValue", func() *huma.Schema {
			return &huma.Schema{Type: "object", Required: []string{"prefix", "number"}, Properties: map[string]*huma.Schema{
				"prefix": orNull(str), "number": orNull(&huma.Schema{Type: "integer"})}}
		})
	}
	panic("httpapi: the document has no schema for property values of shape " + d.Value + " (type " + d.Type + ")")
}

// optionSchema is a select, multi_select or status option: as read, or naming one as written.
func optionSchema(r huma.Registry, in bool) *huma.Schema {
	return component(r, pickName(in, "OptionInput", "Option"), func() *huma.Schema {
		s := &huma.Schema{Type: "object", Properties: map[string]*huma.Schema{
			"id": {Type: "string"}, "name": {Type: "string", MaxLength: ptr(100)},
			"color": {Type: "string", Enum: anys(properties.OptionColors())}}}
		if in {
			s.AdditionalProperties = false
			s.Description = "An option by id or by name; an option is made in the database's schema, never by a value."
		} else {
			s.Required = []string{"id", "name", "color"}
		}
		return s
	})
}

// filesItemSchema is one file of a files value: external, or an upload (file_upload on write,
// file or file_upload on read).
func filesItemSchema(r huma.Registry, in bool) *huma.Schema {
	return component(r, pickName(in, "FileValueInput", "FileValue"), func() *huma.Schema {
		s := &huma.Schema{Type: "object", Properties: map[string]*huma.Schema{
			"name":        {Type: "string", MaxLength: ptr(255), Description: "Required for an external file."},
			"external":    r.Schema(reflect.TypeFor[linkObject](), true, ""),
			"file_upload": r.Schema(reflect.TypeFor[fileUploadRef](), true, ""),
		}}
		if in {
			s.AdditionalProperties = false
			s.Properties["type"] = &huma.Schema{Type: "string", Enum: []any{"external", "file_upload"}}
		} else {
			s.Required = []string{"name", "type"}
			s.Properties["type"] = &huma.Schema{Type: "string", Enum: []any{"external", "file", "file_upload"}}
			s.Properties["file"] = r.Schema(reflect.TypeFor[servedFile](), true, "")
		}
		return s
	})
}

func pickName(in bool, ifIn, ifOut string) string {
	if in {
		return ifIn
	}
	return ifOut
}
