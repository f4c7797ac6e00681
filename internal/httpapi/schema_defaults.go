package httpapi

import (
	"fmt"

	"github.com/danielgtaylor/huma/v2"
)

// describeDefaults moves the default of every object property of the component schemas into its
// description. A default is what the server does when the field is left out, but generators read
// it otherwise: openapi-typescript 7 (defaultNonNullable, on by default) makes a property with a
// default required, so page_type or page_size had to be sent by every typed client. Parameters
// keep theirs: no generator makes them required.
func describeDefaults(reg huma.Registry) {
	seen := map[*huma.Schema]bool{}
	for _, s := range reg.Map() {
		walkSchema(s, seen, func(s *huma.Schema) {
			for _, p := range s.Properties {
				if p == nil || p.Default == nil {
					continue
				}
				note := fmt.Sprintf("Default: %v.", p.Default)
				if p.Description != "" {
					note = p.Description + " " + note
				}
				p.Description, p.Default = note, nil
			}
		})
	}
}

// walkSchema calls fn on s and every schema inside it, each once.
func walkSchema(s *huma.Schema, seen map[*huma.Schema]bool, fn func(*huma.Schema)) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	fn(s)
	for _, p := range s.Properties {
		walkSchema(p, seen, fn)
	}
	walkSchema(s.Items, seen, fn)
	walkSchema(s.Not, seen, fn)
	if a, ok := s.AdditionalProperties.(*huma.Schema); ok {
		walkSchema(a, seen, fn)
	}
	for _, l := range [][]*huma.Schema{s.OneOf, s.AnyOf, s.AllOf} {
		for _, x := range l {
			walkSchema(x, seen, fn)
		}
	}
}
