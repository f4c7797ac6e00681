package httpapi

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/properties"
)

// A database's schema, one variant per property type with its configuration, from
// properties.Describe (see schema_properties.go).

// propertySchemaRead is one property of a database as read: {id, name, type, T: configuration},
// told apart by type.
func propertySchemaRead(r huma.Registry) *huma.Schema {
	return component(r, "DatabaseProperty", func() *huma.Schema {
		s := discriminated("type", "{id, name, type, T: configuration}, T the property's type.")
		for _, d := range properties.Describe() {
			ref := component(r, typeName(d.Type)+"DatabaseProperty", func() *huma.Schema {
				return &huma.Schema{Type: "object", Required: []string{"id", "name", "type", d.Type}, Properties: map[string]*huma.Schema{
					"id": {Type: "string"}, "name": {Type: "string"}, "type": {Type: "string", Enum: []any{d.Type}},
					d.Type: configSchema(r, d, false)}}
			})
			addVariant(s, d.Type, ref)
		}
		return s
	})
}

// propertySchemaInput is one property of a database as written: {T: configuration} or
// {"type": T, T?: configuration}, with name to rename it; null removes it (PATCH). The variants
// overlap ({"name": …} fits each), hence anyOf.
func propertySchemaInput(r huma.Registry) *huma.Schema {
	return component(r, "DatabasePropertyInput", func() *huma.Schema {
		s := &huma.Schema{Description: "{T: configuration} or {\"type\": T, T: configuration}; {\"name\": …} renames (PATCH); null removes (PATCH).",
			AnyOf: []*huma.Schema{{Type: "null"}}}
		for _, d := range properties.Describe() {
			s.AnyOf = append(s.AnyOf, component(r, typeName(d.Type)+"DatabasePropertyInput", func() *huma.Schema {
				return &huma.Schema{Type: "object", AdditionalProperties: false, Properties: map[string]*huma.Schema{
					"id":   {Type: "string", Description: "Ignored on create: a new property gets a new id."},
					"name": {Type: "string", MaxLength: ptr(100)}, "type": {Type: "string", Enum: []any{d.Type}},
					d.Type: configSchema(r, d, true)}}
			}))
		}
		return s
	})
}

// configSchema is the configuration of shape d.Config; in is true for the written form, where
// every field may be left out.
func configSchema(r huma.Registry, d properties.TypeDescription, in bool) *huma.Schema {
	name := typeName(d.Config) + "PropertyConfig"
	if in {
		name += "Input"
	}
	return component(r, name, func() *huma.Schema {
		s := &huma.Schema{Type: "object", AdditionalProperties: false, Properties: map[string]*huma.Schema{}}
		var required []string
		switch d.Config {
		case "empty":
		case "number":
			s.Properties["format"] = &huma.Schema{Type: "string", Enum: anys(properties.NumberFormats())}
			required = []string{"format"}
		case "options", "status":
			s.Properties["options"] = &huma.Schema{Type: "array", MaxItems: ptr(100), Items: optionSchema(r, in)}
			required = []string{"options"}
			if d.Config == "status" {
				s.Properties["groups"] = &huma.Schema{Type: "array", Items: statusGroupSchema(r, in)}
				required = append(required, "groups")
			}
		case "relation":
			s.Properties["database_id"] = &huma.Schema{Type: "string", Format: "uuid"}
			s.Properties["type"] = &huma.Schema{Type: "string", Enum: []any{"single_property", "dual_property"}}
			s.Properties["single_property"] = &huma.Schema{Type: "object", AdditionalProperties: true}
			s.Properties["dual_property"] = &huma.Schema{Type: "object", AdditionalProperties: true,
				Properties: map[string]*huma.Schema{"synced_property_id": {Type: "string"}}}
			required = []string{"database_id", "type"}
			if in {
				required = []string{"database_id"}
			}
		case "unique_id":
			s.Properties["prefix"] = &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, {Type: "string", MaxLength: ptr(20)}}}
			required = []string{"prefix"}
		default:
			panic("httpapi: the document has no schema for property configurations of shape " + d.Config + " (type " + d.Type + ")")
		}
		if !in {
			s.Required = required
		} else if d.Config == "relation" {
			s.Required = required
		}
		return s
	})
}

// statusGroupSchema is a group of status options.
func statusGroupSchema(r huma.Registry, in bool) *huma.Schema {
	return component(r, pickName(in, "StatusGroupInput", "StatusGroup"), func() *huma.Schema {
		s := &huma.Schema{Type: "object", Properties: map[string]*huma.Schema{
			"id": {Type: "string"}, "name": {Type: "string", MaxLength: ptr(100)},
			"color":      {Type: "string", Enum: anys(properties.OptionColors())},
			"option_ids": {Type: "array", Items: &huma.Schema{Type: "string"}}}}
		if in {
			s.AdditionalProperties = false
		} else {
			s.Required = []string{"id", "name", "color", "option_ids"}
		}
		return s
	})
}
