package views

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Group is a filter group as the web client saves it: {"operator":"and"|"or","filters":[…]}.
// A view's filter is always a group; stored groups are never empty.
type Group struct {
	Operator string   `json:"operator"` // "and" or "or"
	Filters  []Filter `json:"filters"`
}

// Filter is one member of a group: exactly one of Condition and Group is set.
type Filter struct {
	Condition *Condition
	Group     *Group
}

// Condition is {"property":ID,"operator":OP,"value":STRING|[STRING]}; Value is nil for the
// operators empty and not_empty.
type Condition struct {
	Property string `json:"property"`
	Operator string `json:"operator"`
	Value    *Value `json:"value,omitempty"`
}

// Value is a condition's operand: one string, or (Many non-nil) a list of strings.
type Value struct {
	One  string
	Many []string
}

// Group operators.
const (
	And = "and"
	Or  = "or"
)

// Condition operators.
const (
	OpEq          = "eq"
	OpNeq         = "neq"
	OpIn          = "in"
	OpNin         = "nin"
	OpContains    = "contains"
	OpNotContains = "not_contains"
	OpGt          = "gt"
	OpGte         = "gte"
	OpLt          = "lt"
	OpLte         = "lte"
	OpEmpty       = "empty"
	OpNotEmpty    = "not_empty"
)

// MarshalJSON writes the member as a condition or a group.
func (f Filter) MarshalJSON() ([]byte, error) {
	if f.Group != nil {
		return json.Marshal(f.Group)
	}
	if f.Condition != nil {
		return json.Marshal(f.Condition)
	}
	return nil, errors.New("views: empty filter member")
}

// UnmarshalJSON reads a member of the stored form: an object with "filters" is a group.
func (f *Filter) UnmarshalJSON(data []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	*f = Filter{}
	if _, ok := probe["filters"]; ok {
		f.Group = &Group{}
		return json.Unmarshal(data, f.Group)
	}
	f.Condition = &Condition{}
	return json.Unmarshal(data, f.Condition)
}

// MarshalJSON writes a string or an array of strings.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Many != nil {
		return json.Marshal(v.Many)
	}
	return json.Marshal(v.One)
}

// UnmarshalJSON reads a string or an array of strings.
func (v *Value) UnmarshalJSON(data []byte) error {
	*v = Value{}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		v.Many = []string{}
		return json.Unmarshal(data, &v.Many)
	}
	return json.Unmarshal(data, &v.One)
}

// strings returns the value's strings, one or many.
func (v *Value) strings() []string {
	if v == nil {
		return nil
	}
	if v.Many != nil {
		return v.Many
	}
	return []string{v.One}
}

// clone returns a deep copy of g.
func (g *Group) clone() *Group {
	if g == nil {
		return nil
	}
	out := &Group{Operator: g.Operator, Filters: make([]Filter, len(g.Filters))}
	for i, f := range g.Filters {
		if f.Group != nil {
			out.Filters[i].Group = f.Group.clone()
		}
		if f.Condition != nil {
			c := *f.Condition
			if c.Value != nil {
				val := Value{One: c.Value.One}
				if c.Value.Many != nil {
					val.Many = append([]string{}, c.Value.Many...)
				}
				c.Value = &val
			}
			out.Filters[i].Condition = &c
		}
	}
	return out
}

// Conditions calls fn for every condition of the filter, depth first in order.
func (g *Group) Conditions(fn func(c *Condition)) {
	if g == nil {
		return
	}
	for _, f := range g.Filters {
		if f.Condition != nil {
			fn(f.Condition)
		}
		f.Group.Conditions(fn)
	}
}
