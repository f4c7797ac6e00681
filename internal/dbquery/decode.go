package dbquery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/quire-dev/quire/internal/quire"
)

// Limits of one filter.
const (
	maxMembers = 100  // members of one and/or array
	maxConds   = 100  // conditions in a whole filter
	maxText    = 2000 // characters of a text operand
	maxDepth   = 2    // compound filters nest this many levels deep (Notion's limit)
)

// Decode decodes a query's filter and sorts (either may be empty or JSON null), collecting every
// problem of both into one validation_error with paths "filter…" and "sorts…".
func Decode(s *Schema, filter, sorts []byte) (Expr, []Sort, error) {
	d := decoder{s: s, p: &quire.Problems{}}
	e := d.decodeFilter(filter)
	if d.conds > maxConds {
		d.p.AddDetail(quire.Beyond("filter", quire.ReasonTooMany, maxConds, int64(d.conds)),
			fmt.Sprintf("A filter holds at most %d conditions.", maxConds))
	}
	ss := d.decodeSorts(sorts)
	if err := d.p.Err(); err != nil {
		return nil, nil, err
	}
	return e, ss, nil
}

// DecodeFilter decodes the filter of a query body. Empty input or JSON null is no filter (nil).
// Errors are *quire.Error: validation_error with a detail per problem, or invalid_json.
func DecodeFilter(s *Schema, raw []byte) (Expr, error) {
	e, _, err := Decode(s, raw, nil)
	return e, err
}

// DecodeSorts decodes the sorts of a query body. Empty input or JSON null is no sort.
func DecodeSorts(s *Schema, raw []byte) ([]Sort, error) {
	_, ss, err := Decode(s, nil, raw)
	return ss, err
}

type decoder struct {
	s     *Schema
	p     *quire.Problems
	conds int
}

func (d *decoder) decodeFilter(raw []byte) Expr {
	v, ok := d.parse(raw, "filter")
	if !ok || v == nil {
		return nil
	}
	return d.filter(v, "filter", 0)
}

// parse reads raw as one JSON value, numbers kept as json.Number. A malformed value is reported
// at path as invalid_value (the body as a whole was JSON, so only a caller's slice can be wrong).
func (d *decoder) parse(raw []byte, path string) (any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		d.p.Add(path, quire.ReasonInvalidValue, "The "+path+" is not valid JSON.")
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		d.p.Add(path, quire.ReasonInvalidValue, "The "+path+" is not valid JSON.")
		return nil, false
	}
	return v, true
}

// filter decodes one filter object at path; depth counts the compound filters around it.
func (d *decoder) filter(v any, path string, depth int) Expr {
	obj, ok := v.(map[string]any)
	if !ok {
		d.p.Add(path, quire.ReasonInvalidType, "A filter must be an object.")
		return nil
	}
	_, and := obj["and"]
	_, or := obj["or"]
	_, prop := obj["property"]
	_, ts := obj["timestamp"]
	switch {
	case and || or:
		return d.compound(obj, path, depth)
	case ts && !prop:
		return d.timestamp(obj, path)
	}
	return d.property(obj, path)
}

func (d *decoder) compound(obj map[string]any, path string, depth int) Expr {
	key := "and"
	if _, ok := obj["and"]; !ok {
		key = "or"
	}
	for _, k := range keys(obj) {
		switch {
		case k == key:
		case k == "or":
			d.p.Add(path+".or", quire.ReasonInvalidValue, "A compound filter has either and or or, not both.")
		default:
			d.p.Add(path+"."+k, quire.ReasonUnknownField, fmt.Sprintf("A compound filter has no field %q.", k))
		}
	}
	at := path + "." + key
	if depth >= maxDepth {
		d.p.Add(at, quire.ReasonInvalidValue, "Compound filters nest at most two levels deep.")
		return nil
	}
	arr, ok := obj[key].([]any)
	if !ok {
		d.p.Add(at, quire.ReasonInvalidType, "A compound filter's "+key+" must be an array of filters.")
		return nil
	}
	if len(arr) > maxMembers {
		d.p.AddDetail(quire.Beyond(at, quire.ReasonTooMany, maxMembers, int64(len(arr))), fmt.Sprintf("A compound filter holds at most %d filters.", maxMembers))
		return nil
	}
	members := make([]Expr, 0, len(arr))
	for i, m := range arr {
		if e := d.filter(m, fmt.Sprintf("%s[%d]", at, i), depth+1); e != nil {
			members = append(members, e)
		}
	}
	if key == "and" {
		return And(members)
	}
	return Or(members)
}

