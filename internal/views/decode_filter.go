package views

import (
	"math"
	"strconv"
	"time"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// filter decodes a view's filter: null (none) or a group. Empty groups are dropped, so a
// filter without conditions is stored and read as null.
func (d *decoder) filter(path string, v any) *Group {
	if v == nil {
		return nil
	}
	g := d.group(path, v, 1)
	if d.conds > MaxConds {
		d.p.AddDetail(quire.Beyond(path, quire.ReasonTooMany, MaxConds, int64(d.conds)), "A filter holds at most "+strconv.Itoa(MaxConds)+" conditions.")
	}
	if g == nil || len(g.Filters) == 0 {
		return nil
	}
	return g
}

// group decodes {"operator":"and"|"or","filters":[…]} at nesting depth (the top-level group
// is depth 1).
func (d *decoder) group(path string, v any, depth int) *Group {
	m, ok := jsonbody.Object(d.p, path, v)
	if !ok {
		return nil
	}
	if depth > MaxDepth {
		d.p.Add(path, quire.ReasonInvalidValue, "Filter groups nest at most "+strconv.Itoa(MaxDepth)+" levels deep.")
		return nil
	}
	jsonbody.Unknown(d.p, path, m, "operator", "filters")
	g := &Group{}
	if op, ok := required(d.p, path, m, "operator"); ok {
		if op != And && op != Or {
			d.p.Add(jsonbody.Join(path, "operator"), quire.ReasonInvalidValue, "A group's operator is and or or.")
		}
		g.Operator = op
	}
	at := jsonbody.Join(path, "filters")
	if m["filters"] == nil {
		d.p.Add(at, quire.ReasonRequired, "A group holds filters.")
		return g
	}
	arr, ok := jsonbody.Array(d.p, at, m["filters"], MaxArray)
	if !ok {
		return g
	}
	for i, item := range arr {
		ip := jsonbody.Index(at, i)
		im, ok := jsonbody.Object(d.p, ip, item)
		if !ok {
			continue
		}
		if _, isGroup := im["filters"]; isGroup {
			if sub := d.group(ip, im, depth+1); sub != nil && len(sub.Filters) > 0 {
				g.Filters = append(g.Filters, Filter{Group: sub})
			}
			continue
		}
		if c := d.condition(ip, im); c != nil {
			g.Filters = append(g.Filters, Filter{Condition: c})
		}
	}
	return g
}

// condition decodes {"property":ID,"operator":OP,"value":STRING|[STRING]}.
func (d *decoder) condition(path string, m map[string]any) *Condition {
	d.conds++
	jsonbody.Unknown(d.p, path, m, "property", "operator", "value")
	c := &Condition{}
	var prop *quire.Property
	if id, ok := required(d.p, path, m, "property"); ok {
		c.Property = id
		prop = d.property(jsonbody.Join(path, "property"), id)
	}
	op, opOK := required(d.p, path, m, "operator")
	switch {
	case !opOK:
	case !contains(operators, op):
		d.p.Add(jsonbody.Join(path, "operator"), quire.ReasonInvalidValue, strconv.Quote(op)+" is not a filter operator.")
		opOK = false
	case prop != nil && !contains(operatorsOf(prop.Type), op):
		d.p.Add(jsonbody.Join(path, "operator"), quire.ReasonInvalidValue, "Operator "+op+" does not apply to a "+prop.Type+" property.")
		opOK = false
	}
	c.Operator = op
	vp := jsonbody.Join(path, "value")
	raw := m["value"]
	switch {
	case opOK && (op == OpEmpty || op == OpNotEmpty):
		// The web client saves these with "value": "" (its values are strings only): that is
		// no value too, and reads back without one.
		if raw != nil && raw != "" {
			d.p.Add(vp, quire.ReasonInvalidValue, "Operators empty and not_empty take no value (or \"\").")
		}
		return c
	case raw == nil:
		if opOK {
			d.p.Add(vp, quire.ReasonRequired, "Operator "+op+" needs a value.")
		}
		return c
	}
	c.Value = d.value(vp, raw, op, opOK, prop)
	return c
}

// value decodes a condition's value: a list for in and nin, one string for the other
// operators, either when the operator is not known. Each string is checked against prop.
func (d *decoder) value(path string, raw any, op string, opOK bool, prop *quire.Property) *Value {
	list := op == OpIn || op == OpNin
	switch raw.(type) {
	case string:
		if opOK && list {
			d.p.Add(path, quire.ReasonInvalidType, "Operator "+op+" takes an array of strings.")
			return nil
		}
		s := d.operand(path, raw.(string), prop)
		return &Value{One: s}
	case []any:
		if opOK && !list {
			d.p.Add(path, quire.ReasonInvalidType, "Operator "+op+" takes a string.")
			return nil
		}
		arr, ok := jsonbody.Array(d.p, path, raw, MaxArray)
		if !ok {
			return nil
		}
		out := &Value{Many: make([]string, 0, len(arr))}
		for i, item := range arr {
			if s, ok := jsonbody.String(d.p, jsonbody.Index(path, i), item); ok {
				out.Many = append(out.Many, d.operand(jsonbody.Index(path, i), s, prop))
			}
		}
		return out
	}
	d.p.Add(path, quire.ReasonInvalidType, "A filter value is a string or an array of strings.")
	return nil
}

// operand checks one string against the property's type and returns it normalized: a
// select, multi_select or status option name becomes the option's id.
func (d *decoder) operand(path, s string, prop *quire.Property) string {
	if tooLong(s, MaxValueLen) {
		d.p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, MaxValueLen, runes(s)), "A filter value has at most "+strconv.Itoa(MaxValueLen)+" characters.")
		return s
	}
	if prop == nil {
		return s
	}
	switch prop.Type {
	case quire.PropSelect, quire.PropMultiSelect, quire.PropStatus:
		return d.option(path, s, prop)
	case quire.PropNumber, quire.PropUniqueID:
		if f, err := strconv.ParseFloat(s, 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			d.p.Add(path, quire.ReasonInvalidValue, "A "+prop.Type+" filter value is a number.")
		}
	case quire.PropCheckbox:
		if s != "true" && s != "false" {
			d.p.Add(path, quire.ReasonInvalidValue, "A checkbox filter value is \"true\" or \"false\".")
		}
	case quire.PropDate, quire.PropCreatedTime, quire.PropLastEditedTime:
		if !validDate(s) {
			d.p.Add(path, quire.ReasonInvalidValue, "A date filter value is an ISO 8601 date or date-time.")
		}
	}
	return s
}

