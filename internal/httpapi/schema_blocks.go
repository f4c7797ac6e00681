package httpapi

import (
	"reflect"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/blocks"
)

// The block schemas are built from blocks.Describe, the table the decoder and the encoder read,
// so a new block type or field shows up in the document by itself (a field without a schema
// here stops the server at start, see blockFieldSchema). Written blocks are a oneOf keyed by
// the type's field (type may be left out on write); read blocks are a oneOf with a
// discriminator on type.

// blockInputSchema is a block as written, with its children.
func blockInputSchema(r huma.Registry) *huma.Schema {
	return component(r, "BlockInput", func() *huma.Schema {
		var variants []*huma.Schema
		for _, d := range blocks.Describe() {
			if d.ReadOnly {
				continue
			}
			variants = append(variants, component(r, typeName(d.Type)+"BlockInput", func() *huma.Schema {
				v := &huma.Schema{Type: "object", AdditionalProperties: false,
					Properties: map[string]*huma.Schema{
						"object": {Type: "string", Enum: []any{"block"}},
						"type":   {Type: "string", Enum: []any{d.Type}, Description: "May be left out: the one block-type field names the type."},
						d.Type:   component(r, typeName(d.Type)+"ContentInput", func() *huma.Schema { return blockContentInput(r, d, false) }),
					},
					Required: []string{d.Type}}
				if d.Children {
					v.Properties["children"] = &huma.Schema{Type: "array", MaxItems: ptr(100), Items: &huma.Schema{Ref: "#/components/schemas/BlockInput"},
						Description: "Child blocks beside type, as the original service writes them; not also inside the content."}
				}
				return v
			}))
		}
		return &huma.Schema{OneOf: variants, Description: "A block as written: {\"type\":T, T:{…content…, \"children\":[…]}}."}
	})
}

// blockUpdateSchema is the body of PATCH /v2/blocks/{block_id}: the block's own type's fields to
// change, and/or in_trash.
func blockUpdateSchema(r huma.Registry) *huma.Schema {
	return component(r, "UpdateBlockRequest", func() *huma.Schema {
		s := &huma.Schema{Type: "object", AdditionalProperties: false,
			Description: "{T:{…fields to change…}} where T is the block's own type, and/or {\"in_trash\":bool}. " +
				"type, when sent, must be the block's own type.",
			Properties: map[string]*huma.Schema{
				"in_trash": {Type: "boolean", Description: "true trashes the block, false restores it."},
				"type":     {Type: "string", Description: "The block's own type; a block's type cannot change."},
			}}
		for _, d := range blocks.Describe() {
			if !d.ReadOnly {
				s.Properties[d.Type] = component(r, typeName(d.Type)+"ContentUpdate", func() *huma.Schema { return blockContentInput(r, d, true) })
			}
		}
		return s
	})
}

// blockContentInput is the type object of d as written; on an update nothing is required and
// children are not sent.
func blockContentInput(r huma.Registry, d blocks.TypeDescription, update bool) *huma.Schema {
	rt := richTextInputSchema(r)
	s := &huma.Schema{Type: "object", AdditionalProperties: false, Properties: map[string]*huma.Schema{}}
	if d.RichText {
		s.Properties["rich_text"] = rt
	}
	if d.Caption {
		s.Properties["caption"] = rt
	}
	if d.Color {
		addColors(s)
		s.Properties["color"] = &huma.Schema{Type: "string", Description: "Legacy single channel: red sets text_color, red_background sets background_color."}
	}
	if d.Media {
		addMedia(r, s, true)
	}
	if d.Children && !update {
		s.Properties["children"] = &huma.Schema{Type: "array", MaxItems: ptr(100), Items: &huma.Schema{Ref: "#/components/schemas/BlockInput"}}
		if d.ChildType != "" {
			s.Properties["children"].Description = "Blocks of type " + d.ChildType + "."
		}
	}
	for _, f := range d.Fields {
		s.Properties[f] = blockFieldSchema(r, d.Type, f, true)
	}
	if !update {
		for _, f := range d.Required {
			if _, ok := s.Properties[f]; ok && (!d.Media || f != "external") && !(d.Type == "link_to_page" && f == "page_id") {
				s.Required = append(s.Required, f)
			}
		}
	}
	return s
}

// blockContentRead is the type object of d as the server returns it.
func blockContentRead(r huma.Registry, d blocks.TypeDescription) *huma.Schema {
	rt := r.Schema(reflect.TypeFor[richTextJSON](), true, "")
	s := &huma.Schema{Type: "object", Properties: map[string]*huma.Schema{}}
	if d.RichText {
		s.Properties["rich_text"] = rt
		s.Required = append(s.Required, "rich_text")
	}
	if d.Caption {
		s.Properties["caption"] = rt
		s.Required = append(s.Required, "caption")
	}
	if d.Color {
		addColors(s)
		s.Required = append(s.Required, "text_color", "background_color")
	}
	if d.Media {
		addMedia(r, s, false)
		s.Required = append(s.Required, "type")
	}
	for _, f := range d.Fields {
		s.Properties[f] = blockFieldSchema(r, d.Type, f, false)
		if slices.Contains(alwaysRead, f) {
			s.Required = append(s.Required, f)
		}
	}
	if d.ReadOnly {
		s.Properties["title"] = &huma.Schema{Type: "string"}
		s.Required = append(s.Required, "title")
	}
	if d.Type == "link_to_page" || d.ReadOnly {
		s.Properties["url"] = &huma.Schema{Type: "string", Description: "Where a renderer links to."}
	}
	return s
}