func (d *decoder) property(obj map[string]any, path string) Expr {
	raw, ok := obj["property"]
	if !ok {
		d.p.Add(path+".property", quire.ReasonRequired, "A filter names a property (or a timestamp, or and/or).")
		return nil
	}
	name, ok := raw.(string)
	if !ok {
		d.p.Add(path+".property", quire.ReasonInvalidType, "A filter's property must be a string.")
		return nil
	}
	p := d.s.Lookup(name)
	if p == nil {
		d.p.Add(path+".property", quire.ReasonInvalidValue, fmt.Sprintf("Could not find property with name or id: %s.", name))
	} else if families[p.Type] == nil {
		d.p.Unsupported(quire.CodeUnsupportedFilter, path+".property", quire.ReasonInvalidValue, fmt.Sprintf("Property %s of type %s cannot be filtered.", name, p.Type))
		p = nil
	}
	condKey, bad := "", false
	for _, k := range keys(obj) {
		switch {
		case k == "property":
		case k == "timestamp":
			d.p.Add(path+".timestamp", quire.ReasonInvalidValue, "A filter names either a property or a timestamp.")
			bad = true
		case !filterKeys[k]:
			d.p.Add(path+"."+k, quire.ReasonUnknownField, fmt.Sprintf("A filter has no field %q.", k))
			bad = true
		case p == nil:
		case !accepts(p.Type, k):
			d.p.Add(path+"."+k, quire.ReasonInvalidValue, fmt.Sprintf("Property %s is of type %s, not %s.", name, p.Type, k))
			bad = true
		case condKey != "":
			d.p.Add(path+"."+k, quire.ReasonInvalidValue, "A filter holds one condition.")
			bad = true
		default:
			condKey = k
		}
	}
	if p == nil {
		return nil
	}
	if condKey == "" {
		if !bad {
			d.p.Add(path+"."+p.Type, quire.ReasonRequired, fmt.Sprintf("The filter on %s needs a %s condition.", name, p.Type))
		}
		return nil
	}
	return d.cond(p.ID, p.Type, p, obj[condKey], path+"."+condKey)
}

func (d *decoder) timestamp(obj map[string]any, path string) Expr {
	ts, ok := obj["timestamp"].(string)
	if !ok {
		d.p.Add(path+".timestamp", quire.ReasonInvalidType, "A filter's timestamp must be a string.")
		return nil
	}
	if ts != TypeCreatedTime && ts != TypeLastEditedTime {
		d.p.Add(path+".timestamp", quire.ReasonInvalidValue, "A timestamp filter is on created_time or last_edited_time.")
		ts = ""
	}
	for _, k := range keys(obj) {
		switch {
		case k == "timestamp" || k == ts:
		case filterKeys[k]:
			d.p.Add(path+"."+k, quire.ReasonInvalidValue, "A timestamp filter holds one condition, keyed by the timestamp.")
		default:
			d.p.Add(path+"."+k, quire.ReasonUnknownField, fmt.Sprintf("A filter has no field %q.", k))
		}
	}
	if ts == "" {
		return nil
	}
	v, ok := obj[ts]
	if !ok {
		d.p.Add(path+"."+ts, quire.ReasonRequired, "A timestamp filter needs a "+ts+" condition.")
		return nil
	}
	return d.cond("", ts, nil, v, path+"."+ts)
}

// keys returns the keys of obj in a stable order, so that problems are reported stably.
func keys(obj map[string]any) []string {
	ks := make([]string, 0, len(obj))
	for k := range obj {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