// option resolves s to an option id of prop: an option id stays, a unique option name becomes
// its id (an id wins over another option's equal name).
func (d *decoder) option(path, s string, prop *quire.Property) string {
	for _, o := range prop.Options {
		if o.ID == s {
			return s
		}
	}
	id, n := "", 0
	for _, o := range prop.Options {
		if o.Name == s {
			id, n = o.ID, n+1
		}
	}
	switch n {
	case 0:
		d.p.Add(path, quire.ReasonInvalidValue, "Property "+strconv.Quote(prop.Name)+" has no option with id or name "+strconv.Quote(s)+".")
		return s
	case 1:
		return id
	}
	d.p.Add(path, quire.ReasonAmbiguous, "Several options of "+strconv.Quote(prop.Name)+" are named "+strconv.Quote(s)+"; use the option id.")
	return s
}

// validDate accepts 2006-01-02 and RFC 3339 date-times.
func validDate(s string) bool {
	if _, err := time.Parse(time.DateOnly, s); err == nil {
		return true
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

var operators = []string{OpEq, OpNeq, OpIn, OpNin, OpContains, OpNotContains, OpGt, OpGte, OpLt, OpLte, OpEmpty, OpNotEmpty}

// operatorsOf returns the operators that apply to a property type. Types this package does
// not know (formula, rollup …) take every operator.
func operatorsOf(typ string) []string {
	switch typ {
	case quire.PropTitle, quire.PropRichText, quire.PropURL, quire.PropEmail, quire.PropPhoneNumber,
		quire.PropMultiSelect, quire.PropPeople, quire.PropRelation, quire.PropCreatedBy, quire.PropLastEditedBy:
		return []string{OpEq, OpNeq, OpIn, OpNin, OpContains, OpNotContains, OpEmpty, OpNotEmpty}
	case quire.PropSelect, quire.PropStatus:
		return []string{OpEq, OpNeq, OpIn, OpNin, OpEmpty, OpNotEmpty}
	case quire.PropNumber, quire.PropUniqueID:
		return []string{OpEq, OpNeq, OpIn, OpNin, OpGt, OpGte, OpLt, OpLte, OpEmpty, OpNotEmpty}
	case quire.PropDate, quire.PropCreatedTime, quire.PropLastEditedTime:
		return []string{OpEq, OpNeq, OpGt, OpGte, OpLt, OpLte, OpEmpty, OpNotEmpty}
	case quire.PropCheckbox:
		return []string{OpEq, OpNeq}
	case quire.PropFiles:
		return []string{OpEmpty, OpNotEmpty}
	}
	return operators
}
