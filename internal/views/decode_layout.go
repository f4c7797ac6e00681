package views

import (
	"strconv"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// layout decodes property_layout: [{"property":ID,"visible":bool,"width"?:int}], null for
// none. The literal "title" names the sole title property when no property has id "title".
func (d *decoder) layout(path string, v any) []LayoutEntry {
	if v == nil {
		return nil
	}
	arr, ok := jsonbody.Array(d.p, path, v, MaxArray)
	if !ok {
		return nil
	}
	if len(arr) > 0 && d.kind != "" && !hasLayout(d.kind) {
		d.p.Add(path, quire.ReasonInvalidValue, "A "+d.kind+" view has no property_layout; send [] or leave it out.")
		return nil
	}
	out := make([]LayoutEntry, 0, len(arr))
	seen := map[string]bool{}
	jsonbody.EachObject(d.p, path, arr, func(ip string, m map[string]any) {
		jsonbody.Unknown(d.p, ip, m, "property", "visible", "width")
		e := LayoutEntry{Property: d.listedProperty(ip, m, seen, d.titleAlias, "already in the layout")}
		if m["visible"] == nil {
			d.p.Add(jsonbody.Join(ip, "visible"), quire.ReasonRequired, "Field \"visible\" is required.")
		} else {
			e.Visible, _ = jsonbody.Bool(d.p, jsonbody.Join(ip, "visible"), m["visible"])
		}
		if m["width"] != nil {
			if w, ok := integer(d.p, jsonbody.Join(ip, "width"), m["width"], MinWidth, MaxWidth); ok {
				e.Width = &w
			}
		}
		out = append(out, e)
	})
	return out
}

// listedProperty reads the "property" of item m at ip of a list that names a property once:
// a property of the schema (its id through alias, when given), and not one seen before in the
// list (again words the repeat).
func (d *decoder) listedProperty(ip string, m map[string]any, seen map[string]bool, alias func(string) string, again string) string {
	id, ok := required(d.p, ip, m, "property")
	if !ok {
		return ""
	}
	if alias != nil {
		id = alias(id)
	}
	path := jsonbody.Join(ip, "property")
	if p := d.property(path, id); p != nil {
		if seen[id] {
			d.p.Add(path, quire.ReasonInvalidValue, "Property "+strconv.Quote(id)+" is "+again+".")
		}
		seen[id] = true
	}
	return id
}

// titleAlias resolves the literal "title" to the sole title property's id when the schema has
// no property with id "title" (legacy databases).
func (d *decoder) titleAlias(id string) string {
	if id != quire.PropTitle || d.s.ByID(id) != nil {
		return id
	}
	if t := d.s.Title(); t != nil {
		return t.ID
	}
	return id
}

// sorts decodes [{"property":ID,"direction":"ascending"|"descending"}], null for none. A
// property is sorted on at most once.
func (d *decoder) sorts(path string, v any) []Sort {
	if v == nil {
		return nil
	}
	arr, ok := jsonbody.Array(d.p, path, v, MaxArray)
	if !ok {
		return nil
	}
	out := make([]Sort, 0, len(arr))
	seen := map[string]bool{}
	jsonbody.EachObject(d.p, path, arr, func(ip string, m map[string]any) {
		jsonbody.Unknown(d.p, ip, m, "property", "direction")
		s := Sort{Property: d.listedProperty(ip, m, seen, nil, "already sorted on")}
		if m["direction"] == nil {
			d.p.Add(jsonbody.Join(ip, "direction"), quire.ReasonRequired, "Field \"direction\" is required.")
		} else {
			s.Direction, _ = jsonbody.Enum(d.p, jsonbody.Join(ip, "direction"), m["direction"], []string{Ascending, Descending})
		}
		out = append(out, s)
	})
	return out
}

// groupBy decodes {"property":ID} for table and board views, null for none.
func (d *decoder) groupBy(path string, v any) *GroupBy {
	if v == nil {
		return nil
	}
	if d.kind != "" && !canGroup(d.kind) {
		d.p.Add(path, quire.ReasonInvalidValue, "Only table and board views are grouped.")
		return nil
	}
	m, ok := jsonbody.Object(d.p, path, v)
	if !ok {
		return nil
	}
	jsonbody.Unknown(d.p, path, m, "property")
	id, ok := required(d.p, path, m, "property")
	if !ok {
		return nil
	}
	if p := d.property(jsonbody.Join(path, "property"), id); p != nil && !groupable[p.Type] {
		d.p.Add(jsonbody.Join(path, "property"), quire.ReasonInvalidValue, "A view cannot be grouped by a "+p.Type+" property.")
	}
	return &GroupBy{Property: id}
}

// pageSort decodes page_sort: distinct record ids (UUIDs), null for none.
func (d *decoder) pageSort(path string, v any) []string {
	if v == nil {
		return nil
	}
	arr, ok := jsonbody.Array(d.p, path, v, MaxPageSort)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(arr))
	seen := make(map[string]bool, len(arr))
	for i, item := range arr {
		id, ok := jsonbody.String(d.p, jsonbody.Index(path, i), item)
		switch {
		case !ok:
		case !quire.ValidID(id):
			d.p.Add(jsonbody.Index(path, i), quire.ReasonInvalidValue, "page_sort holds record ids.")
		case seen[id]:
			d.p.Add(jsonbody.Index(path, i), quire.ReasonInvalidValue, "Record "+id+" is already in page_sort.")
		default:
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
