package dbquery

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/views"
)

// FromView converts a view's filter and sorts, in the web client's format the view stores
// (internal/views), to a query's filter and sorts, so that POST /v2/databases/:id/query with a
// view_id shows the records the view shows in its order. Pass the view as views.Read gives it
// (references to deleted properties pruned). Groups may nest deeper than a request's filter:
// the expression is built here, not decoded. A condition on a property the query cannot filter
// answers unsupported_filter at path; a sort on a property it cannot sort is left out (the
// view keeps the records' order for it, and so does the query's next sort).
//
// Operators, by property type: eq, neq, contains, not_contains, gt, gte, lt, lte, empty and
// not_empty are the query's equals, does_not_equal, contains, does_not_contain, greater_than
// (dates: after), greater_than_or_equal_to (on_or_after), less_than (before),
// less_than_or_equal_to (on_or_before), is_empty and is_not_empty. On types holding several
// values (multi_select, people, relation, created_by, last_edited_by) eq is contains and neq
// does_not_contain. in is an or of eq, nin an and of neq. A date's neq is before or after it.
func FromView(s *Schema, filter *views.Group, sorts []views.Sort, path string) (Expr, []Sort, error) {
	var p quire.Problems
	var e Expr
	if filter != nil {
		e = fromGroup(s, filter, &p, path)
	}
	var out []Sort
	for _, st := range sorts {
		prop := s.byID[st.Property]
		if prop == nil || sortColumn[prop.Type] == "" {
			continue
		}
		out = append(out, Sort{PropertyID: prop.ID, Type: prop.Type, Descending: st.Direction == views.Descending})
	}
	if err := p.Err(); err != nil {
		return nil, nil, err
	}
	return e, out, nil
}

func fromGroup(s *Schema, g *views.Group, p *quire.Problems, path string) Expr {
	members := make([]Expr, 0, len(g.Filters))
	for _, f := range g.Filters {
		var e Expr
		if f.Group != nil {
			e = fromGroup(s, f.Group, p, path)
		} else if f.Condition != nil {
			e = fromCondition(s, f.Condition, p, path)
		}
		if e != nil {
			members = append(members, e)
		}
	}
	if g.Operator == views.Or {
		return Or(members)
	}
	return And(members)
}

// viewOps maps a view operator to the query's, per family of property types.
var viewOps = map[string]map[string]string{
	"text": {views.OpEq: "equals", views.OpNeq: "does_not_equal", views.OpContains: "contains",
		views.OpNotContains: "does_not_contain"},
	"number": {views.OpEq: "equals", views.OpNeq: "does_not_equal", views.OpGt: "greater_than",
		views.OpGte: "greater_than_or_equal_to", views.OpLt: "less_than", views.OpLte: "less_than_or_equal_to"},
	"date": {views.OpEq: "equals", views.OpGt: "after", views.OpGte: "on_or_after", views.OpLt: "before",
		views.OpLte: "on_or_before"},
	"many": {views.OpEq: "contains", views.OpNeq: "does_not_contain", views.OpContains: "contains",
		views.OpNotContains: "does_not_contain"},
	"one": {views.OpEq: "equals", views.OpNeq: "does_not_equal"}, // select, status, checkbox
}

// viewFamily is the row of viewOps for a property type, "" for types the query cannot filter.
func viewFamily(typ string) string {
	fam := families[typ]
	has := func(op string) bool { _, ok := fam[op]; return ok }
	switch {
	case fam == nil:
		return ""
	case has("starts_with"):
		return "text"
	case has("greater_than"):
		return "number"
	case has("on_or_after"):
		return "date"
	case has("does_not_contain"):
		return "many"
	}
	return "one"
}

func fromCondition(s *Schema, c *views.Condition, p *quire.Problems, path string) Expr {
	prop := s.byID[c.Property]
	if prop == nil {
		return nil // pruned on read; a stale reference filters nothing, as the view shows
	}
	fam := viewFamily(prop.Type)
	unsupported := func() Expr {
		p.Unsupported(quire.CodeUnsupportedFilter, path, quire.ReasonInvalidValue,
			fmt.Sprintf("The view filters property %s (%s) with %s, which a query cannot apply.", prop.Name, prop.Type, c.Operator))
		return nil
	}
	switch c.Operator {
	case views.OpEmpty, views.OpNotEmpty:
		if _, ok := families[prop.Type]["is_empty"]; !ok {
			return unsupported()
		}
		op := "is_empty"
		if c.Operator == views.OpNotEmpty {
			op = "is_not_empty"
		}
		return Cond{PropertyID: prop.ID, Type: prop.Type, Op: op}
	case views.OpIn, views.OpNin:
		one := views.OpEq
		if c.Operator == views.OpNin {
			one = views.OpNeq
		}
		var members []Expr
		for _, v := range valuesOf(c.Value) {
			if e := fromCondition(s, &views.Condition{Property: c.Property, Operator: one, Value: &views.Value{One: v}}, p, path); e != nil {
				members = append(members, e)
			}
		}
		if one == views.OpNeq {
			return And(members)
		}
		return Or(members)
	}
	if fam == "date" && c.Operator == views.OpNeq {
		v := valuesOf(c.Value)
		before := fromCondition(s, &views.Condition{Property: c.Property, Operator: views.OpLt, Value: &views.Value{One: first(v)}}, p, path)
		after := fromCondition(s, &views.Condition{Property: c.Property, Operator: views.OpGt, Value: &views.Value{One: first(v)}}, p, path)
		if before == nil || after == nil {
			return nil
		}
		return Or{before, after}
	}
	op := viewOps[fam][c.Operator]
	if op == "" {
		return unsupported()
	}
	value, ok := viewOperand(families[prop.Type][op], first(valuesOf(c.Value)))
	if !ok {
		p.Add(path, quire.ReasonInvalidValue, fmt.Sprintf("The view's filter on %s holds a value the query cannot read.", prop.Name))
		return nil
	}
	if s, isText := value.(string); isText && s == "" && families[prop.Type][op] == argText {
		// Empty text is stored as no row at all, as the decoder reads it (cond).
		switch op {
		case "equals":
			op, value = "is_empty", nil
		case "does_not_equal":
			op, value = "is_not_empty", nil
		}
	}
	return Cond{PropertyID: prop.ID, Type: prop.Type, Op: op, Value: value}
}

// viewOperand converts a view's string operand to the value kind an operator takes. Options
// are stored as ids already (the view's decoder resolves names).
func viewOperand(kind operand, s string) (any, bool) {
	switch kind {
	case argNumber:
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	case argBool:
		return s == "true", s == "true" || s == "false"
	case argID:
		if id, ok := quire.CanonicalID(s); ok {
			return id, true
		}
		return strings.ToLower(s), true // no record holds it: the condition matches as the view's does
	case argDate:
		ms, day, ok := quire.ParseDate(s)
		return Date{Ms: ms, Day: day}, ok
	}
	return s, true
}

func valuesOf(v *views.Value) []string {
	switch {
	case v == nil:
		return nil
	case v.Many != nil:
		return v.Many
	}
	return []string{v.One}
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
