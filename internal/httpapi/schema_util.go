package httpapi

import (
	"maps"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// component registers the schema build makes under name, once, and returns a reference to it:
// the per-type schemas are shared by every operation that uses them, and named so generated
// clients get one type each.
func component(r huma.Registry, name string, build func() *huma.Schema) *huma.Schema {
	ref := &huma.Schema{Ref: "#/components/schemas/" + name}
	if _, ok := r.Map()[name]; ok {
		return ref
	}
	r.Map()[name] = &huma.Schema{} // a placeholder, so a schema may refer to itself
	r.Map()[name] = build()
	return ref
}

// typeName is a wire name as a component name: heading_1 → Heading1, to_do → ToDo.
func typeName(wire string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(wire, func(c rune) bool { return c == '_' || c == ' ' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// anys is vs as enum values.
func anys(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// cloneProps copies a properties map, so a variant can change its own copy.
func cloneProps(m map[string]*huma.Schema) map[string]*huma.Schema { return maps.Clone(m) }

// discriminated is an empty oneOf whose variants addVariant adds, told apart by property.
func discriminated(property, description string) *huma.Schema {
	return &huma.Schema{Description: description,
		Discriminator: &huma.Discriminator{PropertyName: property, Mapping: map[string]string{}}}
}

// addVariant adds the component ref to the union s, mapped from the discriminator's value.
func addVariant(s *huma.Schema, value string, ref *huma.Schema) {
	s.OneOf = append(s.OneOf, ref)
	s.Discriminator.Mapping[value] = ref.Ref
}
