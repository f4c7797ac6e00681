package views

import (
	"strconv"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// decoder reads one request body against a schema, collecting every problem.
type decoder struct {
	s     quire.Schema
	p     *quire.Problems
	kind  string // the view's kind; "" when the request's type is missing or invalid
	conds int    // conditions seen in the filter
}

// DecodeCreate reads the body of POST /v2/databases/:id/views, a value parsed by encoding/json
// (with or without UseNumber): {name, type, property_layout?, filter?, sorts?, group_by?,
// config?}. Every problem is reported at once in a *quire.Error (validation_error; invalid_json
// at path "body" when v is not an object). Config keys left out get DefaultConfig's values.
func DecodeCreate(s quire.Schema, v any) (*View, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, notObject()
	}
	d := &decoder{s: s, p: &quire.Problems{}}
	CreateBody.Unknown(d.p, m)
	out := &View{}
	if t, ok := required(d.p, "", m, "type"); ok {
		if IsKind(t) {
			out.Type, d.kind = t, t
		} else {
			d.p.Add("type", quire.ReasonInvalidValue, "type is one of table, board, gallery, list, calendar, timeline, form.")
		}
	}
	if name, ok := required(d.p, "", m, "name"); ok {
		out.Name = d.name(name)
	}
	out.Config = DefaultConfig(d.kind, s)
	d.apply(out, m)
	if err := d.p.Err(); err != nil {
		return nil, err
	}
	out.Config = out.Config.only(out.Type)
	return out, nil
}

// DecodePatch reads the body of PATCH on a view and returns the view it makes of current,
// which is left unchanged: {name?, type?, property_layout?, filter?, sorts?, group_by?,
// config?, page_sort?}. Fields left out keep their values (references to deleted properties
// pruned as on read); property_layout, filter, sorts, group_by and page_sort are replaced
// whole and null clears them; config keys given replace those keys, a null key takes its
// default, and "config": null resets all of them. type may be repeated but not changed
// (reason immutable). page_sort must hold record ids; the caller checks that they are records
// of the view's database.
func DecodePatch(s quire.Schema, current *View, v any) (*View, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, notObject()
	}
	d := &decoder{s: s, p: &quire.Problems{}, kind: current.Type}
	PatchBody.Unknown(d.p, m)
	out := Read(s, current, true)
	if t := m["type"]; t != nil {
		if ts, ok := jsonbody.String(d.p, "type", t); ok && ts != current.Type {
			d.p.Add("type", quire.ReasonImmutable, "A view's type cannot be changed.")
		}
	}
	if n := m["name"]; n != nil {
		if name, ok := jsonbody.String(d.p, "name", n); ok {
			out.Name = d.name(name)
		}
	}
	d.apply(out, m)
	if raw, present := m["page_sort"]; present {
		out.PageSort = d.pageSort("page_sort", raw)
	}
	if err := d.p.Err(); err != nil {
		return nil, err
	}
	out.Config = out.Config.only(out.Type)
	return out, nil
}

// apply decodes the fields shared by create and patch that are present in m onto out.
func (d *decoder) apply(out *View, m map[string]any) {
	if raw, present := m["property_layout"]; present {
		out.PropertyLayout = d.layout("property_layout", raw)
	}
	if raw, present := m["filter"]; present {
		out.Filter = d.filter("filter", raw)
	}
	if raw, present := m["sorts"]; present {
		out.Sorts = d.sorts("sorts", raw)
	}
	if raw, present := m["group_by"]; present {
		out.GroupBy = d.groupBy("group_by", raw)
	}
	if raw, present := m["config"]; present {
		out.Config = d.config("config", raw, out.Config)
	}
}

func (d *decoder) name(name string) string {
	if tooLong(name, MaxName) {
		d.p.AddDetail(quire.Beyond("name", quire.ReasonTooLong, MaxName, runes(name)), "A view's name has at most "+strconv.Itoa(MaxName)+" characters.")
	}
	return name
}

// property returns the schema's property with exactly id, or reports invalid_value at path.
func (d *decoder) property(path, id string) *quire.Property {
	p := d.s.ByID(id)
	if p == nil {
		d.p.Add(path, quire.ReasonInvalidValue, "The database has no property with id "+strconv.Quote(id)+".")
	}
	return p
}

func notObject() error {
	return &quire.Error{Code: quire.CodeInvalidJSON, Message: "The body must be a JSON object.",
		Details: []quire.Detail{{Path: "body", Reason: quire.ReasonInvalidType}}}
}
