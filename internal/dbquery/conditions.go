package dbquery

import "strings"

// nodeColumn is the nodes column of the property types kept on the record's own row.
var nodeColumn = map[string]string{
	TypeCreatedTime: "n.created_ms", TypeLastEditedTime: "n.edited_ms",
	TypeCreatedBy: "n.created_by", TypeLastEditedBy: "n.edited_by",
}

// filter appends the filter's conditions to the WHERE clause; a top-level And adds each member
// as its own line.
func (c *compiler) filter(e Expr) {
	if e == nil {
		return
	}
	if and, ok := e.(And); ok && len(and) > 0 {
		for _, m := range and {
			c.b.w("\n  AND ", c.expr(m))
		}
		return
	}
	c.b.w("\n  AND ", c.expr(e))
}

func (c *compiler) expr(e Expr) string {
	switch e := e.(type) {
	case And:
		return c.join(e, " AND ", "TRUE")
	case Or:
		return c.join(e, " OR ", "FALSE")
	case Cond:
		if col, ok := nodeColumn[e.Type]; ok {
			return c.nodeCond(col, e)
		}
		return c.valueCond(e)
	}
	return "FALSE"
}

func (c *compiler) join(es []Expr, sep, none string) string {
	switch len(es) {
	case 0:
		return none
	case 1:
		return c.expr(es[0])
	}
	parts := make([]string, len(es))
	for i, m := range es {
		parts[i] = c.expr(m)
	}
	return "(" + strings.Join(parts, sep) + ")"
}

// valueCond is an EXISTS (or NOT EXISTS) over the property's rows in record_values: every
// negative operator (does_not_equal, does_not_contain, is_empty) also matches records without a
// value, as Notion's do.
//
// An equality names the database too, so that SQLite probes the covering index (database_id,
// property_id, v_text|v_num, record_id) with four equalities. Any other probe leaves database_id
// out (record ids are unique across databases): then only the primary key (record_id,
// property_id) fits it, where (database_id, property_id) would let SQLite scan every value of
// the property for each record.
func (c *compiler) valueCond(e Cond) string {
	prop := c.b.arg(e.PropertyID)
	pred, neg, eq := c.valuePred(e)
	var s string
	if eq {
		s = "EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = " + prop +
			" AND " + pred + " AND v.record_id = " + c.rid + c.b.d.fence + ")"
	} else {
		s = "EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = " + c.rid + " AND v.property_id = " + prop
		if pred != "" {
			s += " AND " + pred
		}
		s += c.b.d.fence + ")"
	}
	if neg {
		return "NOT " + s
	}
	return s
}

// valuePred is the test of one record_values row v that e makes: a record matches when one of
// its rows passes, or when none does (neg). pred is empty for is_empty and is_not_empty; eq says
// it is an equality on v_text or v_num.
func (c *compiler) valuePred(e Cond) (pred string, neg, eq bool) {
	b := c.b
	switch e.Op {
	case "is_empty":
		return "", true, false
	case "is_not_empty":
		return "", false, false
	}
	switch families[e.Type][e.Op] {
	case argText:
		v := e.Value.(string)
		switch e.Op {
		case "equals", "does_not_equal":
			return "v.v_text = " + b.arg(v), e.Op != "equals", true
		}
		pattern := likeEscaper.Replace(v)
		switch e.Op {
		case "contains", "does_not_contain":
			pattern = "%" + pattern + "%"
		case "starts_with":
			pattern += "%"
		case "ends_with":
			pattern = "%" + pattern
		}
		return "v.v_text " + b.d.ilike + " " + b.arg(pattern) + ` ESCAPE '\'`, e.Op == "does_not_contain", false
	case argNumber:
		op := map[string]string{"equals": "=", "does_not_equal": "=", "greater_than": ">", "less_than": "<",
			"greater_than_or_equal_to": ">=", "less_than_or_equal_to": "<="}[e.Op]
		return "v.v_num " + op + " " + b.arg(e.Value.(float64)), e.Op == "does_not_equal", op == "="
	case argBool:
		// A checkbox matches true by a row with v_num = 1; false is the absence of one.
		return "v.v_num = " + b.arg(1.0), e.Value.(bool) != (e.Op == "equals"), true
	case argOption, argID:
		return "v.v_text = " + b.arg(e.Value.(string)), e.Op == "does_not_equal" || e.Op == "does_not_contain", true
	}
	parts, eq := c.dateParts("v.v_num", e, func(ms int64) any { return float64(ms) })
	return strings.Join(parts, " AND "), false, eq
}

// dateParts compares col with the range a date condition's operator gives, one comparison
// each; eq reports a single equality. arg gives the bound the column's type wants (v_num is
// REAL, the nodes row's times BIGINT).
func (c *compiler) dateParts(col string, e Cond, arg func(ms int64) any) (parts []string, eq bool) {
	var v Date
	if d, ok := e.Value.(Date); ok {
		v = d
	}
	rs := dateRange(e.Op, v, c.now)
	parts = make([]string, len(rs))
	for i, r := range rs {
		parts[i] = col + " " + r.op + " " + c.b.arg(arg(r.ms))
	}
	return parts, len(rs) == 1 && rs[0].op == "="
}

// nodeCond is a condition on a column of the record's nodes row, which is never empty.
func (c *compiler) nodeCond(col string, e Cond) string {
	b := c.b
	switch e.Op {
	case "is_empty":
		return "FALSE"
	case "is_not_empty":
		return "TRUE"
	case "contains":
		return col + " = " + b.arg(e.Value.(string))
	case "does_not_contain":
		return col + " <> " + b.arg(e.Value.(string))
	}
	parts, _ := c.dateParts(col, e, func(ms int64) any { return ms })
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}
