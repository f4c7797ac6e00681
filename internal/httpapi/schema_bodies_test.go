package httpapi

import (
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/jsonbody"
)

// TestBodySchema_UnknownShape: a body whose field names a shape the document cannot build
// stops the build, naming the field, instead of serving a schema that says nothing of it.
func TestBodySchema_UnknownShape(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "Probe.avatar") || !strings.Contains(msg, "Avatar") {
			t.Fatalf("panic %q, want one naming Probe.avatar and its shape", msg)
		}
	}()
	r := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	bodySchema(r, "Probe", jsonbody.Body{Fields: []jsonbody.Field{{Name: "avatar", Shape: "Avatar"}}})
	t.Fatal("bodySchema built a body with an unknown shape")
}

// TestBodySchema_Fields: each attribute of a field reaches its schema, a hidden field is left
// out, and a shape's own description stays when the field has none.
func TestBodySchema_Fields(t *testing.T) {
	r := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	ref := bodySchema(r, "Probe", jsonbody.Body{Fields: []jsonbody.Field{
		{Name: "size", Type: "integer", Required: true, Nullable: true, Minimum: jsonbody.Limit(0), Maximum: jsonbody.Limit(9)},
		{Name: "ids", Type: "array", Items: "string", MinItems: 1, MaxItems: 3, Doc: "Ids."},
		{Name: "kind", Type: "string", Enum: []string{"a", "b"}, Default: "a", MaxLength: 5, Format: "uuid"},
		{Name: "properties", Shape: "PropertyValuesInput"},
		{Name: "old", Type: "boolean", Hidden: true},
	}})
	s := r.SchemaFromRef(ref.Ref)
	if s == nil || s.AdditionalProperties != false || len(s.Required) != 1 || s.Required[0] != "size" {
		t.Fatalf("schema %+v, want a closed object requiring size", s)
	}
	if _, ok := s.Properties["old"]; ok || len(s.Properties) != 4 {
		t.Fatalf("properties %v, want size, ids, kind, properties", s.Properties)
	}
	size, ids, kind := s.Properties["size"], s.Properties["ids"], s.Properties["kind"]
	if size.Type != "integer" || size.Format != "int64" || !size.Nullable || *size.Minimum != 0 || *size.Maximum != 9 {
		t.Errorf("size %+v", size)
	}
	if ids.Items.Type != "string" || *ids.MinItems != 1 || *ids.MaxItems != 3 || ids.Description != "Ids." || ids.Nullable {
		t.Errorf("ids %+v", ids)
	}
	if len(kind.Enum) != 2 || kind.Default != "a" || *kind.MaxLength != 5 || kind.Format != "uuid" || kind.MinLength != nil {
		t.Errorf("kind %+v", kind)
	}
	if p := s.Properties["properties"]; p.Description == "" {
		t.Errorf("properties lost its shape's description: %+v", p)
	}
}