// alwaysRead are the type fields blocks.AppendContent writes whatever the content; a field
// added later is optional in the read schema until it joins them.
var alwaysRead = []string{"is_toggleable", "checked", "icon", "language", "expression", "name", "url",
	"table_width", "has_column_header", "has_row_header", "cells", "type"}

// blockFieldSchema is the schema of a type's own field f; in is true for the written form.
func blockFieldSchema(r huma.Registry, typ, f string, in bool) *huma.Schema {
	switch f {
	case "is_toggleable", "checked", "has_column_header", "has_row_header":
		return &huma.Schema{Type: "boolean"}
	case "icon":
		if in {
			return r.Schema(reflect.TypeFor[fileObjectOrNull](), true, "")
		}
		return r.Schema(reflect.TypeFor[fileObjectJSON](), true, "")
	case "language":
		return &huma.Schema{Type: "string", Enum: anys(blocks.Languages)}
	case "expression", "name":
		return &huma.Schema{Type: "string"}
	case "url":
		return &huma.Schema{Type: "string", MaxLength: ptr(2000)}
	case "table_width":
		return &huma.Schema{Type: "integer", Minimum: ptr(1.0), Description: "Cells in each row; fixed once the table is made."}
	case "cells":
		rt := r.Schema(reflect.TypeFor[richTextJSON](), true, "")
		if in {
			rt = richTextInputSchema(r)
		}
		return &huma.Schema{Type: "array", Items: rt, Description: "One rich-text array per cell, table_width of them."}
	case "type":
		if typ == "link_to_page" {
			return &huma.Schema{Type: "string", Enum: []any{"page_id", "database_id"}}
		}
	case "page_id", "database_id":
		return &huma.Schema{Type: "string", Format: "uuid"}
	case "text_align", "caption_align": // the original service's alignment fields, stored only when set
		align := &huma.Schema{Type: "string", Enum: anys(blocks.Alignments)}
		if in {
			return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, align}, Description: "null clears it."}
		}
		return align
	}
	panic("httpapi: the document has no schema for field " + f + " of block type " + typ)
}

// addColors adds the two colour channels.
func addColors(s *huma.Schema) {
	s.Properties["text_color"] = &huma.Schema{Type: "string", Enum: anys(blocks.TextColors())}
	s.Properties["background_color"] = &huma.Schema{Type: "string", Enum: anys(blocks.BackgroundColors())}
}

// addMedia adds a media block's source: {type, external|file_upload|file}.
func addMedia(r huma.Registry, s *huma.Schema, in bool) {
	kinds := []any{"external", "file"}
	if in {
		kinds = []any{"external", "file_upload", "file"}
		s.Properties["file_upload"] = r.Schema(reflect.TypeFor[fileUploadRef](), true, "")
	}
	s.Properties["type"] = &huma.Schema{Type: "string", Enum: kinds, Description: "Which field holds the file."}
	s.Properties["external"] = r.Schema(reflect.TypeFor[linkObject](), true, "")
	s.Properties["file"] = r.Schema(reflect.TypeFor[servedFile](), true, "")
}

// richTextInputSchema is a rich-text array as written.
func richTextInputSchema(r huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "array", MaxItems: ptr(100), Items: r.Schema(reflect.TypeFor[richTextItemInput](), true, "")}
}

// blockReadSchema is a block as the server returns it: the shared fields and the type's object,
// one variant per type, told apart by type.
func blockReadSchema(r huma.Registry) *huma.Schema {
	return component(r, "Block", func() *huma.Schema {
		base := r.Schema(reflect.TypeFor[blockDoc](), false, "")
		s := discriminated("type", "A block: the fields every type shares and, under the field named by type, the type's content.")
		for _, d := range blocks.Describe() {
			name := typeName(d.Type) + "Block"
			ref := component(r, name, func() *huma.Schema {
				v := *base
				v.Properties = cloneProps(base.Properties)
				v.Properties["type"] = &huma.Schema{Type: "string", Enum: []any{d.Type}}
				v.Properties[d.Type] = component(r, typeName(d.Type)+"Content", func() *huma.Schema { return blockContentRead(r, d) })
				v.Required = append(slices.Clone(base.Required), d.Type)
				return &v
			})
			addVariant(s, d.Type, ref)
		}
		return s
	})
}
