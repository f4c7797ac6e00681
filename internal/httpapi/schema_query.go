package httpapi

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/dbquery"
)

// The filter of POST /v2/databases/{database_id}/query, from dbquery's operator tables: a
// property filter ({property, K: condition}, K the property's type or its family's key), a
// timestamp filter, or and/or of them, two levels deep.

// queryFilterSchema is the whole filter: a leaf, or and/or whose members may be and/or of leaves.
func queryFilterSchema(r huma.Registry) *huma.Schema {
	return component(r, "QueryFilter", func() *huma.Schema {
		leaf := leafFilterSchema(r)
		nested := component(r, "NestedQueryFilter", func() *huma.Schema {
			return &huma.Schema{OneOf: []*huma.Schema{leaf, compoundFilter(r, "NestedCompoundFilter", leaf)}}
		})
		return &huma.Schema{OneOf: []*huma.Schema{{Type: "null"}, leaf, compoundFilter(r, "CompoundFilter", nested)},
			Description: "A property filter, a timestamp filter, or and/or of them nested two levels deep; null is no filter."}
	})
}

// compoundFilter is {"and": [member…]} or {"or": [member…]}.
func compoundFilter(r huma.Registry, name string, member *huma.Schema) *huma.Schema {
	return component(r, name, func() *huma.Schema {
		arr := &huma.Schema{Type: "array", MaxItems: ptr(100), Items: member}
		var variants []*huma.Schema
		for _, key := range []string{"and", "or"} {
			variants = append(variants, &huma.Schema{Type: "object", AdditionalProperties: false, Required: []string{key},
				Properties: map[string]*huma.Schema{key: arr}})
		}
		return &huma.Schema{OneOf: variants, Description: "Members all match (and) or any matches (or); nested at most two levels deep."}
	})
}

// leafFilterSchema is one property or timestamp filter.
func leafFilterSchema(r huma.Registry) *huma.Schema {
	return component(r, "LeafQueryFilter", func() *huma.Schema {
		conds := map[string]*huma.Schema{}
		s := &huma.Schema{}
		for _, fk := range dbquery.DescribeFilters() {
			conds[fk.Key] = component(r, typeName(fk.Key)+"Condition", func() *huma.Schema { return conditionSchema(fk) })
			s.OneOf = append(s.OneOf, component(r, typeName(fk.Key)+"Filter", func() *huma.Schema {
				return &huma.Schema{Type: "object", AdditionalProperties: false, Required: []string{"property", fk.Key},
					Properties: map[string]*huma.Schema{
						"property": {Type: "string", Description: "The property's name or id; its type must take " + fk.Key + " conditions."},
						fk.Key:     conds[fk.Key]}}
			}))
		}
		for _, ts := range dbquery.TimestampFilters() {
			s.OneOf = append(s.OneOf, component(r, typeName(ts)+"TimestampFilter", func() *huma.Schema {
				return &huma.Schema{Type: "object", AdditionalProperties: false, Required: []string{"timestamp", ts},
					Properties: map[string]*huma.Schema{"timestamp": {Type: "string", Enum: []any{ts}}, ts: conds[ts]}}
			}))
		}
		return s
	})
}

// conditionSchema is {operator: value} with exactly one of the key's operators.
func conditionSchema(fk dbquery.FilterKey) *huma.Schema {
	s := &huma.Schema{Type: "object", AdditionalProperties: false, MinProperties: ptr(1), MaxProperties: ptr(1),
		Properties: map[string]*huma.Schema{}, Description: "Exactly one operator."}
	for _, op := range fk.Operators {
		s.Properties[op.Name] = operandSchema(op.Operand)
	}
	return s
}

func operandSchema(kind string) *huma.Schema {
	switch kind {
	case "text":
		return &huma.Schema{Type: "string", MaxLength: ptr(2000)}
	case "number":
		return &huma.Schema{Type: "number", Format: "double"}
	case "boolean":
		return &huma.Schema{Type: "boolean"}
	case "option":
		return &huma.Schema{Type: "string", Description: "An option's name or id."}
	case "id":
		return &huma.Schema{Type: "string", Format: "uuid"}
	case "date":
		return &huma.Schema{Type: "string", Description: "An ISO 8601 date or date-time."}
	case "true":
		return &huma.Schema{Type: "boolean", Enum: []any{true}}
	case "empty":
		return &huma.Schema{Type: "object", AdditionalProperties: false, MaxProperties: ptr(0)}
	}
	panic("httpapi: the document has no schema for filter operands of kind " + kind)
}

// queryFilterInput documents the filter of a query.
type queryFilterInput struct{}

// Schema describes the filter (above).
func (queryFilterInput) Schema(r huma.Registry) *huma.Schema { return queryFilterSchema(r) }
