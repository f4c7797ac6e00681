package httpapi

import (
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/mindmap"
)

// mindMapEditSchema is one edit of PATCH /v2/mind-maps/{mind_map_id}: a variant per op, told
// apart by op, each with the fields mindmap.DescribeEdits says it takes (their schemas from
// mindmap.EditShape, which the decoder's fields follow).
func mindMapEditSchema(r huma.Registry) *huma.Schema {
	return component(r, "MindMapEdit", func() *huma.Schema {
		all := objectSchema(r, "MindMapEdit", mindmap.EditShape)
		s := discriminated("op", "Applied in order, all or none. delete takes the subtree too, never the root.")
		for _, d := range mindmap.DescribeEdits() {
			ref := component(r, typeName(d.Op)+"MindMapEdit", func() *huma.Schema {
				v := &huma.Schema{Type: "object", AdditionalProperties: false, Properties: map[string]*huma.Schema{},
					Required: append([]string{"op"}, d.Required...)}
				for _, f := range d.Fields {
					p, ok := all.Properties[f]
					if !ok {
						panic("httpapi: mindmap.EditShape has no field " + f + " of the mind-map edit " + d.Op)
					}
					if f == "op" {
						p = &huma.Schema{Type: "string", Enum: []any{d.Op}}
					}
					v.Properties[f] = p
				}
				if slices.Contains(d.Fields, "after") && slices.Contains(d.Fields, "position") {
					v.Description = "after or position, not both; last when neither is sent."
				}
				return v
			})
			addVariant(s, d.Op, ref)
		}
		return s
	})
}
