package dbquery

import (
	"fmt"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

const maxSorts = 100

// SortShape is one sort of a query, by a property or a timestamp (decoder.sort).
var SortShape = jsonbody.Body{Noun: "A sort", Fields: []jsonbody.Field{
	{Name: "property", Type: "string"},
	{Name: "timestamp", Type: "string", Enum: []string{TypeCreatedTime, TypeLastEditedTime}},
	{Name: "direction", Type: "string", Required: true, Enum: []string{"ascending", "descending"}},
}}

// sortColumn is the record_values column a property type sorts by; "" when it cannot be sorted
// (multi-valued types, people). Timestamps sort by the nodes row instead.
var sortColumn = map[string]string{
	"title": "v_text", "rich_text": "v_text", "url": "v_text", "email": "v_text", "phone_number": "v_text",
	"number": "v_num", "unique_id": "v_num", "checkbox": "v_num", "date": "v_num",
	"select": "v_num", "status": "v_num", // the option's index in the schema
	TypeCreatedTime: "created_ms", TypeLastEditedTime: "edited_ms",
}

func (d *decoder) decodeSorts(raw []byte) []Sort {
	v, ok := d.parse(raw, "sorts")
	if !ok || v == nil {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		d.p.Add("sorts", quire.ReasonInvalidType, "sorts must be an array.")
		return nil
	}
	if len(arr) > maxSorts {
		d.p.AddDetail(quire.Beyond("sorts", quire.ReasonTooMany, maxSorts, int64(len(arr))), fmt.Sprintf("sorts holds at most %d entries.", maxSorts))
		return nil
	}
	out := make([]Sort, 0, len(arr))
	for i, e := range arr {
		if s, ok := d.sort(e, fmt.Sprintf("sorts[%d]", i)); ok {
			out = append(out, s)
		}
	}
	return out
}

func (d *decoder) sort(v any, path string) (Sort, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		d.p.Add(path, quire.ReasonInvalidType, "A sort must be an object.")
		return Sort{}, false
	}
	var s Sort
	good := true
	fail := func(field, reason, msg string) {
		d.p.Add(path+"."+field, reason, msg)
		good = false
	}
	for _, k := range keys(obj) {
		if !SortShape.TakesAt(d.p, path, k) {
			good = false
		}
	}
	switch dir, ok := obj["direction"]; {
	case !ok:
		fail("direction", quire.ReasonRequired, "A sort needs a direction.")
	case dir == "ascending":
	case dir == "descending":
		s.Descending = true
	default:
		if _, isString := dir.(string); !isString {
			fail("direction", quire.ReasonInvalidType, "direction must be a string.")
		} else {
			fail("direction", quire.ReasonInvalidValue, "direction is ascending or descending.")
		}
	}
	prop, hasProp := obj["property"]
	ts, hasTS := obj["timestamp"]
	switch {
	case hasProp && hasTS:
		fail("timestamp", quire.ReasonInvalidValue, "A sort is by a property or by a timestamp, not both.")
	case hasProp:
		name, ok := prop.(string)
		if !ok {
			fail("property", quire.ReasonInvalidType, "A sort's property must be a string.")
			break
		}
		p := d.s.Lookup(name)
		switch {
		case p == nil:
			fail("property", quire.ReasonInvalidValue, fmt.Sprintf("Could not find property with name or id: %s.", name))
		case sortColumn[p.Type] == "":
			d.p.Unsupported(quire.CodeUnsupportedSort, path+".property", quire.ReasonInvalidValue, fmt.Sprintf("Property %s of type %s cannot be sorted.", name, p.Type))
			good = false
		default:
			s.PropertyID, s.Type = p.ID, p.Type
		}
	case hasTS:
		name, ok := ts.(string)
		switch {
		case !ok:
			fail("timestamp", quire.ReasonInvalidType, "A sort's timestamp must be a string.")
		case name != TypeCreatedTime && name != TypeLastEditedTime:
			fail("timestamp", quire.ReasonInvalidValue, "A timestamp sort is by created_time or last_edited_time.")
		default:
			s.Type = name
		}
	default:
		fail("property", quire.ReasonRequired, "A sort names a property or a timestamp.")
	}
	return s, good
}
